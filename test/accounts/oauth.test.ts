import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const REDIRECT = 'http://127.0.0.1:53682/callback';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeParams(challenge: string, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    response_type: 'code',
    client_id: 'svc-cli',
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    ...extra,
  });
}

/** What a person does on the consent page: fill in the form and press a button. */
async function consent(params: URLSearchParams, decision: 'allow' | 'deny', password = 'svc-dev-password') {
  const form = new URLSearchParams(params);
  form.set('email', 'dev@svc.local');
  form.set('password', password);
  form.set('decision', decision);
  return fetch(`${svc.url}/auth/authorize`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function token(form: Record<string, string>) {
  const res = await fetch(`${svc.url}/auth/token`, { method: 'POST', body: new URLSearchParams(form) });
  return { status: res.status, body: await res.json() };
}

async function codeFor(challenge: string, extra: Record<string, string> = {}) {
  const res = await consent(authorizeParams(challenge, extra), 'allow');
  assert.is(res.status, 302);
  const location = new URL(res.headers.get('location')!);
  assert.is(location.origin + location.pathname, REDIRECT);
  assert.is(location.searchParams.get('state'), 'st-123');
  assert.is(location.searchParams.get('iss'), `${svc.url}/auth`);
  return location.searchParams.get('code')!;
}

test('RFC 8414 metadata and RFC 9728 protected-resource metadata', async () => {
  const meta = await (await fetch(`${svc.url}/auth/.well-known/oauth-authorization-server`)).json();
  assert.is(meta.issuer, `${svc.url}/auth`);
  assert.equal(meta.code_challenge_methods_supported, ['S256']);
  assert.equal(meta.grant_types_supported, ['authorization_code', 'refresh_token']);
  assert.is(meta.token_endpoint, `${svc.url}/auth/token`);
  const rootAlias = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server/auth`)).json();
  assert.equal(rootAlias, meta);
  assert.is(meta.authorization_response_iss_parameter_supported, true);
  // RFC 9728 §3: each document names the resource whose well-known address served it.
  const root = await (await fetch(`${svc.url}/.well-known/oauth-protected-resource`)).json();
  assert.is(root.resource, svc.url);
  const admin = await (await fetch(`${svc.url}/.well-known/oauth-protected-resource/v1`)).json();
  assert.is(admin.resource, `${svc.url}/v1`);
  assert.equal(admin.authorization_servers, [`${svc.url}/auth`]);
});

test('the authorize page is a real HTML login and consent form', async () => {
  const { challenge } = pkce();
  const res = await fetch(`${svc.url}/auth/authorize?${authorizeParams(challenge)}`);
  assert.is(res.status, 200);
  assert.ok(res.headers.get('content-type')!.startsWith('text/html'));
  const page = await res.text();
  assert.ok(page.includes('<form method="post" action="/auth/authorize">'));
  assert.ok(page.includes('name="password"'));
  assert.ok(page.includes('svc CLI'));
});

test('the consent page lists what is asked in words, grouped, never as raw scope names', async () => {
  const { challenge } = pkce();
  // A third-party app (the CLI's own login asks for everything the role allows).
  const registered = await fetch(`${svc.url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Report App', redirect_uris: [REDIRECT] }),
  });
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const scope = 'product:rw product:r order:r settlement:r stores:read';
  const page = await (await fetch(`${svc.url}/auth/authorize?${authorizeParams(challenge, { scope, client_id: clientId })}`)).text();
  const groups = [...page.matchAll(/<li class="scope-group"><b>([^<]+)<\/b><ul>(.*?)<\/ul><\/li>/g)].map((m) => [
    m[1],
    [...m[2].matchAll(/<li>([^<]+)<\/li>/g)].map((i) => i[1]),
  ]);
  assert.equal(groups, [
    ['상품', ['상품·옵션·재고 — 보기·변경']],
    ['주문과 고객', ['주문·결제 — 보기']],
    ['데이터', ['정산·결제 내역 — 보기']],
    ['계정', ['내가 속한 상점 목록 보기']],
  ]);
  assert.not.match(page.slice(0, page.indexOf('<form')), 'product:rw', 'scope names only in the form, not in what the person reads');
});

test('until client and redirect address are known genuine, errors are shown on the page, never redirected', async () => {
  const { challenge } = pkce();
  for (const [extra, why] of [
    [{ client_id: 'evil' }, 'unknown client'],
    [{ redirect_uri: 'https://evil.example.com/cb' }, 'foreign redirect'],
    [{ redirect_uri: `${REDIRECT}#frag` }, 'fragment (RFC 6749 §3.1.2)'],
    [{ redirect_uri: 'http://127.0.0.1:53682/elsewhere' }, 'another loopback path'],
    [{ redirect_uri: `${REDIRECT}?x=1` }, 'a query on the loopback address'],
  ] as const) {
    const res = await fetch(`${svc.url}/auth/authorize?${authorizeParams(challenge, extra)}`, { redirect: 'manual' });
    assert.is(res.status, 400, why);
    assert.is(res.headers.get('location'), null, why);
  }
});

test('after that, errors go back to the client as RFC 6749 §4.1.2.1 redirects with iss (RFC 9207)', async () => {
  const { challenge } = pkce();
  for (const [extra, error] of [
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge: 'short' }, 'invalid_request'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ scope: 'product:rw nonsense:rw' }, 'invalid_scope'],
  ] as const) {
    const res = await fetch(`${svc.url}/auth/authorize?${authorizeParams(challenge, extra)}`, { redirect: 'manual' });
    assert.is(res.status, 302, error);
    const to = new URL(res.headers.get('location')!);
    assert.is(`${to.origin}${to.pathname}`, REDIRECT);
    assert.equal([to.searchParams.get('error'), to.searchParams.get('state'), to.searchParams.get('iss')], [error, 'st-123', `${svc.url}/auth`]);
  }
});

test('authorization code + PKCE gives a login token pair that works on the API', async () => {
  const { verifier, challenge } = pkce();
  const code = await codeFor(challenge);
  const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'svc-cli', code_verifier: verifier });
  assert.is(res.status, 200);
  assert.is(res.body.token_type, 'Bearer');
  assert.is(res.body.expires_in, 900);
  assert.type(res.body.refresh_token, 'string');
  const store = await apiClient(svc.url)('GET', '/v1/store', { token: res.body.access_token, storeId: svc.storeId });
  assert.is(store.status, 200);
  // The token verifies against the published JWKS, as a resource server would check it.
  const jwks = createRemoteJWKSet(new URL(`${svc.url}/auth/jwks.json`));
  const { payload } = await jwtVerify(res.body.access_token, jwks, {
    issuer: `${svc.url}/auth`,
    audience: 'svc-api',
    currentDate: new Date(svc.services.clock.now()),
  });
  assert.is(payload.typ, 'login');
});

test('a wrong verifier, a reused code or another redirect URI are invalid_grant', async () => {
  const { verifier, challenge } = pkce();
  const code = await codeFor(challenge);
  const wrong = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'svc-cli', code_verifier: pkce().verifier });
  assert.is(wrong.status, 400);
  assert.is(wrong.body.error, 'invalid_grant');
  // A code is single-use even when the first try failed.
  const again = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'svc-cli', code_verifier: verifier });
  assert.is(again.body.error, 'invalid_grant');
  const code2 = await codeFor(challenge);
  const otherRedirect = await token({
    grant_type: 'authorization_code',
    code: code2,
    redirect_uri: 'http://127.0.0.1:1/callback',
    client_id: 'svc-cli',
    code_verifier: verifier,
  });
  assert.is(otherRedirect.body.error, 'invalid_grant');
});

test('codes expire within minutes', async () => {
  const { verifier, challenge } = pkce();
  const code = await codeFor(challenge);
  await svc.advance(3 * 60);
  const res = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'svc-cli', code_verifier: verifier });
  assert.is(res.body.error, 'invalid_grant');
});

test('deny redirects with access_denied; a wrong password re-shows the form', async () => {
  const { challenge } = pkce();
  const denied = await consent(authorizeParams(challenge), 'deny');
  assert.is(denied.status, 302);
  const location = new URL(denied.headers.get('location')!);
  assert.is(location.searchParams.get('error'), 'access_denied');
  assert.is(location.searchParams.get('code'), null);
  const wrong = await consent(authorizeParams(challenge), 'allow', 'bad-password');
  assert.is(wrong.status, 200);
  assert.ok((await wrong.text()).includes('올바르지 않습니다'));
});

test('refresh tokens rotate on every use; a reused one revokes the session', async () => {
  const { verifier, challenge } = pkce();
  const first = await token({
    grant_type: 'authorization_code',
    code: await codeFor(challenge),
    redirect_uri: REDIRECT,
    client_id: 'svc-cli',
    code_verifier: verifier,
  });
  const second = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: 'svc-cli' });
  assert.is(second.status, 200);
  assert.is.not(second.body.refresh_token, first.body.refresh_token);
  const replay = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: 'svc-cli' });
  assert.is(replay.body.error, 'invalid_grant');
  // Reuse means the token leaked: the whole session is gone, including the newest pair.
  const newest = await token({ grant_type: 'refresh_token', refresh_token: second.body.refresh_token, client_id: 'svc-cli' });
  assert.is(newest.body.error, 'invalid_grant');
  const api = await apiClient(svc.url)('GET', '/v1/store', { token: second.body.access_token, storeId: svc.storeId });
  assert.is(api.body.error.code, 'TOKEN_REVOKED');
});

test('refresh tokens last 30 days; a session never outlives 90 days', async () => {
  const { verifier, challenge } = pkce();
  let pair = (
    await token({ grant_type: 'authorization_code', code: await codeFor(challenge), redirect_uri: REDIRECT, client_id: 'svc-cli', code_verifier: verifier })
  ).body;
  for (let i = 0; i < 3; i++) {
    await svc.advance(29 * 86400);
    const next = await token({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: 'svc-cli' });
    assert.is(next.status, 200, `refresh ${i}`);
    pair = next.body;
  }
  // 87 days in: the last pair may not reach past day 90.
  await svc.advance(4 * 86400);
  const late = await token({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: 'svc-cli' });
  assert.is(late.body.error, 'invalid_grant');

  const fresh = pkce();
  const unused = (
    await token({
      grant_type: 'authorization_code',
      code: await codeFor(fresh.challenge),
      redirect_uri: REDIRECT,
      client_id: 'svc-cli',
      code_verifier: fresh.verifier,
    })
  ).body;
  await svc.advance(31 * 86400);
  assert.is((await token({ grant_type: 'refresh_token', refresh_token: unused.refresh_token, client_id: 'svc-cli' })).body.error, 'invalid_grant');
});

test('a refresh token only works for its own client; unknown grant types are refused', async () => {
  const { verifier, challenge } = pkce();
  const pair = (
    await token({ grant_type: 'authorization_code', code: await codeFor(challenge), redirect_uri: REDIRECT, client_id: 'svc-cli', code_verifier: verifier })
  ).body;
  assert.is((await token({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: 'svc-mcp' })).body.error, 'invalid_grant');
  assert.is((await token({ grant_type: 'client_credentials', client_id: 'svc-cli' })).body.error, 'unsupported_grant_type');
});

test('revocation endpoint ends the session', async () => {
  const { verifier, challenge } = pkce();
  const pair = (
    await token({ grant_type: 'authorization_code', code: await codeFor(challenge), redirect_uri: REDIRECT, client_id: 'svc-cli', code_verifier: verifier })
  ).body;
  const res = await fetch(`${svc.url}/auth/revoke`, { method: 'POST', body: new URLSearchParams({ token: pair.refresh_token, client_id: 'svc-cli' }) });
  assert.is(res.status, 200);
  assert.is((await token({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: 'svc-cli' })).body.error, 'invalid_grant');
  assert.is((await apiClient(svc.url)('GET', '/v1/store', { token: pair.access_token, storeId: svc.storeId })).body.error.code, 'TOKEN_REVOKED');
});

test('a third-party client gets only the scopes it asked for; an MCP login is an agent', async () => {
  const { verifier, challenge } = pkce();
  const code = await codeFor(challenge, { client_id: 'svc-mcp', scope: 'store:r stores:read' });
  const pair = (await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'svc-mcp', code_verifier: verifier })).body;
  assert.is(pair.scope, 'store:r stores:read');
  const me = await apiClient(svc.url)('GET', '/auth/v1/me', { token: pair.access_token });
  assert.equal(me.data.token.scopes.sort(), ['store:r', 'stores:read']);
  assert.is(me.data.token.agent, true);
  assert.is(me.data.token.storePlatform, false);
  assert.is((await apiClient(svc.url)('GET', '/v1/store', { token: pair.access_token, storeId: svc.storeId })).status, 200);
  const write = await apiClient(svc.url)('PATCH', '/v1/store', { token: pair.access_token, storeId: svc.storeId, body: { name: 'x' } });
  assert.is(write.body.error.code, 'INSUFFICIENT_ROLE');
});

test.run();
