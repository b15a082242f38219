import { makeStoreWentPublic } from '../helpers/storefront.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planUsage } from '../../src/modules/stores/schema.js';
import { usageMonth } from '../../src/modules/stores/usage.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';

let svc: TestService;
let owner: string;
let agent: Api;
let agentToken: string;

test.before(async () => {
  svc = await startTestService();
  owner = await login(svc);
  agentToken = await createAccessToken(svc, owner, { scopes: ['store:rw'], agent: true });
  agent = apiClient(svc.url, { token: agentToken, storeId: svc.storeId });
});
test.after(async () => {
  await svc.close();
});

const storeName = async () => (await svc.api('GET', '/v1/store', { token: owner })).data.name;
const approve = (id: string, token = owner) => svc.api('POST', `/v1/approval-requests/${id}/approve`, { token });

test('while the store never went public, store settings changes by agents run directly and count as AI actions', async () => {
  const res = await agent('PATCH', '/v1/store', { body: { name: 'Agent Renamed' } });
  assert.is(res.status, 200);
  assert.is(await storeName(), 'Agent Renamed');
  const sub = await svc.api('GET', '/v1/store/subscription', { token: owner });
  assert.is(sub.data.aiActions.used, 1);
  // A person's write does not count.
  await svc.api('PATCH', '/v1/store', { token: owner, body: { name: 'Owner Renamed' } });
  assert.is((await svc.api('GET', '/v1/store/subscription', { token: owner })).data.aiActions.used, 1);
});

test('after the first public state, an agent write is held: 202 APPROVAL_REQUIRED, nothing changes', async () => {
  await makeStoreWentPublic(svc, { token: await login(svc), storeId: svc.storeId });
  const dry = await agent('PATCH', '/v1/store', { body: { name: 'Dry' }, headers: { 'x-svc-dry-run': '1' } });
  assert.is(dry.body.meta.code, 'DRY_RUN');
  assert.is(dry.data.decision, 'APPROVAL_REQUIRED');
  assert.is((await svc.api('GET', '/v1/approval-requests', { token: owner })).data.totalElements, 0);

  const res = await agent('PATCH', '/v1/store', { body: { name: 'Needs Approval' }, headers: { 'idempotency-key': 'rename-a' } });
  assert.is(res.status, 202);
  assert.is(res.body.meta.code, 'APPROVAL_REQUIRED');
  assert.is(res.data.status, 'PENDING');
  assert.is(res.data.operationId, 'updateStore');
  assert.is(res.data.approvalUrl, `${svc.url}/approvals/${res.data.approvalId}`);
  assert.is(Date.parse(res.data.expiresAt) - svc.services.clock.now() > 23.9 * 3600_000, true);
  assert.is(await storeName(), 'Owner Renamed');
  const record = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { limit: 1 } })).data.contents[0];
  assert.equal([record.outcome.result, record.approvalId, record.actor.type], ['PENDING_APPROVAL', res.data.approvalId, 'AGENT']);

  const again = await agent('PATCH', '/v1/store', { body: { name: 'Needs Approval' }, headers: { 'idempotency-key': 'rename-a' } });
  assert.is(again.status, 202);
  assert.is(again.data.approvalId, res.data.approvalId);
  const reused = await agent('PATCH', '/v1/store', { body: { name: 'Something Else' }, headers: { 'idempotency-key': 'rename-a' } });
  assert.is(reused.status, 409);
  assert.is(reused.body.error.code, 'IDEMPOTENCY_KEY_REUSED');

  const list = await svc.api('GET', '/v1/approval-requests', { token: owner });
  assert.equal(
    list.data.contents.map((a: any) => a.approvalId),
    [res.data.approvalId],
  );
  // A pending request carries its dry-run preview (the names of spec 01 §5.6): the value now and the one asked for.
  const preview = { operationId: 'updateStore', changes: [{ field: 'name', before: 'Owner Renamed', after: 'Needs Approval' }] };
  assert.equal({ operationId: list.data.contents[0].preview.operationId, changes: list.data.contents[0].preview.changes }, preview);
  const one = await agent('GET', `/v1/approval-requests/${res.data.approvalId}`);
  assert.is(one.status, 200);
  assert.equal({ operationId: one.data.preview.operationId, changes: one.data.preview.changes }, preview);
  assert.equal(Object.keys(one.data.preview).sort(), ['changes', 'facts', 'operationId', 'target', 'targetName']);
  // Reading is open to the OWNER's agent (MCP's list_approvals); deciding is not.
  assert.is((await agent('GET', '/v1/approval-requests')).data.totalElements, 1);
});

test('a request known to fail refuses at dry run and at approval-request creation, with no approval made', async () => {
  const webhookAgent = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['webhook:rw'], agent: true }), storeId: svc.storeId });
  const before = (await svc.api('GET', '/v1/approval-requests', { token: owner })).data.totalElements;
  for (const headers of [{ 'x-svc-dry-run': '1' }, {}]) {
    const res = await webhookAgent('POST', '/v1/webhooks', { headers, body: { url: 'https://127.0.0.1/hook', eventTypes: ['ORDER.PAID'] } });
    assert.is(res.status, 400);
    assert.equal(
      res.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
      [['url', 'BLOCKED_ADDRESS']],
    );
  }
  assert.is((await svc.api('GET', '/v1/approval-requests', { token: owner })).data.totalElements, before);
});

test('agents and access tokens cannot decide; the OWNER approves and the original request runs once', async () => {
  const pending = (await svc.api('GET', '/v1/approval-requests', { token: owner })).data.contents[0];
  assert.is((await approve(pending.approvalId, agentToken)).body.error.code, 'AGENT_OPERATION_DENIED');
  const ownerAccess = await createAccessToken(svc, owner, { scopes: ['store:rw'] });
  assert.is((await approve(pending.approvalId, ownerAccess)).body.error.code, 'INSUFFICIENT_ROLE');

  const decided = await approve(pending.approvalId);
  assert.is(decided.status, 200);
  assert.is(decided.data.status, 'SUCCEEDED');
  assert.is(decided.data.result.statusCode, 200);
  assert.is(decided.data.result.data.name, 'Needs Approval');
  assert.is(await storeName(), 'Needs Approval');

  const logs = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { approvalId: pending.approvalId, limit: 100 } })).data.contents;
  const execution = logs.find((r: any) => r.kind === 'REQUEST' && r.action === 'updateStore' && r.outcome.result === 'SUCCEEDED');
  assert.is(execution.actor.type, 'AGENT');
  assert.is(execution.metadata.approvedBy, decided.data.decidedBy);
  assert.ok(logs.some((r: any) => r.kind === 'DOMAIN' && r.action === 'APPROVAL_DECIDED' && r.metadata.decision === 'APPROVE'));

  const twice = await approve(pending.approvalId);
  assert.is(twice.status, 409);
  assert.is(twice.body.error.code, 'APPROVAL_NOT_PENDING');
  const replay = await agent('PATCH', '/v1/store', { body: { name: 'Needs Approval' }, headers: { 'idempotency-key': 'rename-a' } });
  assert.is(replay.status, 200);
  assert.is(replay.body.meta.code, 'APPROVAL_ALREADY_DECIDED');
  assert.is(replay.data.status, 'SUCCEEDED');
});

test('reject never runs; simultaneous approvals execute once', async () => {
  const a = await agent('PATCH', '/v1/store', { body: { name: 'Rejected Name' } });
  const rejected = await svc.api('POST', `/v1/approval-requests/${a.data.approvalId}/reject`, { token: owner });
  assert.is(rejected.data.status, 'REJECTED');
  // A decided request has no preview any more: nothing is left to change.
  assert.is((await svc.api('GET', `/v1/approval-requests/${a.data.approvalId}`, { token: owner })).data.preview, null);
  assert.is.not(await storeName(), 'Rejected Name');

  const b = await agent('PATCH', '/v1/store', { body: { name: 'Raced Name' } });
  const [x, y] = await Promise.all([approve(b.data.approvalId), approve(b.data.approvalId)]);
  assert.equal([x.status, y.status].sort(), [200, 409]);
  const runs = (
    await svc.api('GET', '/v1/audit-logs', { token: owner, query: { approvalId: b.data.approvalId, action: 'updateStore', limit: 100 } })
  ).data.contents.filter((r: any) => r.outcome.result === 'SUCCEEDED');
  assert.is(runs.length, 1);
});

test('approval requests expire after 24 hours and are never executed', async () => {
  const held = await agent('PATCH', '/v1/store', { body: { name: 'Too Late' } });
  await svc.advance(24 * 3600 + 1);
  owner = await login(svc);
  const read = await svc.api('GET', `/v1/approval-requests/${held.data.approvalId}`, { token: owner });
  assert.is(read.data.status, 'EXPIRED');
  const late = await approve(held.data.approvalId);
  assert.is(late.status, 409);
  assert.is(late.body.error.code, 'APPROVAL_EXPIRED');
  assert.is.not(await storeName(), 'Too Late');
});

test('a token revoked before approval makes the execution fail with 401', async () => {
  const shortLived = await createAccessToken(svc, owner, { scopes: ['store:rw'], agent: true });
  const held = await apiClient(svc.url)('PATCH', '/v1/store', { token: shortLived, storeId: svc.storeId, body: { name: 'Revoked Agent' } });
  const tokenId = (await apiClient(svc.url)('GET', '/auth/v1/me', { token: shortLived })).data.token.tokenId;
  await apiClient(svc.url)('DELETE', `/auth/v1/access-tokens/${tokenId}`, { token: owner });
  const decided = await approve(held.data.approvalId);
  assert.is(decided.data.status, 'FAILED');
  assert.is(decided.data.result.statusCode, 401);
  assert.is(decided.data.result.error.code, 'TOKEN_REVOKED');
  assert.is.not(await storeName(), 'Revoked Agent');
});

test('approvers are mailed one digest per 10 minutes', async () => {
  const seller = await newSellerWithStore(svc, 'digest');
  await makeStoreWentPublic(svc, seller);
  const sellerAgent = await createAccessToken(svc, seller.token, { scopes: ['store:rw'], agent: true });
  const ask = (name: string) => apiClient(svc.url)('PATCH', '/v1/store', { token: sellerAgent, storeId: seller.storeId, body: { name } });
  const mails = async () => (await svc.api('GET', '/_dev/v1/mail')).data.contents.filter((m: any) => m.to === seller.email && m.subject.includes('승인'));
  await ask('One');
  await ask('Two');
  await svc.api('POST', '/_dev/v1/jobs/run');
  assert.is((await mails()).length, 1);
  await ask('Three');
  await svc.api('POST', '/_dev/v1/jobs/run');
  assert.is((await mails()).length, 1, 'no second mail within 10 minutes');
  await svc.advance(10 * 60 + 1);
  const digests = await mails();
  assert.is(digests.length, 2);
  // The service's own job loop may have mailed 'One' alone before 'Two' came (1건 + 2건) or not (2건 + 1건):
  // either way every request is in exactly one digest.
  const counted = digests.map((m: any) => Number(/(\d+)건/.exec(m.subject)![1]));
  assert.is(counted[0] + counted[1], 3, JSON.stringify(digests.map((m: any) => m.subject)));
});

test('the monthly AI action limit: new agent writes and approval requests get 429; people are not limited', async () => {
  const { db, clock } = svc.services;
  await db
    .insert(planUsage)
    .values({ storeId: svc.storeId, month: usageMonth(clock.now()), aiActions: 100 })
    .onConflictDoUpdate({ target: [planUsage.storeId, planUsage.month], set: { aiActions: 100 } })
    .run();
  const res = await agent('PATCH', '/v1/store', { body: { name: 'Over Limit' } });
  assert.is(res.status, 429);
  assert.is(res.body.error.code, 'PLAN_AI_ACTIONS_EXCEEDED');
  assert.is((await svc.api('GET', '/v1/store/subscription', { token: owner })).data.aiActions.remaining, 0);
  assert.is((await svc.api('PATCH', '/v1/store', { token: owner, body: { name: 'Human Edit' } })).status, 200);
  assert.is((await agent('GET', '/v1/store')).status, 200);
});

test.run();
