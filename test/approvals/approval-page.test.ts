import { makeStoreWentPublic } from '../helpers/storefront.js';
import { eq } from 'drizzle-orm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { approvalConfirmations, approvalRequests } from '../../src/modules/approvals/schema.js';
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';
import { operations } from '../../src/server/modules.js';
import { approvalPage as person, codeOf, confirmationCodeOf } from '../helpers/approvals.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { addMember } from '../helpers/invitations.js';

let svc: TestService;
let owner: string;
let agent: Api;
let agentToken: string;
const admin = { email: `admin-${Date.now()}@example.com`, password: 'password-1234' };

test.before(async () => {
  svc = await startTestService();
  owner = await login(svc);
  agentToken = await createAccessToken(svc, owner, { scopes: ['store:rw'], agent: true });
  agent = apiClient(svc.url, { token: agentToken, storeId: svc.storeId });
  await makeStoreWentPublic(svc, { token: owner, storeId: svc.storeId });
  assert.is((await apiClient(svc.url)('POST', '/auth/v1/signup', { body: { ...admin, name: 'Admin' } })).status, 201);
  await addMember(svc, { token: owner, storeId: svc.storeId }, admin, 'ADMIN');
});
test.after(async () => {
  await svc.close();
});

const hold = async (name: string) => (await agent('PATCH', '/v1/store', { body: { name } })).data as { approvalId: string; approvalUrl: string };

test('approvalUrl is a page: log in to the store platform, see the changes, approve — the request runs once', async () => {
  const { approvalId, approvalUrl } = await hold('Page Approved');
  assert.is(approvalUrl, `${svc.url}/approvals/${approvalId}`);
  const first = await fetch(approvalUrl);
  assert.is(first.status, 200);
  assert.is(first.headers.get('x-frame-options'), 'DENY');
  const loginForm = await first.text();
  assert.match(loginForm, 'name="password"');
  assert.not.match(loginForm, 'updateStore', 'nothing is shown before a login');

  const wrong = await person(approvalUrl, { email: SEED_EMAIL, password: 'wrong-password' });
  assert.equal([wrong.status, codeOf(wrong.html)], [401, 'INVALID_LOGIN']);

  const me = await person(approvalUrl, { email: SEED_EMAIL, password: SEED_PASSWORD });
  assert.is(me.status, 200);
  assert.match(me.cookie!, 'svc_approver=');
  assert.match(me.html, '<dd>상점 설정 변경 (updateStore)</dd>', 'the operation by its Korean name');
  // The change as a person reads it (no raw JSON), times in Korea's.
  assert.match(me.html, /<tr class="change"><td>name<\/td><td>[^<]+<\/td><td>Page Approved<\/td><\/tr>/);
  assert.match(me.html, /<dt>요청 시각<\/dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d \(KST\)<\/dd>/);
  // The logged-in page opens again from the cookie alone.
  assert.match(await (await fetch(approvalUrl, { headers: { cookie: me.cookie! } })).text(), 'data-status="PENDING"');

  const forged = await me.press('approve', 'not-the-token');
  assert.equal([forged.status, codeOf(forged.html)], [403, 'CROSS_ORIGIN_FORBIDDEN']);
  const approved = await me.press('approve');
  assert.is(approved.status, 200);
  assert.match(approved.html, 'data-status="SUCCEEDED"');
  assert.is((await svc.api('GET', '/v1/store', { token: owner })).data.name, 'Page Approved');
  const record = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { action: 'APPROVAL_DECIDED', limit: 1 } })).data.contents[0];
  assert.equal([record.approvalId, record.metadata.via, record.actor.type], [approvalId, 'APPROVAL_PAGE', 'USER']);

  const again = await me.press('reject', /name="formToken" value="([^"]+)"/.exec(me.html)![1]);
  assert.equal([again.status, codeOf(again.html)], [409, 'APPROVAL_NOT_PENDING']);
});

test('"confirm in the AI conversation": the page shows a one-time code for the person\'s choice; only its keyed hash is kept', async () => {
  const { approvalId, approvalUrl } = await hold('Code Shown');
  const codes = () => svc.services.db.select().from(approvalConfirmations).where(eq(approvalConfirmations.approvalId, approvalId)).all();
  const me = await person(approvalUrl, { email: SEED_EMAIL, password: SEED_PASSWORD });
  assert.match(me.html, 'value="confirm-approve"');
  assert.match(me.html, 'value="confirm-reject"');
  const forged = await me.press('confirm-approve', 'not-the-token');
  assert.equal([forged.status, codeOf(forged.html), await codes()], [403, 'CROSS_ORIGIN_FORBIDDEN', []]);

  const shown = await me.press('confirm-approve');
  const code = confirmationCodeOf(shown.html)!;
  assert.is(shown.status, 200);
  assert.match(code, /^[2-9A-HJ-NP-Z]{8}$/);
  assert.match(shown.html, 'data-decision="APPROVE"');
  const userId = (await svc.api('GET', '/auth/v1/me', { token: owner })).data.userId;
  const [row] = await codes();
  assert.equal([row.userId, row.decision, row.storeId, row.expiresAt - row.createdAt], [userId, 'APPROVE', svc.storeId, 120_000]);
  assert.not.match(row.codeHash, code, 'the code itself is not stored');
  // Taking a code decides nothing; a new one replaces the person's earlier code.
  assert.is((await svc.api('GET', `/v1/approval-requests/${approvalId}`, { token: owner })).data.status, 'PENDING');
  const again = confirmationCodeOf((await me.press('confirm-reject')).html);
  assert.ok(again && again !== code);
  assert.equal(
    (await codes()).map((c) => c.decision),
    ['REJECT'],
  );
  // Lapsed codes go (the job, 2 minutes after their own 2 minutes).
  await svc.advance(2 * 120 + 1);
  assert.equal(await codes(), []);

  // Once decided, no code is offered, and none is given.
  await me.press('approve');
  const decided = await (await fetch(approvalUrl, { headers: { cookie: me.cookie! } })).text();
  assert.not.match(decided, 'confirm-approve');
  const late = await me.press('confirm-approve');
  assert.equal([late.status, codeOf(late.html), confirmationCodeOf(late.html)], [409, 'APPROVAL_NOT_PENDING', undefined]);
});

test('an ADMIN may reject, but an owner-only request is refused to an ADMIN with INSUFFICIENT_ROLE', async () => {
  const { approvalId, approvalUrl } = await hold('Owner Only');
  await svc.services.db.update(approvalRequests).set({ ownerOnly: true }).where(eq(approvalRequests.id, approvalId)).run();
  const adminPage = await person(approvalUrl, admin);
  assert.match(adminPage.html, '소유자(OWNER)만');
  const refused = await adminPage.press('approve');
  assert.equal([refused.status, codeOf(refused.html)], [403, 'INSUFFICIENT_ROLE']);
  // Nor does an ADMIN get a code to approve it in the AI conversation.
  const noCode = await adminPage.press('confirm-approve');
  assert.equal([noCode.status, codeOf(noCode.html), confirmationCodeOf(noCode.html)], [403, 'INSUFFICIENT_ROLE', undefined]);
  // Through the approval API the refusal says what was missing.
  const viaApi = await svc.api('POST', `/v1/approval-requests/${approvalId}/approve`, { token: await login(svc, admin.email, admin.password), body: {} });
  assert.equal([viaApi.status, viaApi.body.error.details], [403, { requiredRole: ['OWNER'], actualRole: 'ADMIN' }]);
  assert.is((await svc.api('GET', `/v1/approval-requests/${approvalId}`, { token: owner })).data.status, 'PENDING');

  const other = await hold('Rejected By Admin');
  const rejected = await (await person(other.approvalUrl, admin)).press('reject');
  assert.match(rejected.html, 'data-status="REJECTED"');
});

test("an agent's token is no login on the page: it sees nothing and decides nothing", async () => {
  const { approvalId, approvalUrl } = await hold('Agent On The Page');
  const cookie = `svc_approver=${agentToken}`;
  const shown = await (await fetch(approvalUrl, { headers: { cookie } })).text();
  assert.match(shown, 'name="password"');
  assert.not.match(shown, 'Agent On The Page');
  for (const action of ['approve', 'confirm-approve']) {
    const pressed = await fetch(approvalUrl, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ action, formToken: 'x' }) });
    assert.equal([pressed.status, codeOf(await pressed.text())], [401, 'UNAUTHORIZED']);
  }
  assert.is((await svc.api('GET', `/v1/approval-requests/${approvalId}`, { token: owner })).data.status, 'PENDING');
});

test('every operation an agent may be held on has a Korean name (its title)', () => {
  const untitled = operations.filter((op) => op.agent !== undefined && op.agent !== 'direct' && op.agent !== 'denied' && !op.title).map((op) => op.operationId);
  assert.equal(untitled, []);
});

test("another store's person sees nothing: APPROVAL_NOT_FOUND", async () => {
  const { approvalUrl } = await hold('Private');
  const stranger = await newSellerWithStore(svc, 'stranger');
  const page = await person(approvalUrl, stranger);
  assert.equal([page.status, codeOf(page.html)], [404, 'APPROVAL_NOT_FOUND']);
  assert.not.match(page.html, 'Private');
  const missing = await person(`${svc.url}/approvals/apr_nope`, stranger);
  assert.equal([missing.status, codeOf(missing.html)], [404, 'APPROVAL_NOT_FOUND']);
});

test.run();
