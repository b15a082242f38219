import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/server/errors.js';
import { resolveBuyer } from '../../src/modules/customers/service.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { addMember } from '../helpers/invitations.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const delegate = (token: string, body: unknown, storeId = svc.storeId) => apiClient(svc.url)('POST', '/v1/customers/delegations', { token, storeId, body });

test('store-platform login delegates: unknown uid creates the buyer, the same uid maps to the same buyer', async () => {
  const token = await login(svc);
  const first = await delegate(token, { uid: 'member-1', email: 'Kim@Example.com', name: '김구매' });
  assert.is(first.status, 201);
  assert.is(first.data.created, true);
  assert.is(first.data.expiresIn, 1800);
  assert.is(first.data.customer.email, 'kim@example.com');
  const again = await delegate(token, { uid: 'member-1', email: 'other@example.com', name: '다른 이름' });
  assert.is(again.status, 200);
  assert.is(again.data.customer.customerId, first.data.customer.customerId);
  assert.is(again.data.customer.name, '김구매');
  const byEmail = await delegate(token, { email: 'kim@example.com' });
  assert.is(byEmail.data.customer.customerId, first.data.customer.customerId);
  const newByEmail = await delegate(token, { email: 'new@example.com', name: '새 구매자' });
  assert.is(newByEmail.status, 201);
});

test("the delegation's audit record names the buyer it acts on behalf of (metadata.onBehalfOf)", async () => {
  const res = await delegate(await login(svc), { uid: 'member-audit', name: '감사 회원' });
  const record = (await svc.api('GET', '/v1/audit-logs', { query: { action: 'createBuyerDelegation', limit: 1 } })).data.contents[0];
  assert.is(record.requestId, res.headers.get('x-request-id'));
  assert.equal(record.metadata.onBehalfOf, { type: 'CUSTOMER', customerId: res.data.customer.customerId, uid: 'member-audit' });
});

test('either uid or email is required; unknown fields are refused', async () => {
  const token = await login(svc);
  const none = await delegate(token, { name: 'x' });
  assert.is(none.status, 400);
  assert.is(none.body.error.fieldErrors[0].code, 'REQUIRED');
  assert.is((await delegate(token, { uid: 'u', phone: '010' })).body.error.fieldErrors[0].code, 'UNKNOWN_FIELD');
});

test('access tokens need the buyer-delegation flag, member:delegate and customer:rw', async () => {
  const loginToken = await login(svc);
  const good = await createAccessToken(svc, loginToken, { scopes: ['customer:rw', 'member:delegate'], buyerDelegation: true });
  assert.is((await delegate(good, { uid: 'member-2' })).status, 201);

  const noFlag = await createAccessToken(svc, loginToken, { scopes: ['customer:rw', 'member:delegate'] });
  assert.is((await delegate(noFlag, { uid: 'member-3' })).body.error.code, 'DELEGATION_NOT_ALLOWED');

  const noScope = await createAccessToken(svc, loginToken, { scopes: ['customer:rw'], buyerDelegation: true });
  const scopeRes = await delegate(noScope, { uid: 'member-3' });
  assert.is(scopeRes.status, 403);
  assert.is(scopeRes.body.error.code, 'INSUFFICIENT_SCOPE');

  const noCustomer = await createAccessToken(svc, loginToken, { scopes: ['customer:r', 'member:delegate'], buyerDelegation: true });
  assert.is((await delegate(noCustomer, { uid: 'member-3' })).body.error.code, 'INSUFFICIENT_ROLE');
  assert.is((await apiClient(svc.url)('GET', '/v1/customers', { token: noCustomer, storeId: svc.storeId, query: { uid: 'member-3' } })).data.totalElements, 0);
});

test('AI agents may not delegate: 403 DELEGATION_NOT_ALLOWED', async () => {
  const agent = await createAccessToken(svc, await login(svc), { scopes: ['customer:rw', 'member:delegate'], buyerDelegation: true, agent: true });
  const res = await delegate(agent, { uid: 'member-4' });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'DELEGATION_NOT_ALLOWED');
});

test('a dry run agrees with the real call: agents see decision DENIED, disallowed tokens the same 403, nothing is created', async () => {
  const dryRun = { 'x-svc-dry-run': '1' };
  const loginToken = await login(svc);
  const agent = await createAccessToken(svc, loginToken, { scopes: ['customer:rw', 'member:delegate'], buyerDelegation: true, agent: true });
  const byAgent = await apiClient(svc.url)('POST', '/v1/customers/delegations', {
    token: agent,
    storeId: svc.storeId,
    headers: dryRun,
    body: { uid: 'member-dry' },
  });
  assert.equal([byAgent.status, byAgent.body.meta.code, byAgent.data.decision], [200, 'DRY_RUN', 'DENIED']);
  assert.ok(byAgent.data.reason.length > 0);

  const noFlag = await createAccessToken(svc, loginToken, { scopes: ['customer:rw', 'member:delegate'] });
  const refused = await apiClient(svc.url)('POST', '/v1/customers/delegations', {
    token: noFlag,
    storeId: svc.storeId,
    headers: dryRun,
    body: { uid: 'member-dry' },
  });
  assert.equal([refused.status, refused.body.error.code], [403, 'DELEGATION_NOT_ALLOWED']);
  const noScope = await createAccessToken(svc, loginToken, { scopes: ['customer:rw'], buyerDelegation: true });
  const scopeless = await apiClient(svc.url)('POST', '/v1/customers/delegations', {
    token: noScope,
    storeId: svc.storeId,
    headers: dryRun,
    body: { uid: 'member-dry' },
  });
  assert.equal([scopeless.status, scopeless.body.error.code], [403, 'INSUFFICIENT_SCOPE']);

  const allowed = await apiClient(svc.url)('POST', '/v1/customers/delegations', {
    token: loginToken,
    storeId: svc.storeId,
    headers: dryRun,
    body: { uid: 'member-dry' },
  });
  assert.equal([allowed.status, allowed.data.decision, allowed.data.accessToken], [200, 'ALLOW', undefined]);
  assert.is((await svc.api('GET', '/v1/customers', { query: { uid: 'member-dry' } })).data.totalElements, 0);
});

test('a STAFF member (customer:r by role) cannot delegate', async () => {
  const staff = await newSellerWithStore(svc, 'staff');
  await addMember(svc, { token: await login(svc), storeId: svc.storeId }, staff, 'STAFF');
  assert.is((await delegate(staff.token, { uid: 'member-5' })).body.error.code, 'INSUFFICIENT_ROLE');
});

test('buyer tokens: not accepted by the admin API, bound to their store, 30 minutes', async () => {
  const token = await login(svc);
  const res = await delegate(token, { uid: 'member-6' });
  const buyerToken = res.data.accessToken as string;
  const admin = await apiClient(svc.url)('GET', '/v1/store', { token: buyerToken, storeId: svc.storeId });
  assert.is(admin.status, 401);
  assert.is(admin.body.error.code, 'UNAUTHORIZED');

  const customer = await resolveBuyer(svc.services, `Bearer ${buyerToken}`, svc.storeId);
  assert.is(customer?.id, res.data.customer.customerId);
  assert.is(await resolveBuyer(svc.services, null, svc.storeId), null);
  const other = await newSellerWithStore(svc, 'other');
  const expectCode = async (promise: Promise<unknown>, code: string) => {
    try {
      await promise;
      assert.unreachable('should have thrown');
    } catch (error) {
      assert.instance(error, ApiError);
      assert.is((error as ApiError).code, code);
    }
  };
  await expectCode(resolveBuyer(svc.services, `Bearer ${buyerToken}`, other.storeId), 'UNAUTHORIZED');
  await expectCode(resolveBuyer(svc.services, `Bearer ${token}`, svc.storeId), 'UNAUTHORIZED');
  await svc.advance(30 * 60 + 1);
  await expectCode(resolveBuyer(svc.services, `Bearer ${buyerToken}`, svc.storeId), 'UNAUTHORIZED');
});

test("customers are per store: another store's customer id is TENANT_MISMATCH", async () => {
  const other = await newSellerWithStore(svc, 'tenant');
  const theirs = await delegate(other.token, { uid: 'their-member' }, other.storeId);
  const res = await svc.api('GET', `/v1/customers/${theirs.data.customer.customerId}`, { token: await login(svc) });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'TENANT_MISMATCH');
  const mine = await svc.api('GET', '/v1/customers', { token: await login(svc), query: { uid: 'their-member' } });
  assert.is(mine.data.totalElements, 0);
});

test.run();
