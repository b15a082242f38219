/**
 * Open OAuth client registration (RFC 7591) within a budget (outside security run): only https, loopback
 * http and reverse-domain app schemes (RFC 8252) as redirect addresses; capped body, address count and
 * lengths; and a registration rate per client address (429 with Retry-After).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  // Behind a trusted proxy the client's address is the forwarded one: each test registers from its own.
  svc = await startTestService({ trustProxy: true });
});
test.after(async () => {
  await svc.close();
});

const register = (address: string, body: unknown) =>
  fetch(`${svc.url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const refusal = async (res: Response) => [res.status, ((await res.json()) as { error: string }).error];

test('redirect addresses: https, loopback http and reverse-domain app schemes only; everything else is invalid_redirect_uri', async () => {
  for (const uri of [
    'https://app.example/cb',
    'http://127.0.0.1/callback',
    'http://[::1]:8080/cb',
    'http://localhost/cb',
    'com.example.app:/oauth2redirect',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
  ]) {
    const res = await register('198.51.100.1', { client_name: 'App', redirect_uris: [uri] });
    assert.is(res.status, 201, uri);
    assert.equal((await res.json()).redirect_uris, [uri]);
  }
  const refused = [
    'javascript:alert(1)',
    'data:text/html,x',
    'file:///etc/passwd',
    'view-source:https://app.example/cb',
    'chrome://settings',
    'about:blank',
    'blob:https://app.example/0f0f',
    'vbscript:x',
    'myapp:/cb',
    'ms-settings:privacy',
    'http://app.example/cb',
    'http://10.0.0.1/cb',
    'https://a.example/cb#x',
    'https://user@a.example/cb',
  ];
  for (const uri of refused) {
    assert.equal(await refusal(await register('198.51.100.2', { redirect_uris: ['https://ok.example/cb', uri] })), [400, 'invalid_redirect_uri'], uri);
  }
});

test('size budget: body, number and length of redirect addresses, client name', async () => {
  const address = '198.51.100.3';
  const big = JSON.stringify({ client_name: 'Big', redirect_uris: ['https://app.example/cb'], logo_uri: `https://app.example/${'x'.repeat(20_000)}` });
  assert.equal(await refusal(await register(address, big)), [413, 'invalid_client_metadata']);
  const many = Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`);
  assert.equal(await refusal(await register(address, { redirect_uris: many })), [400, 'invalid_redirect_uri']);
  assert.equal(await refusal(await register(address, { redirect_uris: [`https://app.example/${'a'.repeat(1000)}`] })), [400, 'invalid_redirect_uri']);
  assert.equal(await refusal(await register(address, { client_name: 'n'.repeat(101), redirect_uris: ['https://app.example/cb'] })), [
    400,
    'invalid_client_metadata',
  ]);
  assert.equal(await refusal(await register(address, { client_name: 42, redirect_uris: ['https://app.example/cb'] })), [400, 'invalid_client_metadata']);
  const fits = await register(address, {
    client_name: 'n'.repeat(100),
    redirect_uris: Array.from({ length: 10 }, (_, i) => `https://app.example/${i}/${'a'.repeat(970)}`),
  });
  assert.is(fits.status, 201);
});

test('registrations per client address are limited (20 an hour, refused ones too): 429 with Retry-After; other addresses go on', async () => {
  const address = '203.0.113.7';
  const ok = { client_name: 'Many', redirect_uris: ['https://app.example/cb'] };
  for (let i = 0; i < 19; i++) assert.is((await register(address, ok)).status, 201);
  assert.is((await register(address, { redirect_uris: ['chrome://settings'] })).status, 400);
  const limited = await register(address, ok);
  assert.equal(await refusal(limited), [429, 'temporarily_unavailable']);
  const retryAfter = Number(limited.headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 3600, String(retryAfter));
  assert.is((await register('203.0.113.8', ok)).status, 201, 'another address is not limited');
  await svc.advance(60 * 60);
  assert.is((await register(address, ok)).status, 201, 'the next hour opens a new window');
});

test.run();
