/**
 * Buyers over HTTP: storefront sign-up (mobile phones only, sign-up coupons through the module hook) and
 * login (throttled), the buyer login settings (store-platform OWNER/ADMIN, never agents), the customer
 * search, and withdrawal — personal fields erased, orders kept, tokens revoked, approval for agents, and
 * APP.CUSTOMER_REDACT reaching a real sandboxed app function.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueInstallationToken } from '../../src/modules/apps/installation-tokens.js';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';
import { buyerApi, connectSandbox, createProduct } from '../helpers/checkout.js';
import { pay, sheetOf, simulate } from '../helpers/members.js';

let svc: TestService;
let api: Api;
let guest: Api;
test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  guest = buyerApi(svc, svc.storeId);
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

let n = 0;
const signUp = (extra: Record<string, unknown> = {}) => {
  const email = `member${n++}-${Date.now().toString(36)}@example.com`;
  return guest('POST', '/storefront/v1/members', { body: { email, password: 'secret-pass-1', name: '김회원', phone: '010-1234-5678', ...extra } });
};

test('sign-up: a mobile phone, a free e-mail; the new member holds the sign-up coupons and can pay with a token', async () => {
  const welcome = ok(
    await api('POST', '/v1/coupons', { body: { name: '가입 환영', issueType: 'SIGNUP', benefit: { method: 'AMOUNT', value: 3000 }, useDays: 14 } }),
    201,
  );
  for (const phone of ['02-123-4567', '0505-123-4567', '070-1234-5678', '010-12']) {
    const res = await signUp({ phone });
    fails(res, 400, 'VALIDATION_FAILED');
    assert.equal(
      res.body.error.fieldErrors.map((f: any) => f.field),
      ['phone'],
      phone,
    );
  }
  fails(await signUp({ password: 'short' }), 400, 'VALIDATION_FAILED');
  const joined = await signUp();
  assert.is(joined.status, 201, JSON.stringify(joined.body));
  assert.equal([joined.data.customer.phone, joined.data.customer.member, joined.data.tokenType, joined.data.expiresIn], ['01012345678', true, 'Bearer', 1800]);
  fails(await signUp({ email: joined.data.customer.email }), 409, 'MEMBER_EMAIL_TAKEN');
  const member = buyerApi(svc, svc.storeId, joined.data.accessToken);
  const mine = ok(await member('GET', '/storefront/v1/me/coupons')).contents;
  assert.equal(
    mine.map((i: any) => [i.couponId, i.source, i.usedAt]),
    [[welcome.couponId, 'SIGNUP', null]],
  );
  const p = await createProduct(api, { name: '가입 선물', salePrice: 20000 });
  const start = ok(await pay(member, await sheetOf(member, [p]), { coupons: [{ code: mine[0].code }] }), 201);
  assert.is(start.amounts.couponDiscountAmount, 3000);
});

test('login: right password answers a token; wrong ones look alike and are throttled per e-mail', async () => {
  const joined = ok(await signUp(), 201);
  const email = joined.customer.email;
  const signIn = (password: string) => guest('POST', '/storefront/v1/members/login', { body: { email, password } });
  const ok1 = ok(await signIn('secret-pass-1'));
  assert.equal([ok1.customer.customerId, ok1.tokenType], [joined.customer.customerId, 'Bearer']);
  fails(await signIn('wrong-pass'), 401, 'INVALID_LOGIN');
  fails(await guest('POST', '/storefront/v1/members/login', { body: { email: 'nobody@example.com', password: 'x' } }), 401, 'INVALID_LOGIN');
  for (let i = 0; i < 9; i++) await signIn('wrong-pass');
  fails(await signIn('secret-pass-1'), 429, 'LOGIN_THROTTLED');
  // Another store knows nothing of this member.
  const other = await newSellerWithStore(svc, 'mem');
  fails(await buyerApi(svc, other.storeId)('POST', '/storefront/v1/members/login', { body: { email, password: 'secret-pass-1' } }), 401, 'INVALID_LOGIN');
});

test('buyer login settings: OWNER/ADMIN store-platform logins only, agents denied; off closes sign-up and login', async () => {
  const owner = await login(svc);
  assert.equal(ok(await api('GET', '/v1/buyer-login-settings')), { emailPassword: true });
  const token = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['customer:rw'] }), storeId: svc.storeId });
  fails(await token('PUT', '/v1/buyer-login-settings', { body: { emailPassword: false } }), 403, 'INSUFFICIENT_ROLE');
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['customer:rw'], agent: true }), storeId: svc.storeId });
  const denied = await agent('PUT', '/v1/buyer-login-settings', { body: { emailPassword: false } });
  assert.ok([403].includes(denied.status), JSON.stringify(denied.body));
  ok(await api('PUT', '/v1/buyer-login-settings', { body: { emailPassword: false } }));
  fails(await signUp(), 403, 'MEMBER_LOGIN_DISABLED');
  fails(await guest('POST', '/storefront/v1/members/login', { body: { email: 'a@example.com', password: 'x' } }), 403, 'MEMBER_LOGIN_DISABLED');
  ok(await api('PUT', '/v1/buyer-login-settings', { body: { emailPassword: true } }));
});

test('search: keyword matches name, e-mail or phone; another store sees none of them', async () => {
  const a = ok(await signUp({ name: '박서준', phone: '010-9876-0001' }), 201).customer;
  const b = ok(await signUp({ name: '이하나', phone: '010-5555-0002' }), 201).customer;
  const ids = async (keyword: string) => ok(await api('GET', '/v1/customers', { query: { keyword, size: 100 } })).contents.map((c: any) => c.customerId);
  assert.equal(await ids('서준'), [a.customerId]);
  assert.equal(await ids(b.email.slice(0, 12)), [b.customerId]);
  assert.equal(await ids('010-5555'), [b.customerId]);
  assert.equal(await ids('%'), []);
  assert.equal(ok(await api('GET', `/v1/customers/${a.customerId}`)).name, '박서준');
  const other = await newSellerWithStore(svc, 'cust');
  assert.equal(ok(await other.api('GET', '/v1/customers', { query: { keyword: '서준' } })).contents, []);
  const peek = await other.api('GET', `/v1/customers/${a.customerId}`);
  assert.ok([403, 404].includes(peek.status));
});

test('withdrawal: fields erased, orders kept, tokens revoked, agents need approval; apps with customer scopes hear APP.CUSTOMER_REDACT', async () => {
  const handle = uniqueHandle('crm');
  const manifest = { handle, name: 'CRM', scopes: ['customer:r'] };
  const code = `var __app = { events: { 'APP.CUSTOMER_REDACT': async (e) => { await storage.set('redacted', e); return true; } } };`;
  await deploy(api, manifest, bundleFor(manifest, code, ['events/APP.CUSTOMER_REDACT']));
  const installation = await installApp(api, handle);
  const asApp = apiClient(svc.url, { token: (await issueInstallationToken(svc.services, installation.installationId)).token, storeId: svc.storeId });

  const joined = ok(await signUp({ name: '탈퇴할 회원' }), 201);
  const member = buyerApi(svc, svc.storeId, joined.accessToken);
  const p = await createProduct(api, { name: '탈퇴 전 주문' });
  const done = ok(await simulate(member, ok(await pay(member, await sheetOf(member, [p]), {}), 201).paymentId, 'APPROVE'));
  const id = joined.customer.customerId;

  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['customer:rw'], agent: true }), storeId: svc.storeId });
  const pending = await agent('POST', `/v1/customers/${id}/withdraw`);
  assert.equal([pending.status, pending.body.meta.code], [202, 'APPROVAL_REQUIRED']);
  const other = await newSellerWithStore(svc, 'wd');
  const intrude = await other.api('POST', `/v1/customers/${id}/withdraw`);
  assert.ok([403, 404].includes(intrude.status));

  const gone = ok(await api('POST', `/v1/customers/${id}/withdraw`));
  assert.equal([gone.email, gone.name, gone.phone, gone.member, typeof gone.withdrawnAt], [null, null, null, false, 'string']);
  fails(await api('POST', `/v1/customers/${id}/withdraw`), 409, 'CUSTOMER_ALREADY_WITHDRAWN');
  fails(await member('GET', '/storefront/v1/me/coupons'), 401, 'TOKEN_REVOKED');
  fails(await guest('POST', '/storefront/v1/members/login', { body: { email: joined.customer.email, password: 'secret-pass-1' } }), 401, 'INVALID_LOGIN');
  assert.is(ok(await api('GET', `/v1/orders/${done.orderId}`)).buyer.customerId, id);

  let redacted: any = null;
  for (let i = 0; i < 100 && !redacted; i++) {
    await api('POST', '/_dev/v1/jobs/run');
    redacted = (await asApp('GET', '/v1/app/storage/redacted')).data?.value ?? null;
    if (!redacted) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal([redacted?.event, redacted?.customerId, typeof redacted?.withdrawnAt], ['APP.CUSTOMER_REDACT', id, 'string']);
});

test.run();
