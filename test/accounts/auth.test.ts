import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SignJWT, generateKeyPair } from 'jose';
import { signToken } from '../../src/modules/accounts/tokens.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const anon = () => apiClient(svc.url);
const storeGet = (token: string) => anon()('GET', '/v1/store', { token, storeId: svc.storeId });

test('no token, garbage and malformed Authorization are 401 UNAUTHORIZED', async () => {
  for (const headers of [{}, { authorization: 'Bearer' }, { authorization: 'Basic abc' }, { authorization: 'Bearer not.a.jwt' }]) {
    const res = await anon()('GET', '/v1/store', { storeId: svc.storeId, headers });
    assert.is(res.status, 401, JSON.stringify(headers));
    assert.is(res.body.error.code, 'UNAUTHORIZED');
  }
});

test('a token signed by another key or issued for another address is 401 UNAUTHORIZED', async () => {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  const forged = await new SignJWT({ typ: 'access', jti: 'tok_x' })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject('usr_x')
    .setIssuer(svc.services.urls.issuer)
    .setAudience('svc-api')
    .setExpirationTime('1h')
    .sign(privateKey);
  assert.is((await storeGet(forged)).body.error.code, 'UNAUTHORIZED');
  const oldAddress = await signToken(
    { ...svc.services, urls: { ...svc.services.urls, issuer: 'https://old.example.com/auth' } },
    { sub: 'usr_x', jti: 'tok_x', typ: 'access' },
    svc.services.clock.now() + 3600_000,
  );
  assert.is((await storeGet(oldAddress)).body.error.code, 'UNAUTHORIZED');
});

test('retired token kinds are 401 TOKEN_TYPE_RETIRED', async () => {
  const pat = await storeGet('svc_pat_0123456789abcdef');
  assert.is(pat.status, 401);
  assert.is(pat.body.error.code, 'TOKEN_TYPE_RETIRED');
  for (const typ of ['store', 'client_credentials', 'token_exchange']) {
    const old = await signToken(svc.services, { sub: 'usr_x', jti: 'x', typ }, svc.services.clock.now() + 3600_000);
    const res = await storeGet(old);
    assert.is(res.status, 401, typ);
    assert.is(res.body.error.code, 'TOKEN_TYPE_RETIRED', typ);
  }
});

test('retired paths are 410 TOKEN_TYPE_RETIRED, with or without a token', async () => {
  for (const [method, path] of [
    ['POST', '/oauth2/token'],
    ['GET', '/oauth2/authorize'],
    ['GET', '/v1/store/api-tokens'],
    ['POST', '/v1/store/api-clients'],
    ['DELETE', '/v1/store/api-tokens/123'],
  ]) {
    const res = await svc.api(method, path);
    assert.is(res.status, 410, path);
    assert.is(res.body.error.code, 'TOKEN_TYPE_RETIRED', path);
  }
});

test('the removed product image upload is 410 ENDPOINT_RETIRED pointing at /v1/uploads', async () => {
  const res = await svc.api('POST', '/v1/product-images');
  assert.is(res.status, 410);
  assert.is(res.body.error.code, 'ENDPOINT_RETIRED');
  assert.is(res.body.error.details.successor, '/v1/uploads');
});

test('login access tokens last 15 minutes', async () => {
  const token = await login(svc);
  assert.is((await storeGet(token)).status, 200);
  await svc.advance(14 * 60);
  assert.is((await storeGet(token)).status, 200);
  await svc.advance(61);
  const res = await storeGet(token);
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'UNAUTHORIZED');
});

test('wrong password and unknown e-mail look alike', async () => {
  const a = await anon()('POST', '/auth/v1/login', { body: { email: 'dev@svc.local', password: 'wrong-password' } });
  const b = await anon()('POST', '/auth/v1/login', { body: { email: 'nobody@example.com', password: 'wrong-password' } });
  assert.is(a.status, 401);
  assert.is(a.body.error.code, 'INVALID_LOGIN');
  assert.is(b.body.error.code, 'INVALID_LOGIN');
  assert.is(a.body.error.message, b.body.error.message);
});

test('signup validates and refuses a taken e-mail', async () => {
  const bad = await anon()('POST', '/auth/v1/signup', { body: { email: 'not-an-email', password: 'short', name: '' } });
  assert.is(bad.status, 400);
  assert.equal(bad.body.error.fieldErrors.map((f: any) => f.field).sort(), ['email', 'name', 'password']);
  const taken = await anon()('POST', '/auth/v1/signup', { body: { email: 'DEV@svc.local', password: 'password-1234', name: 'x' } });
  assert.is(taken.status, 409);
  assert.is(taken.body.error.code, 'EMAIL_TAKEN');
});

test('access token: value shown once, default 90 days, scopes and store scope kept', async () => {
  const loginToken = await login(svc);
  const res = await anon()('POST', '/auth/v1/access-tokens', {
    token: loginToken,
    body: { name: 'ci', scopes: ['store:r'], storeScope: { storeIds: [svc.storeId] } },
  });
  assert.is(res.status, 201);
  assert.type(res.data.token, 'string');
  const days = (Date.parse(res.data.expiresAt) - Date.parse(res.data.createdAt)) / 86400_000;
  assert.is(days, 90);
  assert.equal(res.data.storeScope, { storeIds: [svc.storeId] });
  assert.is(res.data.agent, false);
  const list = await anon()('GET', '/auth/v1/access-tokens', { token: loginToken });
  const listed = list.data.contents.find((t: any) => t.tokenId === res.data.tokenId);
  assert.ok(listed);
  assert.is(listed.token, undefined);
  assert.is(listed.tokenSuffix, res.data.token.slice(-8));
  assert.is((await storeGet(res.data.token)).status, 200);
});

test('access token lifetime: at most 365 days; expired after its days', async () => {
  const loginToken = await login(svc);
  const tooLong = await anon()('POST', '/auth/v1/access-tokens', {
    token: loginToken,
    body: { name: 'x', scopes: ['store:r'], storeScope: { all: true }, expiresInDays: 366 },
  });
  assert.is(tooLong.status, 400);
  assert.is(tooLong.body.error.fieldErrors[0].field, 'expiresInDays');
  const token = await createAccessToken(svc, loginToken, { scopes: ['store:r'], expiresInDays: 1 });
  assert.is((await storeGet(token)).status, 200);
  await svc.advance(86400 + 1);
  assert.is((await storeGet(token)).body.error.code, 'UNAUTHORIZED');
});

test('unknown scopes are refused by name', async () => {
  const res = await anon()('POST', '/auth/v1/access-tokens', {
    token: await login(svc),
    body: { name: 'x', scopes: ['store:r', 'everything:rw'], storeScope: { all: true } },
  });
  assert.is(res.status, 400);
  assert.equal(
    res.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
    [['scopes.1', 'UNKNOWN_SCOPE']],
  );
});

test('creating an access token needs a login at most 10 minutes old', async () => {
  const loginToken = await login(svc);
  await svc.advance(10 * 60 + 5);
  const stale = await anon()('POST', '/auth/v1/access-tokens', { token: loginToken, body: { name: 'x', scopes: ['store:r'], storeScope: { all: true } } });
  assert.is(stale.status, 403);
  assert.is(stale.body.error.code, 'LOGIN_TOO_OLD');
});

test('access tokens cannot create access tokens (store-platform login only)', async () => {
  const token = await createAccessToken(svc, await login(svc), { scopes: ['store:rw'] });
  const res = await anon()('POST', '/auth/v1/access-tokens', { token, body: { name: 'x', scopes: ['store:r'], storeScope: { all: true } } });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'INSUFFICIENT_ROLE');
});

test('at most 50 live access tokens per user; revoked ones do not count', async () => {
  const seller = await newSellerWithStore(svc, 'limit');
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    const res = await anon()('POST', '/auth/v1/access-tokens', {
      token: seller.token,
      body: { name: `t${i}`, scopes: ['store:r'], storeScope: { all: true } },
    });
    assert.is(res.status, 201);
    ids.push(res.data.tokenId);
  }
  const over = await anon()('POST', '/auth/v1/access-tokens', {
    token: seller.token,
    body: { name: 'one-too-many', scopes: ['store:r'], storeScope: { all: true } },
  });
  assert.is(over.status, 409);
  assert.is(over.body.error.code, 'TOKEN_LIMIT_EXCEEDED');
  assert.is((await anon()('DELETE', `/auth/v1/access-tokens/${ids[0]}`, { token: seller.token })).status, 200);
  const again = await anon()('POST', '/auth/v1/access-tokens', {
    token: seller.token,
    body: { name: 'fits-again', scopes: ['store:r'], storeScope: { all: true } },
  });
  assert.is(again.status, 201);
});

test('revocation takes effect at once: 401 TOKEN_REVOKED', async () => {
  const loginToken = await login(svc);
  const create = await anon()('POST', '/auth/v1/access-tokens', { token: loginToken, body: { name: 'x', scopes: ['store:r'], storeScope: { all: true } } });
  assert.is((await storeGet(create.data.token)).status, 200);
  const revoke = await anon()('DELETE', `/auth/v1/access-tokens/${create.data.tokenId}`, { token: loginToken });
  assert.is(revoke.data.status, 'REVOKED');
  const res = await storeGet(create.data.token);
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'TOKEN_REVOKED');
});

test("one user cannot revoke another user's token", async () => {
  const other = await newSellerWithStore(svc, 'other');
  const mine = await anon()('POST', '/auth/v1/access-tokens', { token: await login(svc), body: { name: 'x', scopes: ['store:r'], storeScope: { all: true } } });
  const res = await anon()('DELETE', `/auth/v1/access-tokens/${mine.data.tokenId}`, { token: other.token });
  assert.is(res.status, 404);
  assert.is((await storeGet(mine.data.token)).status, 200);
});

test('password reset revokes every login and access token of the account', async () => {
  const seller = await newSellerWithStore(svc, 'reset');
  const access = await createAccessToken(svc, seller.token, { scopes: ['store:r'] });
  const storeOf = (token: string) => anon()('GET', '/v1/store', { token, storeId: seller.storeId });
  assert.is((await storeOf(access)).status, 200);
  assert.is((await storeOf(seller.token)).status, 200);

  const requested = await anon()('POST', '/auth/v1/password-reset', { body: { email: seller.email } });
  assert.is(requested.status, 202);
  assert.is((await anon()('POST', '/auth/v1/password-reset', { body: { email: 'nobody@example.com' } })).status, 202);
  const mail = await svc.api('GET', '/_dev/v1/mail');
  const body = mail.data.contents.find((m: any) => m.to === seller.email).body as string;
  const resetToken = /token: (\S+)/.exec(body)![1];

  const wrong = await anon()('POST', '/auth/v1/password-reset/confirm', { body: { token: 'nope', newPassword: 'new-password-1' } });
  assert.is(wrong.body.error.code, 'RESET_TOKEN_INVALID');
  await svc.advance(1);
  const done = await anon()('POST', '/auth/v1/password-reset/confirm', { body: { token: resetToken, newPassword: 'new-password-1' } });
  assert.is(done.status, 200);
  for (const token of [access, seller.token]) {
    const res = await storeOf(token);
    assert.is(res.status, 401);
    assert.is(res.body.error.code, 'TOKEN_REVOKED');
  }
  const reused = await anon()('POST', '/auth/v1/password-reset/confirm', { body: { token: resetToken, newPassword: 'another-pass-2' } });
  assert.is(reused.body.error.code, 'RESET_TOKEN_INVALID');
  assert.is((await anon()('POST', '/auth/v1/login', { body: { email: seller.email, password: seller.password } })).status, 401);
  await svc.advance(1);
  const fresh = await login(svc, seller.email, 'new-password-1');
  assert.is((await storeOf(fresh)).status, 200);
});

test('logout ends the session: its access token is revoked', async () => {
  const token = await login(svc);
  assert.is((await anon()('POST', '/auth/v1/logout', { token })).status, 200);
  assert.is((await storeGet(token)).body.error.code, 'TOKEN_REVOKED');
});

test('agent flag and whoami', async () => {
  const token = await createAccessToken(svc, await login(svc), { scopes: ['store:rw'], agent: true });
  const me = await anon()('GET', '/auth/v1/me', { token });
  assert.is(me.data.email, 'dev@svc.local');
  assert.is(me.data.token.kind, 'access');
  assert.is(me.data.token.agent, true);
});

test.run();
