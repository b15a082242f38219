import { makeStoreWentPublic } from '../helpers/storefront.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planUsage } from '../../src/modules/stores/schema.js';
import { usageMonth } from '../../src/modules/stores/usage.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';
import { callTool, stdioClient } from '../helpers/mcp.js';
import { createAccessToken, login, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let owner: string;
let client: Client;

const used = async () => (await svc.api('GET', '/v1/store/subscription', { token: owner })).data.aiActions.used as number;
const storeName = async () => (await svc.api('GET', '/v1/store', { token: owner })).data.name as string;

test.before(async () => {
  svc = await startTestService();
  owner = await login(svc);
  // The local MCP client is an agent whatever its token (spec 01 §5.6): here an ordinary, non-agent access token.
  const token = await createAccessToken(svc, owner, { scopes: ['store:rw', 'product:rw', 'promotion:rw', 'audit:r'], agent: false });
  client = await stdioClient({
    SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-mcp-cfg-')),
    SVC_API_URL: svc.url,
    SVC_TOKEN: token,
    SVC_STORE_ID: svc.storeId,
  });
});
test.after(async () => {
  await client?.close();
  await svc.close();
});

test('the server offers exactly the six tools', async () => {
  const { tools } = await client.listTools();
  assert.equal(tools.map((t) => t.name).sort(), [
    'call_api_read',
    'call_api_write',
    'decide_approval',
    'get_approval_request',
    'list_approvals',
    'list_operations',
  ]);
  assert.is(client.getServerVersion()?.name, 'svc');
});

test("list_operations comes from the registry with each operation's agent decision and input schema", async () => {
  const all = await callTool(client, 'list_operations');
  assert.is(all.isError, false);
  const byId = new Map(all.value.map((e: any) => [e.operationId, e]));
  const openapi = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
  const documented = Object.entries(openapi.paths)
    .filter(([p]) => (p as string).startsWith('/v1/'))
    .flatMap(([, ms]: any) =>
      Object.values(ms)
        .filter((o: any) => o.security.length > 0)
        .map((o: any) => o.operationId),
    );
  assert.equal([...byId.keys()].sort(), documented.sort());
  const get = byId.get('getStore') as any;
  assert.equal([get.method, get.path, get.agentDecision], ['GET', '/v1/store', 'ALLOW']);
  assert.is((byId.get('approveApprovalRequest') as any).agentDecision, 'DENIED');
  // The decision this store makes now: it never went public, so the exempt operations need no approval (spec 01 §5.6).
  assert.is((byId.get('updateStore') as any).agentDecision, 'ALLOW');
  assert.is((byId.get('updateProduct') as any).agentDecision, 'ALLOW');
  assert.is((byId.get('createWebhook') as any).agentDecision, 'APPROVAL_REQUIRED', 'not exempt');
  const product = byId.get('getProduct') as any;
  assert.equal(product.inputSchema.required, ['params']);
  assert.ok(product.inputSchema.properties.params.properties.productId);
  const create = byId.get('createProduct') as any;
  assert.is(create.inputSchema.properties.body.type, 'object');
  assert.not.ok(JSON.stringify(create.inputSchema).includes('$ref'));

  const found = await callTool(client, 'list_operations', { tag: 'Approvals', search: 'approve' });
  assert.equal(
    found.value.map((e: any) => e.operationId),
    ['approveApprovalRequest'],
  );
});

test('the walk of docs/agents.md as svc dev makes the store: a direct price change, a coupon held and approved', async () => {
  const created = await callTool(client, 'call_api_write', { operationId: 'createProduct', body: { name: '산책 머그컵', salePrice: 12000 } });
  const productId = created.value.productId;
  const listed = (await callTool(client, 'list_operations', { search: 'product' })).value;
  assert.is(listed.find((e: any) => e.operationId === 'updateProduct').agentDecision, 'ALLOW');
  const raised = await callTool(client, 'call_api_write', { operationId: 'updateProduct', params: { productId }, body: { salePrice: 15000 } });
  assert.equal([raised.status, raised.value.salePrice], [200, 15000]);
  const coupon = { name: '가입 축하 3천원', issueType: 'SIGNUP', benefit: { method: 'AMOUNT', value: 3000 }, useDays: 30 };
  assert.is(
    (await callTool(client, 'list_operations', { search: 'coupon' })).value.find((e: any) => e.operationId === 'createCoupon').agentDecision,
    'APPROVAL_REQUIRED',
  );
  const dry = await callTool(client, 'call_api_write', { operationId: 'createCoupon', body: coupon, dryRun: true });
  assert.equal([dry.code, dry.value.decision], ['DRY_RUN', 'APPROVAL_REQUIRED']);
  const held = await callTool(client, 'call_api_write', { operationId: 'createCoupon', body: coupon });
  assert.equal([held.status, held.code], [202, 'APPROVAL_REQUIRED']);
  assert.ok(held.value.approvalUrl);
  // A person approves (svc approvals approve, or the approval page): the coupon is made once.
  const approved = await svc.api('POST', `/v1/approval-requests/${held.value.approvalId}/approve`, { token: owner, body: {} });
  assert.is(approved.data.status, 'SUCCEEDED');
  const coupons = (await svc.api('GET', '/v1/coupons', { token: owner })).data.contents;
  assert.equal(coupons.filter((c: any) => c.name === coupon.name).length, 1);
});
test("call_api_read answers the envelope's data; writes and reads are kept to their own tool", async () => {
  const store = await callTool(client, 'call_api_read', { method: 'GET', path: '/v1/store' });
  assert.is(store.isError, false);
  assert.is(store.value.name, await storeName());
  const byId = await callTool(client, 'call_api_read', { operationId: 'getStore' });
  assert.is(byId.value.storeId, svc.storeId);
  const wrong = await callTool(client, 'call_api_read', { method: 'PATCH', path: '/v1/store' });
  assert.equal([wrong.isError, wrong.value.code], [true, 'WRONG_TOOL']);
  const missing = await callTool(client, 'call_api_read', { operationId: 'getProduct' });
  assert.equal([missing.isError, missing.value.code], [true, 'VALIDATION_FAILED']);
  const notFound = await callTool(client, 'call_api_read', { operationId: 'getProduct', params: { productId: 'prd_nope' } });
  assert.equal([notFound.isError, notFound.status, notFound.value.code], [true, 404, 'PRODUCT_NOT_FOUND']);
  const bad = await callTool(client, 'call_api_read', { method: 'GET', path: '/v1/products', query: { size: 'many' } });
  assert.equal([bad.isError, bad.value.code], [true, 'VALIDATION_FAILED']);
  assert.ok(bad.value.fieldErrors.length > 0);
});

test('a direct agent write runs and counts once; a dry run runs nothing and counts nothing; the audit says MCP', async () => {
  const before = await used();
  const dry = await callTool(client, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name: 'Dry Name' }, dryRun: true });
  assert.equal([dry.isError, dry.code, dry.value.dryRun, dry.value.decision], [false, 'DRY_RUN', true, 'ALLOW']);
  assert.equal(dry.value.preview.changes, [{ field: 'name', before: await storeName(), after: 'Dry Name' }]);
  assert.is(await used(), before);

  const write = await callTool(client, 'call_api_write', { operationId: 'updateStore', body: { name: 'MCP Renamed' } });
  assert.equal([write.isError, write.status, write.value.name], [false, 200, 'MCP Renamed']);
  assert.is(await storeName(), 'MCP Renamed');
  assert.is(await used(), before + 1);
  const record = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { action: 'updateStore', limit: 1 } })).data.contents[0];
  assert.equal([record.actor.type, record.source, record.outcome.result], ['AGENT', 'MCP', 'SUCCEEDED']);
});

test('after the store went public a price-like change waits for approval: approvalUrl, list and get; the local MCP cannot decide', async () => {
  await makeStoreWentPublic(svc, { token: await login(svc), storeId: svc.storeId });
  const before = await used();
  const held = await callTool(client, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name: 'Held Name' }, idempotencyKey: 'held-1' });
  assert.equal([held.isError, held.status, held.code, held.value.status], [false, 202, 'APPROVAL_REQUIRED', 'PENDING']);
  assert.is(held.value.approvalUrl, `${svc.url}/approvals/${held.value.approvalId}`);
  assert.is(await storeName(), 'MCP Renamed');
  assert.is(await used(), before, 'an approval request is not an AI action');

  const list = await callTool(client, 'list_approvals');
  assert.equal(
    list.value.contents.map((a: any) => a.approvalId),
    [held.value.approvalId],
  );
  const one = await callTool(client, 'get_approval_request', { approvalId: held.value.approvalId });
  assert.equal([one.value.status, one.value.operationId], ['PENDING', 'updateStore']);

  const local = await callTool(client, 'decide_approval', { approvalId: held.value.approvalId, decision: 'APPROVE' });
  assert.equal(
    [local.isError, local.value.decided, local.value.outcome, local.value.approvalUrl],
    [false, false, 'HUMAN_CONFIRMATION_REQUIRED', held.value.approvalUrl],
  );
  const tried = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { action: 'approveApprovalRequest', limit: 1 } })).data.contents[0];
  assert.equal([tried.actor.type, tried.source, tried.outcome.errorCode], ['AGENT', 'MCP', 'AGENT_OPERATION_DENIED']);
  // Deciding through the plain approval API is refused to an agent.
  const denied = await callTool(client, 'call_api_write', { operationId: 'approveApprovalRequest', params: { approvalId: held.value.approvalId } });
  assert.equal([denied.isError, denied.status, denied.value.code], [true, 403, 'AGENT_OPERATION_DENIED']);
  assert.is((await callTool(client, 'get_approval_request', { approvalId: held.value.approvalId })).value.status, 'PENDING');

  // A person approves; the same Idempotency-Key then answers APPROVAL_ALREADY_DECIDED, and the execution counted once.
  assert.is((await svc.api('POST', `/v1/approval-requests/${held.value.approvalId}/approve`, { token: owner })).status, 200);
  assert.is(await storeName(), 'Held Name');
  assert.is(await used(), before + 1);
  const again = await callTool(client, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name: 'Held Name' }, idempotencyKey: 'held-1' });
  assert.equal([again.isError, again.code, again.value.status], [false, 'APPROVAL_ALREADY_DECIDED', 'SUCCEEDED']);
  const gone = await callTool(client, 'get_approval_request', { approvalId: 'apr_nope' });
  assert.equal([gone.isError, gone.value.code], [true, 'APPROVAL_NOT_FOUND']);
});

test('on a public store a price change waits for approval (docs/agents.md step 3)', async () => {
  const created = await callTool(client, 'call_api_write', { operationId: 'createProduct', body: { name: '머그컵', salePrice: 12000 } });
  assert.equal([created.isError, created.status], [false, 201]);
  const productId = created.value.productId;
  const page = await callTool(client, 'call_api_read', { operationId: 'listProducts', query: { size: 5 } });
  assert.ok(page.value.contents.some((p: any) => p.productId === productId));
  const update = (await callTool(client, 'list_operations', { search: 'updateProduct' })).value[0];
  assert.equal([update.method, update.path, update.agentDecision], ['PATCH', '/v1/products/{productId}', 'APPROVAL_REQUIRED']);
  const dry = await callTool(client, 'call_api_write', { operationId: 'updateProduct', params: { productId }, body: { salePrice: 15000 }, dryRun: true });
  assert.equal([dry.code, dry.value.decision], ['DRY_RUN', 'APPROVAL_REQUIRED']);
  assert.equal(
    dry.value.preview.changes.find((c: any) => c.field === 'salePrice'),
    { field: 'salePrice', before: 12000, after: 15000 },
  );
  const held = await callTool(client, 'call_api_write', { operationId: 'updateProduct', params: { productId }, body: { salePrice: 15000 } });
  assert.equal([held.status, held.code, held.value.operationId], [202, 'APPROVAL_REQUIRED', 'updateProduct']);
  assert.is((await callTool(client, 'call_api_read', { operationId: 'getProduct', params: { productId } })).value.salePrice, 12000);
  // A name edit of the same product is direct.
  const renamed = await callTool(client, 'call_api_write', { operationId: 'updateProduct', params: { productId }, body: { name: '큰 머그컵' } });
  assert.equal([renamed.status, renamed.value.name], [200, '큰 머그컵']);
});

test('denied operations answer AGENT_OPERATION_DENIED through MCP and change nothing', async () => {
  const res = await callTool(client, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { termsVersion: 'v9' } });
  assert.equal([res.isError, res.status, res.value.code], [true, 403, 'AGENT_OPERATION_DENIED']);
});

test("an installed app's tool is found by list_operations and called by call_api_write", async () => {
  const handle = uniqueHandle('mcp');
  const manifest = {
    handle,
    name: 'Greeter',
    scopes: ['store:r'],
    mcp: { tools: { greet: { description: 'Greets a person', input: { name: { type: 'string', required: true } } } } },
  };
  await deploy(svc.api, manifest, bundleFor(manifest, 'var __app = { tools: { greet: async (input) => ({ greeting: "안녕하세요, " + input.name }) } };'));
  const inst = await installApp(svc.api, handle);
  const found = await callTool(client, 'list_operations', { search: `app.${handle}` });
  assert.equal(found.value, [
    {
      operationId: `app.${handle}.greet`,
      method: 'POST',
      path: `/v1/apps/installations/${inst.installationId}/tools/greet`,
      summary: 'Greets a person',
      agentDecision: 'ALLOW',
      inputSchema: {
        type: 'object',
        properties: {
          body: {
            type: 'object',
            properties: { input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
            required: ['input'],
          },
        },
        required: ['body'],
      },
    },
  ]);
  const before = await used();
  const res = await callTool(client, 'call_api_write', { operationId: `app.${handle}.greet`, body: { input: { name: '민지' } } });
  assert.equal([res.isError, res.value], [false, { result: { greeting: '안녕하세요, 민지' } }]);
  assert.is(await used(), before + 1);
});

test('with no store named, the only store in reach is used; a token that cannot list its stores is told to name one', async () => {
  const env = (token: string) => ({ SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-mcp-cfg-')), SVC_API_URL: svc.url, SVC_TOKEN: token });
  const listing = await stdioClient(env(await createAccessToken(svc, owner, { scopes: ['store:r', 'stores:read'] })));
  const blind = await stdioClient(env(await createAccessToken(svc, owner, { scopes: ['store:r'] })));
  try {
    assert.is((await callTool(listing, 'call_api_read', { operationId: 'getStore' })).value.storeId, svc.storeId);
    const refused = await callTool(blind, 'call_api_read', { operationId: 'getStore' });
    assert.equal([refused.isError, refused.value.code, refused.value.details.cause.code], [true, 'STORE_ID_REQUIRED', 'INSUFFICIENT_SCOPE']);
  } finally {
    await listing.close();
    await blind.close();
  }
});

test('the monthly AI-action limit: PLAN_AI_ACTIONS_EXCEEDED through MCP; reads go on', async () => {
  const { db, clock } = svc.services;
  await db
    .insert(planUsage)
    .values({ storeId: svc.storeId, month: usageMonth(clock.now()), aiActions: 100 })
    .onConflictDoUpdate({ target: [planUsage.storeId, planUsage.month], set: { aiActions: 100 } })
    .run();
  // New approval requests are refused as new writes are.
  const res = await callTool(client, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name: 'Over the limit' } });
  assert.equal([res.isError, res.status, res.value.code], [true, 429, 'PLAN_AI_ACTIONS_EXCEEDED']);
  assert.is((await callTool(client, 'call_api_read', { method: 'GET', path: '/v1/store' })).isError, false);
  await db.update(planUsage).set({ aiActions: 0 }).run();
});

test.run();
