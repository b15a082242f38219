/**
 * Flow rules over HTTP: durable timers with the claim pause (through the hooks the claims issue calls),
 * every action error, assignment by product and category, progression ORDER with a webhook notification,
 * tenancy, and the agent lines.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transaction } from '../../src/db/client.js';
import { openClaimHold, releaseClaimHold } from '../../src/modules/flows/claim-holds.js';
import { insertFlow } from '../../src/modules/flows/flow-catalogue.js';
import type { Definition } from '../../src/modules/flows/definition.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, dataOf, fails, freshApi, guestOrder, memberOrder, ok, subscribe } from '../helpers/flows.js';

let svc: TestService;
let api: Api;
let hooks: Awaited<ReturnType<typeof subscribe>>;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  api = svc.api;
  await connectSandbox(api);
  hooks = await subscribe(api);
});
test.after(async () => {
  await hooks.receiver.close();
  await svc.close();
});

const DAY = 86_400;
const flowOf = (id: string) => api('GET', `/v1/order-items/${id}/flow`);
const inTransaction = (fn: (now: number) => Promise<unknown>) => transaction(svc.services.db, () => fn(svc.services.clock.now()));

test('timers: DELIVER after 7 days pauses while a claim is open and resumes with the time it had left; then DECIDE after 8 days', async () => {
  const { item, order } = await guestOrder(svc, api);
  const id = item.orderItemId;
  ok(await api('POST', `/v1/order-items/${id}/confirm`));
  ok(await api('POST', `/v1/order-items/${id}/dispatch`, { body: { carrier: 'CJ', trackingNo: '1' } }));
  await svc.advance(3 * DAY);
  api = await freshApi(svc);

  await inTransaction((now) => openClaimHold(svc.services.db, now, id));
  const held = ok(await flowOf(id));
  assert.equal(
    held.timers.map((t: any) => [t.status, t.dueAt]),
    [['PAUSED', null]],
  );
  assert.ok(Math.abs(held.timers[0].remainingSeconds - 4 * DAY) < 120, String(held.timers[0].remainingSeconds));
  // An open claim turns the other actions off but offers the withdrawal.
  assert.equal(
    held.actions.map((a: any) => [a.key, a.enabled, a.disabled]),
    [
      ['DELIVER', false, { reason: 'CONDITION' }],
      ['WITHDRAW_REQUEST', true, null],
    ],
  );
  const refused = await api('POST', `/v1/order-items/${id}/delivered`);
  fails(refused, 409, 'FLOW_MOVE_NOT_ALLOWED');
  assert.equal(refused.body.error.details, { key: 'DELIVER', reason: 'CLAIM_OPEN' });

  await svc.advance(10 * DAY);
  api = await freshApi(svc);
  assert.is(ok(await flowOf(id)).state, 'DISPATCHED');

  await inTransaction((now) => releaseClaimHold(svc.services.db, now, id));
  const resumed = ok(await flowOf(id));
  assert.equal(
    resumed.timers.map((t: any) => [t.status, t.remainingSeconds]),
    [['PENDING', null]],
  );
  assert.equal(
    resumed.actions.map((a: any) => [a.key, a.enabled]),
    [['DELIVER', true]],
  );
  await svc.advance(4 * DAY - 600);
  api = await freshApi(svc);
  assert.is(ok(await flowOf(id)).state, 'DISPATCHED');
  await svc.advance(1200);
  api = await freshApi(svc);
  const delivered = ok(await flowOf(id));
  assert.equal([delivered.state, delivered.timers.map((t: any) => t.to)], ['DELIVERED', ['PURCHASE_DECIDED']]);
  await svc.advance(8 * DAY + 60);
  api = await freshApi(svc);
  assert.is(ok(await flowOf(id)).state, 'PURCHASE_DECIDED');
  const events = await hooks.forOrder(order.orderId, 9);
  assert.equal(
    events.slice(5).map((e) => e.type),
    ['ORDER.FLOW_STATE_CHANGED', 'ORDER.DELIVERED', 'ORDER.FLOW_STATE_CHANGED', 'ORDER.PURCHASE_DECIDED'],
  );
  const runs = ok(await api('GET', `/v1/order-items/${id}/flow/runs`)).contents;
  assert.equal(
    runs.slice(-2).map((r: any) => [r.actor.type, r.trigger.kind]),
    [
      ['TIMER', 'timer'],
      ['TIMER', 'timer'],
    ],
  );
});

test('a buyer withdrawing the claim request (WITHDRAW_REQUEST) ends the hold; without an open claim it is not available', async () => {
  const p = await createProduct(api, {});
  const { order, buyer } = await memberOrder(svc, api, 'withdrawer', [p]);
  const id = order.items[0].orderItemId;
  fails(await buyer('POST', `/storefront/v1/me/order-items/${id}/actions/WITHDRAW_REQUEST`), 409, 'ACTION_NOT_AVAILABLE');
  await inTransaction((now) => openClaimHold(svc.services.db, now, id));
  fails(await api('POST', `/v1/order-items/${id}/confirm`), 409, 'FLOW_MOVE_NOT_ALLOWED');
  const withdrawn = ok(await buyer('POST', `/storefront/v1/me/order-items/${id}/actions/WITHDRAW_REQUEST`));
  assert.equal([withdrawn.state, withdrawn.actions], ['PAID', []]);
  assert.is(ok(await api('POST', `/v1/order-items/${id}/confirm`)).state, 'CONFIRMED');
});

test('action errors: ACTION_NOT_AVAILABLE, FLOW_ACTION_INPUT_INVALID, malformed shortcut bodies — and nothing changes', async () => {
  const { item } = await guestOrder(svc, api);
  const id = item.orderItemId;
  const notAvailable = async (path: string, reason: string, key: string, body?: unknown) => {
    const res = await api('POST', `/v1/order-items/${id}/${path}`, { body });
    fails(res, 409, 'ACTION_NOT_AVAILABLE');
    assert.equal(res.body.error.details, { key, reason });
  };
  await notAvailable('delivered', 'NOT_IN_STATE', 'DELIVER');
  await notAvailable('actions/NO_SUCH_ACTION', 'UNKNOWN_ACTION', 'NO_SUCH_ACTION', {});
  await notAvailable('actions/DECIDE_PURCHASE', 'ACTOR', 'DECIDE_PURCHASE', {});
  await notAvailable('fulfill', 'UNKNOWN_ACTION', 'FULFILL', {});
  ok(await api('POST', `/v1/order-items/${id}/confirm`));
  const invalid = await api('POST', `/v1/order-items/${id}/actions/DISPATCH`, { body: { input: { carrier: 7, extra: 'x' } } });
  fails(invalid, 400, 'FLOW_ACTION_INPUT_INVALID');
  assert.equal(invalid.body.error.details, {
    key: 'DISPATCH',
    issues: [
      { key: 'extra', code: 'UNKNOWN_INPUT', message: '이 작업에 없는 입력입니다.' },
      { key: 'carrier', code: 'INVALID_TYPE', message: 'text 입력의 값이 아닙니다.' },
      { key: 'trackingNo', code: 'REQUIRED', message: '송장 번호을(를) 입력하세요.' },
    ],
  });
  fails(await api('POST', `/v1/order-items/${id}/dispatch`, { body: { carrier: 'CJ' } }), 400, 'VALIDATION_FAILED');
  fails(await api('POST', `/v1/order-items/${id}/confirm`, { body: { note: 'x' } }), 400, 'VALIDATION_FAILED');
  fails(await api('POST', '/v1/order-items/oi_nope/confirm'), 404, 'ORDER_ITEM_NOT_FOUND');
  const still = ok(await flowOf(id));
  assert.equal([still.state, still.timers], ['CONFIRMED', []]);
  const viaGeneric = ok(await api('POST', `/v1/order-items/${id}/actions/DISPATCH`, { body: { input: { carrier: 'CJ', trackingNo: '42' } } }));
  assert.is(viaGeneric.state, 'DISPATCHED');
});

test('old assignment-rules paths are gone (410); unknown flowId on product and category writes is 404; the source of a product flow', async () => {
  for (const path of [
    '/v1/commerce-flows/assignment-rules',
    '/v1/commerce-flows/assignment-rules/r1',
    '/v1/flow-assignment-rules',
    '/v1/flow-assignment-rules/r1',
  ]) {
    fails(await api('GET', path), 410, 'FLOW_ASSIGNMENT_RULES_RETIRED');
    fails(await api('POST', path, { body: {} }), 410, 'FLOW_ASSIGNMENT_RULES_RETIRED');
  }
  fails(await api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, stockQuantity: 1, flowId: 'flw_nope' } }), 404, 'FLOW_NOT_FOUND');
  fails(await api('POST', '/v1/categories', { body: { name: 'x', flowId: 'flw_nope' } }), 404, 'FLOW_NOT_FOUND');
  const other = await newSellerWithStore(svc, 'flowowner');
  const foreign = ok(await other.api('GET', '/v1/commerce-flows')).contents[0].flowId;
  fails(await api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, stockQuantity: 1, flowId: foreign } }), 403, 'TENANT_MISMATCH');

  const [shipping, manual] = ok(await api('GET', '/v1/commerce-flows')).contents;
  const category = ok(await api('POST', '/v1/categories', { body: { name: '디지털', flowId: manual.flowId } }), 201);
  const inCategory = await createProduct(api, { categoryId: category.categoryId });
  assert.equal(ok(await api('GET', `/v1/products/${inCategory.productId}/flow`)), { flowId: manual.flowId, version: 1, source: 'CATEGORY' });
  const own = await createProduct(api, { categoryId: category.categoryId, flowId: shipping.flowId });
  assert.equal(ok(await api('GET', `/v1/products/${own.productId}/flow`)), { flowId: shipping.flowId, version: 1, source: 'PRODUCT' });
  // The flow is fixed at payment: a shipped product in a MANUAL-flow category follows MANUAL.
  const { item } = await guestOrder(svc, api, { categoryId: category.categoryId });
  assert.equal([item.flow.flowId, ok(await flowOf(item.orderItemId)).actions.map((a: any) => a.key)], [manual.flowId, ['FULFILL']]);
});

/** A made-to-order flow moving a whole order as one group, with a webhook notification and a condition. */
const GROUPED: Definition = {
  progression: 'ORDER',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID' },
    MAKING: { label: '제작중', coreStatus: 'CONFIRMED', notify: [{ channel: 'webhook', params: { event: '"making-started"', count: 'item.quantity * 2' } }] },
    SHIPPED: { label: '발송', coreStatus: 'DISPATCHED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'MAKING', on: { action: 'START' } },
    { from: 'MAKING', to: 'SHIPPED', on: { action: 'SHIP' }, when: 'input.boxes > 0' },
  ],
  actions: {
    START: { label: '제작 시작', actor: 'SELLER', scope: 'ORDER' },
    SHIP: { label: '발송', actor: 'SELLER', scope: 'ITEM', inputs: [{ key: 'boxes', kind: 'text', label: '상자 수', required: false }] },
  },
};

test('progression ORDER: the group moves as one, FLOW_STATE_CHANGED names every item, a webhook notification fires; a false condition is FLOW_MOVE_NOT_ALLOWED', async () => {
  const flow = await transaction(svc.services.db, () =>
    insertFlow(svc.services.db, svc.storeId, svc.services.clock.now(), { name: '주문 제작', kind: 'SHIPPING', definition: GROUPED }),
  );
  const a = await createProduct(api, { flowId: flow.id });
  const b = await createProduct(api, { flowId: flow.id });
  const { order } = await memberOrder(svc, api, 'grouper', [a, b]);
  const [first, second] = order.items;
  const groupId = ok(await flowOf(first.orderItemId)).groupId;
  assert.match(groupId, /^grp_/);
  assert.is(ok(await flowOf(second.orderItemId)).groupId, groupId);

  const scoped = await api('POST', `/v1/order-items/${first.orderItemId}/actions/START`, { body: {} });
  fails(scoped, 409, 'ACTION_NOT_AVAILABLE');
  assert.equal(scoped.body.error.details, { key: 'START', reason: 'SCOPE' });
  const started = ok(await api('POST', `/v1/orders/${order.orderId}/actions/START`, { body: {} }));
  assert.equal([started.status, started.items.map((i: any) => i.state)], ['CONFIRMED', ['MAKING', 'MAKING']]);
  fails(await api('POST', `/v1/orders/${order.orderId}/actions/START`, { body: {} }), 409, 'ACTION_NOT_AVAILABLE');

  const condition = await api('POST', `/v1/order-items/${first.orderItemId}/actions/SHIP`, { body: { input: { boxes: 'none' } } });
  fails(condition, 409, 'FLOW_MOVE_NOT_ALLOWED');
  assert.equal(condition.body.error.details, { key: 'SHIP', reason: 'CONDITION' });
  // Text input "2" is a string: the CEL comparison with an int fails, which yields null, which is not true.
  fails(await api('POST', `/v1/order-items/${first.orderItemId}/actions/SHIP`, { body: { input: { boxes: '2' } } }), 409, 'FLOW_MOVE_NOT_ALLOWED');

  const events = await hooks.forOrder(order.orderId, 5);
  assert.equal(
    events.map((e) => e.type),
    ['ORDER.PAID', 'ORDER.FLOW_STATE_CHANGED', 'ORDER.CONFIRMED', 'ORDER.CONFIRMED', 'ORDER.FLOW_NOTIFICATION'],
  );
  const ids = [first.orderItemId, second.orderItemId];
  const changed = dataOf(events[1], 'ORDER.FLOW_STATE_CHANGED', 2);
  assert.equal(changed, {
    orderId: order.orderId,
    orderItemIds: ids,
    flowId: flow.id,
    flowVersion: 1,
    from: 'PAID',
    to: 'MAKING',
    label: '제작중',
    coreStatus: 'CONFIRMED',
    changedAt: changed.changedAt,
  });
  assert.equal(dataOf(events[2], 'ORDER.CONFIRMED', 3), { orderId: order.orderId, orderNo: order.orderNo, status: 'CONFIRMED', testPayment: true });
  assert.equal(dataOf(events[4], 'ORDER.FLOW_NOTIFICATION', 5), {
    orderId: order.orderId,
    orderItemIds: ids,
    event: 'making-started',
    flowId: flow.id,
    flowVersion: 1,
    state: 'MAKING',
  });
  const run = ok(await api('GET', `/v1/order-items/${second.orderItemId}/flow/runs`)).contents.at(-1);
  assert.equal(run.notifications, [{ channel: 'webhook', params: { event: 'making-started', count: 2 }, sent: true }]);
});

test('a claim hold on one grouped item pauses the group (groupClaim PAUSE by default)', async () => {
  const flow = await transaction(svc.services.db, () =>
    insertFlow(svc.services.db, svc.storeId, svc.services.clock.now(), { name: '주문 제작 2', kind: 'SHIPPING', definition: GROUPED }),
  );
  const a = await createProduct(api, { flowId: flow.id });
  const b = await createProduct(api, { flowId: flow.id });
  const { order } = await memberOrder(svc, api, 'grouper2', [a, b]);
  await inTransaction((now) => openClaimHold(svc.services.db, now, order.items[0].orderItemId));
  const other = ok(await flowOf(order.items[1].orderItemId));
  assert.equal(
    other.actions.map((x: any) => [x.key, x.enabled]),
    [['START', false]],
  );
  const refused = await api('POST', `/v1/orders/${order.orderId}/actions/START`, { body: {} });
  fails(refused, 409, 'FLOW_MOVE_NOT_ALLOWED');
});

test('tenancy: another store cannot read or move an item, its runs or its order', async () => {
  const { item, order } = await guestOrder(svc, api);
  const other = await newSellerWithStore(svc, 'intruder');
  fails(await other.api('GET', `/v1/order-items/${item.orderItemId}/flow`), 403, 'TENANT_MISMATCH');
  fails(await other.api('GET', `/v1/order-items/${item.orderItemId}/flow/runs`), 403, 'TENANT_MISMATCH');
  fails(await other.api('POST', `/v1/order-items/${item.orderItemId}/confirm`), 403, 'TENANT_MISMATCH');
  fails(await other.api('POST', `/v1/order-items/${item.orderItemId}/actions/CONFIRM`, { body: {} }), 403, 'TENANT_MISMATCH');
  fails(await other.api('POST', `/v1/orders/${order.orderId}/actions/CONFIRM`, { body: {} }), 403, 'TENANT_MISMATCH');
  const runId = ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow/runs`)).contents[0].runId;
  fails(await other.api('GET', `/v1/flow-runs/${runId}`), 403, 'TENANT_MISMATCH');
  // A guest of another store cannot act on this store's order either.
  fails(
    await buyerApi(svc, other.storeId)('POST', `/storefront/v1/guest/orders/${order.orderId}/items/${item.orderItemId}/actions/DECIDE_PURCHASE`, {
      body: { orderPassword: 'guest-pass-1' },
    }),
    404,
    'ORDER_NOT_FOUND',
  );
  assert.is(ok(await flowOf(item.orderItemId)).state, 'PAID');
});

test('scopes and agents: order:r cannot act, flow:r reads; an agent confirms directly but the generic action needs approval', async () => {
  const { item } = await guestOrder(svc, api);
  const owner = await login(svc);
  const reader = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['order:r', 'flow:r'] }), storeId: svc.storeId });
  assert.is(ok(await reader('GET', `/v1/order-items/${item.orderItemId}/flow`)).state, 'PAID');
  fails(await reader('POST', `/v1/order-items/${item.orderItemId}/confirm`), 403, 'INSUFFICIENT_ROLE');
  const noFlow = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['order:rw'] }), storeId: svc.storeId });
  fails(await noFlow('GET', `/v1/commerce-flows`), 403, 'INSUFFICIENT_ROLE');

  const agent = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['order:rw', 'flow:r'], agent: true }), storeId: svc.storeId });
  const pending = await agent('POST', `/v1/order-items/${item.orderItemId}/actions/CONFIRM`, { body: {} });
  assert.equal([pending.status, pending.body.meta.code], [202, 'APPROVAL_REQUIRED']);
  assert.is(ok(await agent('POST', `/v1/order-items/${item.orderItemId}/confirm`)).state, 'CONFIRMED');
});

test('a direct move puts the item in any state of its flow with a reason, fires its events and is refused while a claim is open', async () => {
  const { item, order } = await guestOrder(svc, api);
  const id = item.orderItemId;
  const refusedWith = async (body: unknown, reason: string) => {
    const res = await api('POST', `/v1/order-items/${id}/flow/move`, { body });
    fails(res, 409, 'FLOW_MOVE_NOT_ALLOWED');
    assert.is(res.body.error.details.reason, reason);
  };
  await refusedWith({ to: 'NOWHERE', reason: '택배사 전산 오류' }, 'UNKNOWN_STATE');
  await refusedWith({ to: 'PAID', reason: '택배사 전산 오류' }, 'SAME_STATE');
  fails(await api('POST', `/v1/order-items/${id}/flow/move`, { body: { to: 'DISPATCHED' } }), 400, 'VALIDATION_FAILED');
  assert.is(ok(await flowOf(id)).state, 'PAID');

  const moved = ok(await api('POST', `/v1/order-items/${id}/flow/move`, { body: { to: 'DISPATCHED', reason: '택배사 전산 오류' } }));
  assert.equal([moved.state, moved.coreStatus], ['DISPATCHED', 'DISPATCHED']);
  // Entering DISPATCHED arms its DELIVER timer, as a move through the graph would.
  assert.equal(
    moved.timers.map((t: any) => [t.kind, t.to]),
    [['after', 'DELIVERED']],
  );
  const runs = ok(await api('GET', `/v1/order-items/${id}/flow/runs`)).contents;
  assert.ok(
    runs.some((r: any) => r.trigger.kind === 'move' && r.trigger.reason === '택배사 전산 오류' && r.from === 'PAID' && r.to === 'DISPATCHED'),
    JSON.stringify(runs),
  );
  const events = await hooks.forOrder(order.orderId, 3);
  assert.equal(
    events.map((e: any) => e.type),
    ['ORDER.PAID', 'ORDER.FLOW_STATE_CHANGED', 'ORDER.DISPATCHED'],
  );

  await inTransaction((now) => openClaimHold(svc.services.db, now, id));
  await refusedWith({ to: 'DELIVERED', reason: '배송 완료 확인' }, 'CLAIM_OPEN');
  await inTransaction((now) => releaseClaimHold(svc.services.db, now, id));
  assert.is(ok(await api('POST', `/v1/order-items/${id}/flow/move`, { body: { to: 'DELIVERED', reason: '배송 완료 확인' } })).state, 'DELIVERED');
});

test.run();
