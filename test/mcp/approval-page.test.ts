import { makeStoreWentPublic } from '../helpers/storefront.js';
import { eq } from 'drizzle-orm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { approvalRequests } from '../../src/modules/approvals/schema.js';
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';

let svc: TestService;
let owner: string;
let agent: Api;
const admin = { email: `admin-${Date.now()}@example.com`, password: 'password-1234' };

test.before(async () => {
  svc = await startTestService();
  owner = await login(svc);
  agent = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['store:rw'], agent: true }), storeId: svc.storeId });
  await makeStoreWentPublic(svc, { token: owner, storeId: svc.storeId });
  assert.is((await apiClient(svc.url)('POST', '/auth/v1/signup', { body: { ...admin, name: 'Admin' } })).status, 201);
  assert.is((await svc.api('POST', '/v1/members', { token: owner, body: { email: admin.email, role: 'ADMIN' } })).status, 201);
});
test.after(async () => {
  await svc.close();
});

const hold = async (name: string) => (await agent('PATCH', '/v1/store', { body: { name } })).data as { approvalId: string; approvalUrl: string };
const codeOf = (html: string) => /data-code="([A-Z_]+)"/.exec(html)?.[1];

/** A person on the approval page: logs in there, then presses the page's buttons with its form token. */
async function person(url: string, who: { email: string; password: string }) {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams({ action: 'login', ...who }) });
  const html = await res.text();
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  return {
    status: res.status,
    html,
    cookie,
    async press(action: 'approve' | 'reject', token = /name="formToken" value="([^"]+)"/.exec(html)?.[1] ?? '') {
      const answer = await fetch(url, { method: 'POST', headers: { cookie: cookie! }, body: new URLSearchParams({ action, formToken: token }) });
      return { status: answer.status, html: await answer.text() };
    },
  };
}

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
  assert.match(me.html, 'updateStore');
  assert.match(me.html, '<td>name</td>');
  assert.match(me.html, '&#34;Page Approved&#34;');
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

test('an ADMIN may reject, but an owner-only request is refused to an ADMIN with INSUFFICIENT_ROLE', async () => {
  const { approvalId, approvalUrl } = await hold('Owner Only');
  await svc.services.db.update(approvalRequests).set({ ownerOnly: true }).where(eq(approvalRequests.id, approvalId)).run();
  const adminPage = await person(approvalUrl, admin);
  assert.match(adminPage.html, '소유자(OWNER)만');
  const refused = await adminPage.press('approve');
  assert.equal([refused.status, codeOf(refused.html)], [403, 'INSUFFICIENT_ROLE']);
  assert.is((await svc.api('GET', `/v1/approval-requests/${approvalId}`, { token: owner })).data.status, 'PENDING');

  const other = await hold('Rejected By Admin');
  const rejected = await (await person(other.approvalUrl, admin)).press('reject');
  assert.match(rejected.html, 'data-status="REJECTED"');
});

test('another store\'s person sees nothing: APPROVAL_NOT_FOUND', async () => {
  const { approvalUrl } = await hold('Private');
  const stranger = await newSellerWithStore(svc, 'stranger');
  const page = await person(approvalUrl, stranger);
  assert.equal([page.status, codeOf(page.html)], [404, 'APPROVAL_NOT_FOUND']);
  assert.not.match(page.html, 'Private');
  const missing = await person(`${svc.url}/approvals/apr_nope`, stranger);
  assert.equal([missing.status, codeOf(missing.html)], [404, 'APPROVAL_NOT_FOUND']);
});

test.run();
