/**
 * The authorization edge checked with a client nobody here wrote: oauth4webapi (panva), a strict,
 * standards-exact OAuth 2 client. Resource discovery (RFC 9728), authorization server discovery
 * (RFC 8414), the code flow with PKCE and `iss` (RFC 9207), `WWW-Authenticate` (RFC 6750 §3, RFC 9728
 * §5.1), error redirects (RFC 6749 §4.1.2.1), revocation of access tokens (RFC 7009) and code replay.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as oauth from 'oauth4webapi';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let as: oauth.AuthorizationServer;
const client: oauth.Client = { client_id: 'svc-cli' };
const REDIRECT = 'http://127.0.0.1:53999/callback';
const insecure = { [oauth.allowInsecureRequests]: true };

test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

test('RFC 9728 resource discovery of /v1 leads to the authorization server, whose RFC 8414 metadata checks out', async () => {
  const resource = new URL(`${svc.url}/v1`);
  const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
  assert.is(rs.resource, resource.href.replace(/\/$/, ''));
  const issuer = new URL(rs.authorization_servers![0]);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  assert.is(as.issuer, `${svc.url}/auth`);
  assert.is(as.authorization_response_iss_parameter_supported, true);
  // The root document describes the origin itself.
  const root = new URL(svc.url);
  const rootRs = await oauth.processResourceDiscoveryResponse(root, await oauth.resourceDiscoveryRequest(root, insecure));
  assert.equal(rootRs.authorization_servers, [`${svc.url}/auth`]);
});

/** What a person does on the consent page, then the client's own validation of the redirect. */
async function authorize(extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  }))
    url.searchParams.set(k, v);
  const form = new URLSearchParams(url.searchParams);
  form.set('email', 'dev@svc.local');
  form.set('password', 'svc-dev-password');
  form.set('decision', 'allow');
  const res = await fetch(as.authorization_endpoint!, { method: 'POST', body: form, redirect: 'manual' });
  return { res, verifier, state };
}

async function login() {
  const { res, verifier, state } = await authorize();
  const params = oauth.validateAuthResponse(as, client, new URL(res.headers.get('location')!), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure),
  );
  return { tokens, params, verifier };
}

test('the code flow with PKCE passes oauth4webapi, iss checked, and the token works on the API', async () => {
  const { tokens } = await login();
  assert.is(tokens.token_type, 'bearer');
  const res = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(`${svc.url}/v1/me/stores`), undefined, undefined, insecure);
  assert.is(res.status, 200);
});

test('every 401 carries WWW-Authenticate: Bearer with resource_metadata, and error=invalid_token for a refused token', async () => {
  const missing = await fetch(`${svc.url}/v1/store`, { headers: { 'x-store-id': svc.storeId } });
  assert.is(missing.status, 401);
  const bare = params(missing.headers.get('www-authenticate'));
  assert.is(bare.scheme, 'bearer');
  assert.is(bare.resource_metadata, `${svc.url}/.well-known/oauth-protected-resource/v1`);
  // RFC 6750 §3.1: no error code when the request carried no token.
  assert.is(bare.error, undefined);

  try {
    await oauth.protectedResourceRequest('not-a-token', 'GET', new URL(`${svc.url}/v1/store`), new Headers({ 'x-store-id': svc.storeId }), undefined, insecure);
    assert.unreachable('a refused token must raise the challenge');
  } catch (error) {
    assert.instance(error, oauth.WWWAuthenticateChallengeError);
    const [challenge] = (error as oauth.WWWAuthenticateChallengeError).cause;
    assert.equal([challenge.scheme, challenge.parameters.error], ['bearer', 'invalid_token']);
    assert.is(challenge.parameters.resource_metadata, `${svc.url}/.well-known/oauth-protected-resource/v1`);
  }
  // The account API names the origin's document.
  const account = await fetch(`${svc.url}/auth/v1/me`, { headers: { authorization: 'Bearer nope' } });
  assert.is(params(account.headers.get('www-authenticate')).resource_metadata, `${svc.url}/.well-known/oauth-protected-resource`);
});

test('RFC 7009: revoking a login access token ends its session (access and refresh) at once', async () => {
  const { tokens } = await login();
  const api = apiClient(svc.url, { token: tokens.access_token, storeId: svc.storeId });
  assert.is((await api('GET', '/v1/store')).status, 200);
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure));
  const after = await api('GET', '/v1/store');
  assert.equal([after.status, after.body.error.code], [401, 'TOKEN_REVOKED']);
  const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
  assert.is(refresh.status, 400);
  // Unknown tokens and unknown hints are answered 200 (RFC 7009 §2.2); a missing token is invalid_request.
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(as, client, oauth.None(), 'never-issued', { ...insecure, additionalParameters: { token_type_hint: 'something_else' } }),
  );
  const missing = await fetch(as.revocation_endpoint!, { method: 'POST', body: new URLSearchParams({ client_id: 'svc-cli' }) });
  assert.equal([missing.status, (await missing.json()).error], [400, 'invalid_request']);
});

test('a login of another client cannot be revoked by naming ours', async () => {
  const { tokens } = await login();
  const other = await fetch(as.revocation_endpoint!, {
    method: 'POST',
    body: new URLSearchParams({ client_id: 'svc-store-platform', token: tokens.refresh_token! }),
  });
  assert.is(other.status, 400);
  assert.is((await apiClient(svc.url)('GET', '/v1/me/stores', { token: tokens.access_token })).status, 200);
});

test('errors after the client is validated come back as error redirects the client library understands', async () => {
  const { res, state } = await authorize({ scope: 'product:rw no-such:scope' });
  assert.is(res.status, 302);
  try {
    oauth.validateAuthResponse(as, client, new URL(res.headers.get('location')!), state);
    assert.unreachable('an error response must raise');
  } catch (error) {
    assert.instance(error, oauth.AuthorizationResponseError);
    assert.is((error as oauth.AuthorizationResponseError).error, 'invalid_scope');
  }
});

test('a replayed authorization code is refused and revokes the tokens it already gave out (RFC 6749 §4.1.2)', async () => {
  const { tokens, params, verifier } = await login();
  const replay = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure);
  assert.is(replay.status, 400);
  assert.is((await replay.json()).error, 'invalid_grant');
  const api = apiClient(svc.url, { token: tokens.access_token, storeId: svc.storeId });
  assert.is((await api('GET', '/v1/store')).body.error.code, 'TOKEN_REVOKED');
  assert.is((await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure)).status, 400);
});

test('OAuth endpoints read at most 64 KB: a larger form is 413 before it is read', async () => {
  const big = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x'.repeat(70 * 1024) });
  const res = await fetch(as.token_endpoint!, { method: 'POST', body: big });
  assert.is(res.status, 413);
  assert.is((await res.json()).error, 'invalid_request');
  const revoke = await fetch(as.revocation_endpoint!, { method: 'POST', body: big });
  assert.is(revoke.status, 413);
});

/** One `Bearer k="v", …` challenge as a dictionary (the library parses only responses to tokens it sent). */
function params(header: string | null): Record<string, string> {
  assert.ok(header, 'WWW-Authenticate is present');
  const [scheme] = header!.split(' ', 1);
  return { scheme: scheme.toLowerCase(), ...Object.fromEntries([...header!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])) };
}

test.run();
