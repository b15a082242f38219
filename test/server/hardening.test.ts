/**
 * Findings of the outside probes (issue 10), each replayed against the real service: bodies that are not
 * UTF-8, not JSON or too big (also chunked), DNS rebinding of `svc dev`, cross-site writes to pages and dev
 * helpers, security headers of HTML pages, sign-in and guest look-up limits raced by concurrent guesses,
 * and a token that survives a restart on another port.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { buy, buyerApi, createProduct, directSheet, GUEST, ok, startGuestPayment } from '../helpers/checkout.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

/** A raw HTTP request (fetch cannot set `Host` or stream a chunked body of our choosing). */
function raw(options: { method?: string; path: string; headers?: Record<string, string>; chunks?: Buffer[] }) {
  const { port } = new URL(svc.url);
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text.startsWith('{') ? JSON.parse(text) : text }));
    });
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

const storeName = async () => ok(await svc.api('GET', '/v1/store')).name;
const auth = () => ({ authorization: `Bearer ${svc.ownerToken}`, 'x-store-id': svc.storeId });

test('a JSON body that is not UTF-8 is refused, never stored with U+FFFD', async () => {
  const before = await storeName();
  const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const res = await raw({ method: 'PATCH', path: '/v1/store', headers: { ...auth(), 'content-type': 'application/json' }, chunks: [body] });
  assert.is(res.status, 400);
  assert.equal([res.body.error.code, res.body.error.fieldErrors[0].code], ['VALIDATION_FAILED', 'INVALID_UTF8']);
  assert.is(await storeName(), before);
});

test('a body sent as text/plain (a simple cross-site request) is 415, not parsed as JSON', async () => {
  const before = await storeName();
  const res = await svc.api('PATCH', '/v1/store', { rawBody: '{"name":"via text/plain"}', headers: { 'content-type': 'text/plain' } });
  assert.equal([res.status, res.body.error.code], [415, 'UNSUPPORTED_MEDIA_TYPE']);
  assert.is(await storeName(), before);
});

test('a chunked body is counted while it streams and cut off at the limit (413)', async () => {
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  const res = await raw({
    method: 'PATCH',
    path: '/v1/store',
    headers: { ...auth(), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    chunks: [Buffer.from('{"name":"x"'), chunk, chunk, chunk, chunk, chunk, Buffer.from('}')],
  });
  assert.equal([res.status, res.body.error?.code], [413, 'PAYLOAD_TOO_LARGE']);
});

test('JSON nested deeper than 64 levels is 400 on every body', async () => {
  const deep = `${'['.repeat(200)}${']'.repeat(200)}`;
  const res = await svc.api('PATCH', '/v1/store', { rawBody: `{"name":${deep}}`, headers: { 'content-type': 'application/json' } });
  assert.equal([res.status, res.body.error.fieldErrors[0].code], [400, 'TOO_DEEP']);
  const dev = await svc.api('POST', '/_dev/v1/jobs/run', { rawBody: deep, headers: { 'content-type': 'application/json' } });
  assert.is(dev.status, 400);
});

test('svc dev serves only its own names: a rebinding domain gets 421 and never sees the mail', async () => {
  const { port } = new URL(svc.url);
  const rebound = await raw({ path: '/_dev/v1/mail', headers: { host: `attacker.example:${port}` } });
  assert.equal([rebound.status, rebound.body.error.code], [421, 'MISDIRECTED_REQUEST']);
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `192.168.0.10:${port}`]) {
    assert.is((await raw({ path: '/_dev/v1/clock', headers: { host } })).status, 200, host);
  }
  // Names under .localhost are hosted sites' own origins: the sites' pages answer there, never the dev helpers.
  const site = await raw({ path: '/_dev/v1/mail', headers: { host: `shop.localhost:${port}` } });
  assert.equal([site.status, site.headers['content-type']], [404, 'text/html; charset=utf-8'], "the sites' not-found page, not the mail");
});

test('state-changing requests from another origin to dev helpers and pages are refused', async () => {
  const advance = (headers: Record<string, string>) => svc.api('POST', '/_dev/v1/jobs/run', { body: {}, headers });
  assert.equal((await advance({ origin: 'https://attacker.example' })).status, 403);
  assert.equal((await advance({ origin: 'null' })).status, 403);
  assert.equal((await advance({ 'sec-fetch-site': 'cross-site' })).status, 403);
  assert.equal((await advance({ origin: svc.url })).status, 200);
  assert.equal((await advance({})).status, 200, 'scripts and CLIs send no Origin');
  const consent = await fetch(`${svc.url}/auth/authorize`, {
    method: 'POST',
    body: new URLSearchParams({ decision: 'allow' }),
    headers: { origin: 'https://attacker.example' },
  });
  assert.is(consent.status, 403);
});

test('every HTML page carries the security headers (no framing, no referrer, no sniffing)', async () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const consent = await fetch(
    `${svc.url}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'svc-cli', redirect_uri: 'http://127.0.0.1:1/callback', code_challenge: challenge, code_challenge_method: 'S256' })}`,
  );
  const p = await createProduct(svc.api, { name: '헤더 상품' });
  const buyer = buyerApi(svc, svc.storeId);
  const start = ok(await startGuestPayment(buyer, await directSheet(buyer, { productId: p.productId, optionId: p.optionId })), 201);
  const payPage = await fetch(start.payUrl);
  const errorsPage = await fetch(`${svc.url}/docs/errors`);
  for (const [name, res] of [
    ['consent', consent],
    ['pay page', payPage],
    ['error codes', errorsPage],
  ] as const) {
    assert.is(res.headers.get('x-frame-options'), 'DENY', name);
    assert.match(res.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'", name);
    assert.is(res.headers.get('referrer-policy'), 'no-referrer', name);
    assert.is(res.headers.get('x-content-type-options'), 'nosniff', name);
  }
});

test('sign-in: 10 failures per account from one address in 15 minutes, then 429 with Retry-After there — the right password too', async () => {
  const seller = await newSellerWithStore(svc, 'throttle');
  const signIn = (password: string) => apiClient(svc.url)('POST', '/auth/v1/login', { body: { email: seller.email, password } });
  for (let i = 0; i < 10; i++) assert.is((await signIn('wrong-password')).status, 401);
  const locked = await signIn(seller.password);
  assert.equal([locked.status, locked.body.error.code], [429, 'LOGIN_THROTTLED']);
  assert.ok(Number(locked.headers.get('retry-after')) > 0 && Number(locked.headers.get('retry-after')) <= 900);
  await svc.advance(15 * 60);
  assert.is((await signIn(seller.password)).status, 200);
});

test('concurrent guesses cannot race the limit: of 40 at once at most 10 are evaluated', async () => {
  const seller = await newSellerWithStore(svc, 'race');
  const results = await Promise.all(
    Array.from({ length: 40 }, () => apiClient(svc.url)('POST', '/auth/v1/login', { body: { email: seller.email, password: 'wrong-password' } })),
  );
  const evaluated = results.filter((r) => r.status === 401).length;
  assert.ok(evaluated <= 10, `${evaluated} guesses were evaluated`);
  assert.is(results.filter((r) => r.status === 429).length, 40 - evaluated);
});

test('the consent page is throttled alike', async () => {
  const seller = await newSellerWithStore(svc, 'consent');
  const verifier = randomBytes(32).toString('base64url');
  const form = (password: string) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: 'svc-cli',
      redirect_uri: 'http://127.0.0.1:1/callback',
      code_challenge_method: 'S256',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      email: seller.email,
      password,
      decision: 'allow',
    });
  for (let i = 0; i < 10; i++) assert.is((await fetch(`${svc.url}/auth/authorize`, { method: 'POST', body: form('nope-nope') })).status, 200);
  const locked = await fetch(`${svc.url}/auth/authorize`, { method: 'POST', body: form(seller.password), redirect: 'manual' });
  assert.is(locked.status, 429);
  assert.ok(locked.headers.get('retry-after'));
});

test('password-reset mails per e-mail are limited (5 an hour), known or unknown e-mail alike', async () => {
  const seller = await newSellerWithStore(svc, 'reset');
  const ask = (email: string) => apiClient(svc.url)('POST', '/auth/v1/password-reset', { body: { email } });
  for (let i = 0; i < 5; i++) assert.is((await ask(seller.email)).status, 202);
  const sixth = await ask(seller.email);
  assert.equal([sixth.status, sixth.body.error.code], [429, 'PASSWORD_RESET_THROTTLED']);
  const mails = ok(await svc.api('GET', '/_dev/v1/mail')).contents.filter((m: any) => m.to === seller.email);
  assert.is(mails.length, 5);
  for (let i = 0; i < 5; i++) assert.is((await ask('nobody@example.com')).status, 202);
  assert.is((await ask('nobody@example.com')).status, 429);
});

test('guest order look-up: 40 concurrent guesses, at most 5 evaluated (the attempt is reserved before hashing)', async () => {
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const p = await createProduct(owner, { name: '조회 경합 상품' });
  const { done } = await buy(svc, svc.storeId, { productId: p.productId, optionId: p.optionId });
  const orderNo = String(ok(await owner('GET', `/v1/orders/${done.orderId}`)).orderNo);
  const buyer = buyerApi(svc, svc.storeId);
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) => buyer('POST', '/storefront/v1/guest/orders/lookup', { body: { orderNo, orderPassword: `guess-${i}` } })),
  );
  const evaluated = results.filter((r) => r.status === 404).length;
  assert.ok(evaluated <= 5, `${evaluated} guesses were evaluated`);
  assert.is(results.filter((r) => r.status === 429 && r.body.error.code === 'GUEST_LOOKUP_LOCKED').length, 40 - evaluated);
  // Locked for the right password too, until the window ends.
  assert.is((await buyer('POST', '/storefront/v1/guest/orders/lookup', { body: { orderNo, orderPassword: GUEST.orderPassword } })).status, 429);
  await svc.advance(30 * 60);
  assert.is((await buyer('POST', '/storefront/v1/guest/orders/lookup', { body: { orderNo, orderPassword: GUEST.orderPassword } })).status, 200);
});

test('a token keeps working after a restart on another port: the issuer is the recorded identity', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-identity-'));
  try {
    const first = await startTestService({ dataDir });
    const token = await createAccessToken(first, await login(first), { scopes: ['store:r'] });
    const issuer = (await (await fetch(`${first.url}/auth/.well-known/oauth-authorization-server`)).json()).issuer;
    await first.close();
    const second = await startTestService({ dataDir, seed: false });
    try {
      assert.is.not(second.url, first.url, 'port 0 picked another port');
      const store = await apiClient(second.url)('GET', '/v1/store', { token, storeId: first.storeId });
      assert.is(store.status, 200);
      assert.is((await (await fetch(`${second.url}/auth/.well-known/oauth-authorization-server`)).json()).issuer, issuer);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
