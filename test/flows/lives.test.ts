/**
 * The whole lives of items in the default flows, over HTTP, with every event a webhook receiver gets
 * checked field by field (spec 01 §6.2, spec 02 §4.4).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type Api, type TestService } from '../helpers/service.js';
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

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('the store has the two default flows; a shipped product follows SHIPPING, a no-shipping one MANUAL', async () => {
  const flows = ok(await api('GET', '/v1/commerce-flows')).contents;
  assert.equal(
    flows.map((f: any) => [f.kind, f.isDefault, f.progression, f.publishedVersion, f.draft]),
    [
      ['SHIPPING', true, 'ITEM', 1, null],
      ['MANUAL', true, 'ITEM', 1, null],
    ],
  );
  const shipping = ok(await api('GET', `/v1/commerce-flows/${flows[0].flowId}`));
  assert.equal(shipping, flows[0]);
  const version = ok(await api('GET', `/v1/commerce-flows/${flows[0].flowId}/versions/1`));
  assert.equal(Object.keys(version.definition.states), ['PAID', 'CONFIRMED', 'DISPATCHED', 'DELIVERED', 'PURCHASE_DECIDED']);
  assert.equal(Object.keys(version.definition.actions), ['CONFIRM', 'DISPATCH', 'DELIVER', 'DECIDE_PURCHASE', 'WITHDRAW_REQUEST']);
  assert.equal(version.definition.states.CONFIRMED.claims, { cancel: 'REQUEST', return: 'NONE', exchange: 'NONE' });
  fails(await api('GET', `/v1/commerce-flows/${flows[0].flowId}/versions/2`), 404, 'FLOW_VERSION_NOT_FOUND');
  fails(await api('GET', '/v1/commerce-flows/flw_nope'), 404, 'FLOW_NOT_FOUND');

  const shipped = await createProduct(api, {});
  const manual = await createProduct(api, { fulfillment: { type: 'MANUAL' } });
  assert.equal(ok(await api('GET', `/v1/products/${shipped.productId}/flow`)), { flowId: flows[0].flowId, version: 1, source: 'PLATFORM' });
  assert.equal(ok(await api('GET', `/v1/products/${manual.productId}/flow`)), { flowId: flows[1].flowId, version: 1, source: 'PLATFORM' });
});

test('SHIPPING: PAID → CONFIRM → DISPATCH → DELIVER → buyer DECIDE_PURCHASE, each move and event as specified', async () => {
  const { order, item, password } = await guestOrder(svc, api);
  const shipping = ok(await api('GET', '/v1/commerce-flows')).contents[0];
  assert.equal(item.flow, { flowId: shipping.flowId, version: 1, state: 'PAID', coreStatus: 'PAID' });
  assert.is(item.status, 'PAID');

  const paid = ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow`));
  assert.equal([paid.state, paid.coreStatus, paid.groupId, paid.timers], ['PAID', 'PAID', null, []]);
  assert.equal(
    paid.actions.map((a: any) => [a.key, a.actor, a.enabled, a.disabled]),
    [['CONFIRM', 'SELLER', true, null]],
  );

  const confirmed = ok(await api('POST', `/v1/order-items/${item.orderItemId}/confirm`));
  assert.equal([confirmed.state, confirmed.label, confirmed.coreStatus], ['CONFIRMED', '상품 준비중', 'CONFIRMED']);
  assert.equal(
    confirmed.actions.map((a: any) => a.key),
    ['DISPATCH'],
  );
  assert.equal(
    confirmed.actions[0].inputs.map((i: any) => [i.key, i.kind, i.required]),
    [
      ['carrier', 'text', true],
      ['trackingNo', 'text', true],
    ],
  );

  const dispatched = ok(await api('POST', `/v1/order-items/${item.orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: '123456789012' } }));
  assert.is(dispatched.state, 'DISPATCHED');
  assert.equal(
    dispatched.timers.map((t: any) => [t.kind, t.to, t.status]),
    [['after', 'DELIVERED', 'PENDING']],
  );
  assert.is(ok(await api('GET', `/v1/orders/${order.orderId}`)).status, 'DISPATCHED');

  const delivered = ok(await api('POST', `/v1/order-items/${item.orderItemId}/delivered`));
  assert.is(delivered.state, 'DELIVERED');
  assert.equal(
    delivered.timers.map((t: any) => [t.kind, t.to]),
    [['after', 'PURCHASE_DECIDED']],
  );
  assert.equal(
    delivered.actions.map((a: any) => [a.key, a.actor]),
    [['DECIDE_PURCHASE', 'BUYER']],
  );
  fails(await api('POST', `/v1/order-items/${item.orderItemId}/actions/DECIDE_PURCHASE`), 409, 'ACTION_NOT_AVAILABLE');

  const guest = buyerApi(svc, svc.storeId);
  fails(
    await guest('POST', `/storefront/v1/guest/orders/${order.orderId}/items/${item.orderItemId}/actions/DECIDE_PURCHASE`, {
      body: { orderPassword: 'wrong-password' },
    }),
    404,
    'ORDER_NOT_FOUND',
  );
  const decided = ok(
    await guest('POST', `/storefront/v1/guest/orders/${order.orderId}/items/${item.orderItemId}/actions/DECIDE_PURCHASE`, {
      body: { orderPassword: password },
    }),
  );
  assert.equal([decided.state, decided.coreStatus, decided.actions, decided.timers], ['PURCHASE_DECIDED', 'PURCHASE_DECIDED', [], []]);

  const after = ok(await api('GET', `/v1/orders/${order.orderId}`));
  assert.equal(
    [after.status, after.progressStatus, after.items[0].status, after.items[0].flow.state],
    ['PURCHASE_DECIDED', 'PURCHASE_DECIDED', 'PURCHASE_DECIDED', 'PURCHASE_DECIDED'],
  );

  const events = await hooks.forOrder(order.orderId, 9);
  assert.equal(
    events.map((e) => e.type),
    [
      'ORDER.PAID',
      'ORDER.FLOW_STATE_CHANGED',
      'ORDER.CONFIRMED',
      'ORDER.FLOW_STATE_CHANGED',
      'ORDER.DISPATCHED',
      'ORDER.FLOW_STATE_CHANGED',
      'ORDER.DELIVERED',
      'ORDER.FLOW_STATE_CHANGED',
      'ORDER.PURCHASE_DECIDED',
    ],
  );
  const base = { orderId: order.orderId, orderNo: order.orderNo, testPayment: true };
  const changed = (i: number, from: string, to: string, label: string) => {
    const data = dataOf(events[i], 'ORDER.FLOW_STATE_CHANGED', i + 1);
    assert.match(data.changedAt, ISO);
    assert.equal(data, {
      orderId: order.orderId,
      orderItemIds: [item.orderItemId],
      flowId: shipping.flowId,
      flowVersion: 1,
      from,
      to,
      label,
      coreStatus: to,
      changedAt: data.changedAt,
    });
  };
  changed(1, 'PAID', 'CONFIRMED', '상품 준비중');
  assert.equal(dataOf(events[2], 'ORDER.CONFIRMED', 3), { ...base, status: 'CONFIRMED' });
  changed(3, 'CONFIRMED', 'DISPATCHED', '배송중');
  assert.equal(dataOf(events[4], 'ORDER.DISPATCHED', 5), { ...base, status: 'DISPATCHED' });
  changed(5, 'DISPATCHED', 'DELIVERED', '배송 완료');
  assert.equal(dataOf(events[6], 'ORDER.DELIVERED', 7), { ...base, status: 'DELIVERED' });
  changed(7, 'DELIVERED', 'PURCHASE_DECIDED', '구매 확정');
  const decidedEvent = dataOf(events[8], 'ORDER.PURCHASE_DECIDED', 9);
  assert.equal(decidedEvent, {
    orderId: order.orderId,
    orderNo: order.orderNo,
    orderItemId: item.orderItemId,
    status: 'PURCHASE_DECIDED',
    fulfillmentSnapshot: item.fulfillmentSnapshot,
    fulfilledAt: events[5].data.changedAt,
    testPayment: true,
  });

  const runs = ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow/runs`)).contents;
  assert.equal(
    runs.map((r: any) => [r.trigger.kind, r.trigger.key ?? null, r.actor.type, r.from, r.to]),
    [
      ['start', null, 'SYSTEM', null, 'PAID'],
      ['action', 'CONFIRM', 'SELLER', 'PAID', 'CONFIRMED'],
      ['action', 'DISPATCH', 'SELLER', 'CONFIRMED', 'DISPATCHED'],
      ['action', 'DELIVER', 'SELLER', 'DISPATCHED', 'DELIVERED'],
      ['action', 'DECIDE_PURCHASE', 'BUYER', 'DELIVERED', 'PURCHASE_DECIDED'],
    ],
  );
  assert.equal(runs[2].input, { carrier: 'CJ대한통운', trackingNo: '123456789012' });
  assert.equal(runs[2].eventIds, [events[3].id, events[4].id]);
  assert.equal(runs[2].timers, [{ transition: 3, kind: 'after', dueAt: new Date(Date.parse(runs[2].at) + 7 * 86_400_000).toISOString(), to: 'DELIVERED' }]);
  assert.is(Date.parse(runs[3].timers[0].dueAt) - Date.parse(runs[3].at), 8 * 86_400_000);
  assert.equal(ok(await api('GET', `/v1/flow-runs/${runs[2].runId}`)), runs[2]);
});

test('MANUAL: FULFILL with a note fires ORDER.FULFILLED and ORDER.DELIVERED together; the buyer-decision timer decides after 7 days', async () => {
  const { order, item } = await guestOrder(svc, api, { fulfillment: { type: 'MANUAL' } });
  const manual = ok(await api('GET', '/v1/commerce-flows')).contents[1];
  assert.equal(item.flow, { flowId: manual.flowId, version: 1, state: 'PAID', coreStatus: 'PAID' });
  assert.equal(
    ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow`)).actions.map((a: any) => a.key),
    ['FULFILL'],
  );
  fails(await api('POST', `/v1/order-items/${item.orderItemId}/confirm`), 409, 'ACTION_NOT_AVAILABLE');

  const fulfilled = ok(await api('POST', `/v1/order-items/${item.orderItemId}/fulfill`, { body: { note: '쿠폰 번호 1234-5678' } }));
  assert.equal([fulfilled.state, fulfilled.coreStatus], ['FULFILLED', 'FULFILLED']);
  assert.equal(
    fulfilled.timers.map((t: any) => [t.kind, t.to]),
    [['after', 'PURCHASE_DECIDED']],
  );
  const read = ok(await api('GET', `/v1/orders/${order.orderId}`));
  assert.equal([read.status, read.items[0].fulfillment], ['FULFILLED', { type: 'MANUAL', note: '쿠폰 번호 1234-5678' }]);

  await svc.advance(6 * 86_400);
  api = await freshApi(svc);
  assert.is(ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow`)).state, 'FULFILLED');
  await svc.advance(86_400 + 60);
  api = await freshApi(svc);
  const decided = ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow`));
  assert.equal([decided.state, decided.timers], ['PURCHASE_DECIDED', []]);
  const runs = ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow/runs`)).contents;
  assert.equal(runs.at(-1).actor.type, 'TIMER');
  assert.equal(runs.at(-1).trigger.kind, 'timer');

  const events = await hooks.forOrder(order.orderId, 6);
  assert.equal(
    events.map((e) => e.type),
    ['ORDER.PAID', 'ORDER.FLOW_STATE_CHANGED', 'ORDER.FULFILLED', 'ORDER.DELIVERED', 'ORDER.FLOW_STATE_CHANGED', 'ORDER.PURCHASE_DECIDED'],
  );
  const changedAt = events[1].data.changedAt;
  assert.equal(dataOf(events[1], 'ORDER.FLOW_STATE_CHANGED', 2), {
    orderId: order.orderId,
    orderItemIds: [item.orderItemId],
    flowId: manual.flowId,
    flowVersion: 1,
    from: 'PAID',
    to: 'FULFILLED',
    label: '제공 완료',
    coreStatus: 'FULFILLED',
    changedAt,
  });
  const supply = { orderId: order.orderId, orderNo: order.orderNo, orderItemId: item.orderItemId, fulfillmentSnapshot: { type: 'MANUAL' }, testPayment: true };
  assert.equal(dataOf(events[2], 'ORDER.FULFILLED', 3), { ...supply, status: 'FULFILLED', fulfilledAt: changedAt });
  assert.is(events[2].createdAt, events[3].createdAt);
  assert.equal(dataOf(events[3], 'ORDER.DELIVERED', 4), {
    orderId: order.orderId,
    orderNo: order.orderNo,
    status: 'FULFILLED',
    testPayment: true,
    orderItemId: item.orderItemId,
    fulfillmentSnapshot: { type: 'MANUAL' },
  });
  const byTimer = dataOf(events[4], 'ORDER.FLOW_STATE_CHANGED', 5);
  assert.equal([byTimer.from, byTimer.to, byTimer.coreStatus], ['FULFILLED', 'PURCHASE_DECIDED', 'PURCHASE_DECIDED']);
  assert.equal(dataOf(events[5], 'ORDER.PURCHASE_DECIDED', 6), { ...supply, status: 'PURCHASE_DECIDED', fulfilledAt: changedAt });
});

test('a member decides the purchase of their own item; another member and guests cannot', async () => {
  const p = await createProduct(api, { fulfillment: { type: 'MANUAL' } });
  const { order, buyer } = await memberOrder(svc, api, 'decider', [p]);
  const itemId = order.items[0].orderItemId;
  ok(await api('POST', `/v1/order-items/${itemId}/fulfill`, { body: {} }));
  const other = await memberOrder(svc, api, 'stranger', [await createProduct(api, { fulfillment: { type: 'MANUAL' } })]);
  fails(await other.buyer('POST', `/storefront/v1/me/order-items/${itemId}/actions/DECIDE_PURCHASE`), 404, 'ORDER_ITEM_NOT_FOUND');
  fails(await buyerApi(svc, svc.storeId)('POST', `/storefront/v1/me/order-items/${itemId}/actions/DECIDE_PURCHASE`), 401, 'UNAUTHORIZED');
  fails(await buyer('POST', `/storefront/v1/me/order-items/${itemId}/actions/FULFILL`, { body: { input: { note: 'x' } } }), 409, 'ACTION_NOT_AVAILABLE');
  const decided = ok(await buyer('POST', `/storefront/v1/me/order-items/${itemId}/actions/DECIDE_PURCHASE`));
  assert.equal([decided.state, decided.actions], ['PURCHASE_DECIDED', []]);
  const runs = ok(await api('GET', `/v1/order-items/${itemId}/flow/runs`)).contents;
  assert.equal(runs.at(-1).actor.type, 'BUYER');
  fails(await buyer('POST', `/storefront/v1/me/order-items/${itemId}/actions/DECIDE_PURCHASE`), 409, 'ACTION_NOT_AVAILABLE');
});

test("progressStatus is the most advanced live item's status while status is the least advanced one", async () => {
  const [a, b] = [await createProduct(api), await createProduct(api)];
  const { order } = await memberOrder(svc, api, 'two-items', [a, b]);
  const [first, second] = order.items.map((i: any) => i.orderItemId);
  const progress = async () => {
    const o = ok(await api('GET', `/v1/orders/${order.orderId}`));
    return [o.status, o.progressStatus];
  };
  assert.equal(await progress(), ['PAID', 'PAID']);
  ok(await api('POST', `/v1/order-items/${first}/confirm`));
  assert.equal(await progress(), ['PAID', 'CONFIRMED'], 'one item ahead: the order has begun to move');
  ok(await api('POST', `/v1/order-items/${second}/confirm`));
  assert.equal(await progress(), ['CONFIRMED', 'CONFIRMED']);
});

test.run();
