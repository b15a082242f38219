/**
 * Connected apps (spec 01 §5.1): the OAuth clients an account consented to are listed, and disconnecting one
 * erases its refresh tokens and refuses its login tokens — in this process at once (the principal cache is
 * dropped), elsewhere within the cache's short life.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { authorize, oauthLogin } from '../helpers/oauth.js';
import { createAccessToken, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const configDir = mkdtempSync(join(tmpdir(), 'svc-connections-'));
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const REDIRECT = 'http://127.0.0.1:9/callback';

/** A login of the remote MCP client (a third-party, agent client) asking for `scope`. */
async function mcpLogin(scope: string) {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${svc.url}/auth/authorize`);
  url.search = new URLSearchParams({
    client_id: 'svc-mcp',
    redirect_uri: REDIRECT,
    response_type: 'code',
    state: 'st',
    scope,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const code = new URL(await authorize(svc.url, url.toString(), 'allow')).searchParams.get('code')!;
  const res = await fetch(`${svc.url}/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'svc-mcp', code_verifier: verifier }),
  });
  assert.is(res.status, 200);
  const body = await res.json();
  return { accessToken: body.access_token as string, refreshToken: body.refresh_token as string };
}

const refresh = (refreshToken: string) =>
  fetch(`${svc.url}/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'svc-mcp' }),
  });

test('GET /auth/v1/connections lists third-party clients with their scopes, store scope and last use; first-party logins are not apps', async () => {
  const first = await mcpLogin('product:r');
  await mcpLogin('order:r');
  await oauthLogin(svc.url); // the CLI: the person's own login, not a connected app
  // The token is used: the connection's last use is recorded.
  assert.is((await svc.api('GET', '/v1/products', { token: first.accessToken })).status, 200);

  const list = await svc.api('GET', '/auth/v1/connections', { storeId: null });
  assert.is(list.status, 200, JSON.stringify(list.body));
  assert.equal(
    list.data.contents.map((c: any) => c.clientId),
    ['svc-mcp'],
  );
  const mcp = list.data.contents[0];
  assert.is(mcp.clientName, 'svc 원격 MCP');
  assert.is(mcp.agent, true);
  assert.equal(mcp.scopes, ['order:r', 'product:r']);
  assert.equal(mcp.storeScope, { all: true });
  assert.is(mcp.sessions, 2);
  assert.ok(mcp.connectedAt);
  assert.ok(mcp.lastUsedAt, 'last use is shown');
});

test('DELETE /auth/v1/connections/{clientId} erases refresh tokens and refuses login tokens at once; then 404 CONNECTION_NOT_FOUND', async () => {
  const app = await mcpLogin('product:r');
  // Cached principal: the disconnect must drop it.
  assert.is((await svc.api('GET', '/v1/products', { token: app.accessToken })).status, 200);

  const gone = await svc.api('DELETE', '/auth/v1/connections/svc-mcp', { storeId: null });
  assert.is(gone.status, 200, JSON.stringify(gone.body));
  assert.is(gone.data.clientId, 'svc-mcp');
  assert.ok(gone.data.disconnectedAt);

  const refused = await svc.api('GET', '/v1/products', { token: app.accessToken });
  assert.is(refused.status, 401);
  assert.is(refused.body.error.code, 'TOKEN_REVOKED');
  const refreshed = await refresh(app.refreshToken);
  assert.is(refreshed.status, 400);
  assert.is((await refreshed.json()).error, 'invalid_grant');

  assert.equal((await svc.api('GET', '/auth/v1/connections', { storeId: null })).data.contents, []);
  const again = await svc.api('DELETE', '/auth/v1/connections/svc-mcp', { storeId: null });
  assert.is(again.status, 404);
  assert.is(again.body.error.code, 'CONNECTION_NOT_FOUND');
  // The person's own logins are not a connection to cut.
  assert.is((await svc.api('DELETE', '/auth/v1/connections/svc-cli', { storeId: null })).body.error.code, 'CONNECTION_NOT_FOUND');
  // The owner's own login still works.
  assert.is((await svc.api('GET', '/v1/products')).status, 200);
});

test('connections are managed from the store platform: an access token gets 403', async () => {
  const access = await createAccessToken(svc, svc.ownerToken, { scopes: ['product:r'] });
  const res = await svc.api('GET', '/auth/v1/connections', { storeId: null, token: access });
  assert.is(res.status, 403);
});

test('svc connections list and revoke', async () => {
  const app = await mcpLogin('product:r');
  const env = { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken };
  const listed = await runCli(['connections', 'list', '--json'], env);
  assert.is(listed.exitCode, 0, listed.stderr);
  assert.equal(
    jsonOf(listed).contents.map((c: any) => c.clientId),
    ['svc-mcp'],
  );
  const table = await runCli(['connections', 'list'], env);
  assert.match(table.stdout, /svc-mcp/);

  const revoked = await runCli(['connections', 'revoke', 'svc-mcp', '--json'], env);
  assert.is(revoked.exitCode, 0, revoked.stderr);
  assert.is(jsonOf(revoked).clientId, 'svc-mcp');
  assert.is((await svc.api('GET', '/v1/products', { token: app.accessToken })).status, 401);

  const missing = await runCli(['connections', 'revoke', 'svc-mcp', '--json'], env);
  assert.is(missing.exitCode, 1);
  assert.is(jsonOf(missing).code, 'CONNECTION_NOT_FOUND');
});

test.run();
