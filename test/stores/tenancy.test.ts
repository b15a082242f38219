import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { addMember } from '../helpers/invitations.js';

let svc: TestService;
let alice: Awaited<ReturnType<typeof newSellerWithStore>>;
let bob: Awaited<ReturnType<typeof newSellerWithStore>>;

test.before(async () => {
  svc = await startTestService();
  alice = await newSellerWithStore(svc, 'alice');
  bob = await newSellerWithStore(svc, 'bob');
});
test.after(async () => {
  await svc.close();
});

const call = (method: string, path: string, token: string, storeId: string | null, body?: unknown) =>
  apiClient(svc.url)(method, path, { token, storeId, body });

test('matrix: every token kind of each account against each store', async () => {
  const aliceAll = await createAccessToken(svc, alice.token, { scopes: ['store:rw', 'stores:read'], storeScope: { all: true } });
  const aliceOnlyHers = await createAccessToken(svc, alice.token, { scopes: ['store:rw'], storeScope: { storeIds: [alice.storeId] } });
  const bobAll = await createAccessToken(svc, bob.token, { scopes: ['store:rw'], storeScope: { all: true } });
  const tokens = { aliceLogin: alice.token, aliceAll, aliceOnlyHers, bobLogin: bob.token, bobAll };
  const expected: Record<keyof typeof tokens, Record<'alice' | 'bob', number | string>> = {
    aliceLogin: { alice: 200, bob: 'NOT_A_MEMBER' },
    aliceAll: { alice: 200, bob: 'NOT_A_MEMBER' },
    aliceOnlyHers: { alice: 200, bob: 'STORE_NOT_GRANTED' },
    bobLogin: { alice: 'NOT_A_MEMBER', bob: 200 },
    bobAll: { alice: 'NOT_A_MEMBER', bob: 200 },
  };
  const stores = { alice: alice.storeId, bob: bob.storeId };
  for (const [tokenName, token] of Object.entries(tokens) as [keyof typeof tokens, string][]) {
    for (const [storeName, storeId] of Object.entries(stores) as ['alice' | 'bob', string][]) {
      const want = expected[tokenName][storeName];
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { name: `${tokenName} was here` }],
      ] as const) {
        const res = await call(method, '/v1/store', token, storeId, body);
        const label = `${tokenName} ${method} ${storeName}`;
        if (want === 200) {
          assert.is(res.status, 200, label);
          assert.is(res.data.storeId, storeId, label);
        } else {
          assert.is(res.status, 403, label);
          assert.is(res.body.error.code, want, label);
        }
      }
    }
  }
  // Nothing the outsiders sent reached the other store.
  assert.ok(!(await call('GET', '/v1/store', alice.token, alice.storeId)).data.name.startsWith('bob'));
  assert.ok(!(await call('GET', '/v1/store', bob.token, bob.storeId)).data.name.startsWith('alice'));
});

test('a store request without X-Store-Id is 400 STORE_ID_REQUIRED', async () => {
  const res = await call('GET', '/v1/store', alice.token, null);
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'STORE_ID_REQUIRED');
});

test('an unknown store id is NOT_A_MEMBER, never a hint that it exists', async () => {
  const res = await call('GET', '/v1/store', alice.token, 'st_doesnotexist');
  assert.is(res.body.error.code, 'NOT_A_MEMBER');
});

test('/v1/me/stores lists the stores of the token scope; access tokens need stores:read', async () => {
  const viaLogin = await call('GET', '/v1/me/stores', alice.token, null);
  assert.equal(
    viaLogin.data.contents.map((s: any) => s.storeId),
    [alice.storeId],
  );
  const without = await createAccessToken(svc, alice.token, { scopes: ['store:r'] });
  const denied = await call('GET', '/v1/me/stores', without, null);
  assert.is(denied.status, 403);
  assert.is(denied.body.error.code, 'INSUFFICIENT_SCOPE');
  const withScope = await createAccessToken(svc, alice.token, { scopes: ['stores:read'] });
  assert.is((await call('GET', '/v1/me/stores', withScope, null)).status, 200);
});

test('effective permission is the narrower of role and token scopes', async () => {
  const readOnly = await createAccessToken(svc, alice.token, { scopes: ['store:r'] });
  assert.is((await call('GET', '/v1/store', readOnly, alice.storeId)).status, 200);
  const write = await call('PATCH', '/v1/store', readOnly, alice.storeId, { name: 'nope' });
  assert.is(write.status, 403);
  assert.is(write.body.error.code, 'INSUFFICIENT_ROLE');
  const noStoreScope = await createAccessToken(svc, alice.token, { scopes: ['product:rw'] });
  assert.is((await call('GET', '/v1/store', noStoreScope, alice.storeId)).body.error.code, 'INSUFFICIENT_ROLE');
  // audit:r is OWNER/ADMIN only: an access token with the scope still follows the person's role.
  const auditor = await createAccessToken(svc, alice.token, { scopes: ['audit:r'] });
  assert.is((await call('GET', '/v1/audit-logs', auditor, alice.storeId)).status, 200);
});

test('roles: a STAFF member cannot read store settings or audit logs; an ADMIN can', async () => {
  const staff = await newSellerWithStore(svc, 'staff');
  const admin = await newSellerWithStore(svc, 'admin');
  await addMember(svc, alice, staff, 'STAFF');
  await addMember(svc, alice, admin, 'ADMIN');
  const staffRead = await call('GET', '/v1/store', staff.token, alice.storeId);
  assert.is(staffRead.status, 403);
  assert.is(staffRead.body.error.code, 'INSUFFICIENT_ROLE');
  assert.is((await call('GET', '/v1/audit-logs', staff.token, alice.storeId)).body.error.code, 'INSUFFICIENT_ROLE');
  assert.is((await call('GET', '/v1/store', admin.token, alice.storeId)).status, 200);
  assert.is((await call('GET', '/v1/audit-logs', admin.token, alice.storeId)).status, 200);
  // Only the OWNER sees settlement; the subscription (store:r) is open to ADMIN too.
  assert.is((await call('GET', '/v1/store/subscription', admin.token, alice.storeId)).status, 200);
});

test('stores joined later: an all-stores token reaches them, a selected-stores token does not', async () => {
  const carol = await newSellerWithStore(svc, 'carol');
  const carolAll = await createAccessToken(svc, carol.token, { scopes: ['store:r', 'stores:read'], storeScope: { all: true } });
  const carolOwn = await createAccessToken(svc, carol.token, { scopes: ['store:r'], storeScope: { storeIds: [carol.storeId] } });
  assert.is((await call('GET', '/v1/store', carolAll, alice.storeId)).body.error.code, 'NOT_A_MEMBER');
  const added = await addMember(svc, alice, carol, 'ADMIN');
  assert.is((await call('GET', '/v1/store', carolAll, alice.storeId)).status, 200);
  assert.is((await call('GET', '/v1/store', carolOwn, alice.storeId)).body.error.code, 'STORE_NOT_GRANTED');
  assert.ok((await call('GET', '/v1/me/stores', carolAll, null)).data.contents.some((s: any) => s.storeId === alice.storeId));
  assert.ok(!(await call('GET', '/v1/me/stores', carolOwn, null)).data?.contents?.some((s: any) => s.storeId === alice.storeId));

  // Leaving the store changes the token's reach at once.
  const removed = await call('DELETE', `/v1/members/${added.memberId}`, alice.token, alice.storeId);
  assert.is(removed.status, 200);
  assert.is((await call('GET', '/v1/store', carolAll, alice.storeId)).body.error.code, 'NOT_A_MEMBER');
});

test("another store's resource id is 403 TENANT_MISMATCH", async () => {
  const members = await call('GET', '/v1/members', bob.token, bob.storeId);
  const bobMemberId = members.data.contents[0].memberId;
  for (const [method, body] of [
    ['PATCH', { role: 'STAFF' }],
    ['DELETE', undefined],
  ] as const) {
    const res = await call(method, `/v1/members/${bobMemberId}`, alice.token, alice.storeId, body);
    assert.is(res.status, 403, method);
    assert.is(res.body.error.code, 'TENANT_MISMATCH', method);
  }
  const still = await call('GET', '/v1/members', bob.token, bob.storeId);
  assert.is(still.data.contents[0].role, 'OWNER');
  const missing = await call('PATCH', '/v1/members/mem_nope', alice.token, alice.storeId, { role: 'STAFF' });
  assert.is(missing.status, 404);
});

test('INSUFFICIENT_ROLE names what was missing in details: the role, the scope or the kind of caller', async () => {
  const staff = await newSellerWithStore(svc, 'staffer');
  await addMember(svc, alice, staff, 'STAFF');
  const byRole = await call('POST', '/v1/member-invitations', staff.token, alice.storeId, { email: bob.email, role: 'STAFF' });
  assert.is(byRole.body.error.code, 'INSUFFICIENT_ROLE');
  assert.equal(byRole.body.error.details, { requiredRole: ['OWNER', 'ADMIN'], actualRole: 'STAFF' });
  // STAFF's role does not reach store:r, whatever the token holds.
  const byRoleScope = await call('GET', '/v1/store', staff.token, alice.storeId);
  assert.equal(byRoleScope.body.error.details, { requiredScope: 'store:r', actualRole: 'STAFF' });
  // The OWNER's token without the scope: the token is short, not the role.
  const readOnly = await createAccessToken(svc, alice.token, { scopes: ['store:r'] });
  const byTokenScope = await call('PATCH', '/v1/store', readOnly, alice.storeId, { name: 'nope' });
  assert.equal(byTokenScope.body.error.details, { requiredScope: 'store:rw', tokenScopes: ['store:r'] });
  const memberWriter = await createAccessToken(svc, alice.token, { scopes: ['member:rw'] });
  const byCaller = await call('POST', '/v1/member-invitations', memberWriter, alice.storeId, { email: bob.email, role: 'STAFF' });
  assert.is(byCaller.body.error.code, 'INSUFFICIENT_ROLE');
  assert.equal(byCaller.body.error.details, { requiredCaller: ['storePlatform'], actualCaller: 'access' });
});

test('member invitation is store-platform only: access tokens get INSUFFICIENT_ROLE even with member:rw', async () => {
  const dave = await newSellerWithStore(svc, 'dave');
  const token = await createAccessToken(svc, alice.token, { scopes: ['member:rw'] });
  const res = await call('POST', '/v1/member-invitations', token, alice.storeId, { email: dave.email, role: 'STAFF' });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'INSUFFICIENT_ROLE');
  // Reading members is not reserved: the scope is enough.
  assert.is((await call('GET', '/v1/members', token, alice.storeId)).status, 200);
});

test('ADMINs cannot grant or touch OWNER; the last OWNER stays', async () => {
  const erin = await newSellerWithStore(svc, 'erin');
  const frank = await newSellerWithStore(svc, 'frank');
  await addMember(svc, bob, erin, 'ADMIN');
  const grantOwner = await call('POST', '/v1/member-invitations', erin.token, bob.storeId, { email: frank.email, role: 'OWNER' });
  assert.is(grantOwner.body.error.code, 'INSUFFICIENT_ROLE');
  const bobMember = (await call('GET', '/v1/members', bob.token, bob.storeId)).data.contents.find((m: any) => m.role === 'OWNER');
  assert.is((await call('PATCH', `/v1/members/${bobMember.memberId}`, erin.token, bob.storeId, { role: 'STAFF' })).body.error.code, 'INSUFFICIENT_ROLE');
  const demoteSelf = await call('PATCH', `/v1/members/${bobMember.memberId}`, bob.token, bob.storeId, { role: 'ADMIN' });
  assert.is(demoteSelf.status, 409);
  assert.is(demoteSelf.body.error.code, 'LAST_OWNER');
  const dup = await call('POST', '/v1/member-invitations', bob.token, bob.storeId, { email: erin.email, role: 'STAFF' });
  assert.is(dup.body.error.code, 'ALREADY_A_MEMBER');
  // An e-mail without an account yet may be invited: its owner signs up, then accepts.
  const unknown = await call('POST', '/v1/member-invitations', bob.token, bob.storeId, { email: 'ghost@example.com', role: 'STAFF' });
  assert.is(unknown.status, 201);
});

test('a role change changes what existing tokens may do', async () => {
  const gina = await newSellerWithStore(svc, 'gina');
  const added = await addMember(svc, alice, gina, 'ADMIN');
  const token = await createAccessToken(svc, gina.token, { scopes: ['store:rw'] });
  assert.is((await call('GET', '/v1/store', token, alice.storeId)).status, 200);
  await call('PATCH', `/v1/members/${added.memberId}`, alice.token, alice.storeId, { role: 'STAFF' });
  assert.is((await call('GET', '/v1/store', token, alice.storeId)).body.error.code, 'INSUFFICIENT_ROLE');
});

test('creating an access token for a store one is not a member of is refused', async () => {
  const res = await apiClient(svc.url)('POST', '/auth/v1/access-tokens', {
    token: await login(svc, alice.email, alice.password),
    body: { name: 'x', scopes: ['store:r'], storeScope: { storeIds: [bob.storeId] } },
  });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'NOT_A_MEMBER');
});

test.run();
