import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, createAccessToken, login, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const dryRun = { 'x-svc-dry-run': '1' };
const lastRecord = async () => (await svc.api('GET', '/v1/audit-logs', { query: { limit: 1 } })).data.contents[0];

test('a dry run of an operation denied by the request (terms version) answers DRY_RUN with decision DENIED; the real call is 403', async () => {
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['store:rw'], agent: true }), storeId: svc.storeId });
  const dry = await agent('PATCH', '/v1/store', { headers: dryRun, body: { termsVersion: '2026-12' } });
  assert.is(dry.status, 200);
  assert.is(dry.body.meta.code, 'DRY_RUN');
  assert.equal([dry.data.dryRun, dry.data.decision], [true, 'DENIED']);
  assert.type(dry.data.reason, 'string');
  assert.ok(dry.data.reason.length > 0);
  assert.is(dry.data.preview.operationId, 'updateStore');
  assert.is((await lastRecord()).outcome.result, 'DRY_RUN');
  // A malformed body is still refused like a real run.
  assert.is((await agent('PATCH', '/v1/store', { headers: dryRun, body: { termsVersion: 12 } })).status, 400);

  const real = await agent('PATCH', '/v1/store', { body: { termsVersion: '2026-12' } });
  assert.equal([real.status, real.body.error.code], [403, 'AGENT_OPERATION_DENIED']);
  assert.is((await svc.api('GET', '/v1/store')).data.termsVersion, null);
});

test('a dry run of an operation always denied to agents (flow secret save) answers DENIED and changes nothing', async () => {
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['flow:rw'], agent: true }), storeId: svc.storeId });
  const body = { name: 'SMS_API_KEY', value: 'sk-secret' };
  const dry = await agent('PUT', '/v1/commerce-flows/secrets', { headers: dryRun, body });
  assert.equal([dry.status, dry.body.meta.code, dry.data.decision], [200, 'DRY_RUN', 'DENIED']);
  assert.ok(dry.data.reason.length > 0);
  assert.equal(dry.data.preview.target, { type: 'FLOW_SECRET', id: 'SMS_API_KEY' });
  const real = await agent('PUT', '/v1/commerce-flows/secrets', { body });
  assert.equal([real.status, real.body.error.code], [403, 'AGENT_OPERATION_DENIED']);
  assert.equal((await svc.api('GET', '/v1/commerce-flows/secrets')).data.contents, []);
});

test('decisions other than DENIED are unchanged: an allowed dry run says ALLOW with no reason', async () => {
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['store:rw'], agent: true }), storeId: svc.storeId });
  const dry = await agent('PATCH', '/v1/store', { headers: dryRun, body: { name: 'Dry Name' } });
  assert.equal([dry.status, dry.data.decision, dry.data.reason], [200, 'ALLOW', null]);
});

test.run();
