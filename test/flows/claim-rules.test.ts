/**
 * What a flow's actions say about claims (spec 02 §4.4): a buyer action with authority IMMEDIATE_CANCEL makes
 * the buyer's cancel apply at once where it is offered, and the check warns of the authority elsewhere;
 * `requires.groupClaim` CONTINUE lets the rest of a progression group go on while one item's cancel is open
 * (and the canceled item leaves the group), PAUSE — the default — stops the group's deadlines and actions.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Definition } from '../../src/modules/flows/definition.js';
import { startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct, fails, freshApi, GUEST, guestOrder, memberOrder, ok } from '../helpers/flows.js';
import { buyerApi } from '../helpers/checkout.js';

let svc: TestService;
let api: Api;
test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

const DAY = 86_400;
const flowOf = async (id: string) => ok(await api('GET', `/v1/order-items/${id}/flow`));

/** Creates the flow through the API and publishes it; answers its id. */
async function published(name: string, definition: Definition) {
  const flow = ok(await api('POST', '/v1/commerce-flows', { body: { name, kind: 'SHIPPING', definition } }), 201);
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  return flow.flowId as string;
}

/** Made to order: the buyer may cancel at once while PAID (the CANCEL action), only ask once making started. */
const CANCELABLE: Definition = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID', claims: { cancel: 'REQUEST' } },
    MAKING: { label: '제작중', coreStatus: 'CONFIRMED', claims: { cancel: 'REQUEST' } },
    BUYER_CANCELED: { label: '구매자 취소', coreStatus: 'CANCELED', final: true },
    SHIPPED: { label: '발송', coreStatus: 'DISPATCHED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'MAKING', on: { action: 'START' } },
    { from: 'PAID', to: 'BUYER_CANCELED', on: { action: 'CANCEL' } },
    { from: 'MAKING', to: 'SHIPPED', on: { action: 'SHIP' } },
  ],
  actions: {
    START: { label: '제작 시작', actor: 'SELLER', scope: 'ITEM' },
    CANCEL: { label: '주문 취소', actor: 'BUYER', scope: 'ITEM', authority: 'IMMEDIATE_CANCEL' },
    SHIP: { label: '발송', actor: 'SELLER', scope: 'ITEM' },
  },
};

const guestClaim = (orderId: string, orderItemId: string, path = 'claims') =>
  buyerApi(svc, svc.storeId)('POST', `/storefront/v1/guest/orders/${orderId}/items/${orderItemId}/${path}`, {
    body: { orderPassword: GUEST.orderPassword, claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND' },
  });

test('IMMEDIATE_CANCEL: where the buyer cancel action is offered the cancel applies at once; elsewhere the state decides', async () => {
  const flowId = await published('즉시 취소 제작', CANCELABLE);
  const early = await guestOrder(svc, api, { flowId });
  assert.is(ok(await guestClaim(early.order.orderId, early.item.orderItemId, 'claims/preview')).decision, 'IMMEDIATE');
  const canceled = ok(await guestClaim(early.order.orderId, early.item.orderItemId), 201);
  assert.equal([canceled.approved, canceled.status], [true, 'COMPLETED']);
  assert.is((await flowOf(early.item.orderItemId)).coreStatus, 'CANCELED');

  const late = await guestOrder(svc, api, { flowId });
  ok(await api('POST', `/v1/order-items/${late.item.orderItemId}/actions/START`, { body: {} }));
  const asked = ok(await guestClaim(late.order.orderId, late.item.orderItemId), 201);
  assert.equal([asked.approved, asked.status], [false, 'REQUESTED']);
});

const stockOf = async (productId: string) => ok(await api('GET', `/v1/products/${productId}`)).variants[0].stockQuantity as number;
const claimsOf = async (orderId: string) => ok(await api('GET', `/v1/claims?orderId=${orderId}`)).contents;
const refundsOf = async (order: any, claimId: string) =>
  ok(await api('GET', `/v1/payments/${order.payment.paymentId}`)).refunds.filter((r: any) => r.claimId === claimId);

test('IMMEDIATE_CANCEL run as a buyer flow action files the cancel as a claim approved at once, refund and stock as the claim endpoint', async () => {
  const flowId = await published('즉시 취소 작업', CANCELABLE);
  const guest = await guestOrder(svc, api, { flowId });
  const before = await stockOf(guest.product.productId);
  const ran = ok(
    await buyerApi(svc, svc.storeId)('POST', `/storefront/v1/guest/orders/${guest.order.orderId}/items/${guest.item.orderItemId}/actions/CANCEL`, {
      body: { orderPassword: GUEST.orderPassword },
    }),
  );
  assert.equal([ran.coreStatus, ran.actions, ran.claim.approved, ran.claim.status], ['CANCELED', [], true, 'COMPLETED']);
  const [claim] = await claimsOf(guest.order.orderId);
  assert.equal(
    [claim.claimId, claim.claimType, claim.status, claim.approved, claim.quantity, claim.refundAmount],
    [ran.claim.claimId, 'CANCEL', 'COMPLETED', true, 1, guest.order.payment.amount],
  );
  assert.equal(
    (await refundsOf(guest.order, claim.claimId)).map((r: any) => [r.status, r.amount]),
    [['COMPLETED', claim.refundAmount - claim.deliveryFeeChargeAmount - claim.deductAmount]],
  );
  assert.is(await stockOf(guest.product.productId), before + 1);
  assert.is(ok(await api('GET', `/v1/orders/${guest.order.orderId}`)).items[0].status, 'CANCELED');

  // A member (delegated buyer token) cancelling the whole order through the order action: one claim per item.
  const a = await createProduct(api, { flowId });
  const { order, buyer } = await memberOrder(svc, api, 'immediatecancelaction', [a]);
  const whole = ok(await buyer('POST', `/storefront/v1/me/orders/${order.orderId}/actions/CANCEL`, { body: {} }));
  assert.equal(
    whole.items.map((i: any) => [i.coreStatus, i.claim.approved]),
    [['CANCELED', true]],
  );
  const [memberClaim] = await claimsOf(order.orderId);
  assert.equal([memberClaim.status, memberClaim.approved], ['COMPLETED', true]);
  assert.equal(
    (await refundsOf(order, memberClaim.claimId)).map((r: any) => r.status),
    ['COMPLETED'],
  );
});

test('a buyer cancel action without the IMMEDIATE_CANCEL authority moves the item as before, with no claim', async () => {
  const plain: Definition = { ...CANCELABLE, actions: { ...CANCELABLE.actions, CANCEL: { label: '주문 취소', actor: 'BUYER', scope: 'ITEM' } } };
  const flowId = await published('취소 작업 권한 없음', plain);
  const guest = await guestOrder(svc, api, { flowId });
  const ran = ok(
    await buyerApi(svc, svc.storeId)('POST', `/storefront/v1/guest/orders/${guest.order.orderId}/items/${guest.item.orderItemId}/actions/CANCEL`, {
      body: { orderPassword: GUEST.orderPassword },
    }),
  );
  assert.equal([ran.state, ran.coreStatus, ran.claim], ['BUYER_CANCELED', 'CANCELED', undefined]);
  assert.equal(await claimsOf(guest.order.orderId), []);
});

test('the check warns of IMMEDIATE_CANCEL on an action that is not a buyer cancel', async () => {
  const definition: Definition = {
    ...CANCELABLE,
    actions: {
      ...CANCELABLE.actions,
      START: { ...CANCELABLE.actions.START, authority: 'IMMEDIATE_CANCEL' },
      SHIP: { label: '발송', actor: 'BUYER', scope: 'ITEM', authority: 'IMMEDIATE_CANCEL' },
    },
  };
  const flow = ok(await api('POST', '/v1/commerce-flows', { body: { name: '잘못된 권한', kind: 'SHIPPING', definition } }), 201);
  const check = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`));
  assert.equal(
    check.warnings.filter((w: any) => w.code === 'AUTHORITY_NOT_BUYER_CANCEL').map((w: any) => w.path),
    ['actions.START.authority', 'actions.SHIP.authority'],
  );
  assert.equal(check.errors, []);
});

/** Two made-to-order items moved as one group; making ends by SHIP or after 3 days. */
const grouped = (groupClaim?: 'CONTINUE' | 'PAUSE'): Definition => ({
  progression: 'ORDER',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID', claims: { cancel: 'IMMEDIATE' } },
    MAKING: { label: '제작중', coreStatus: 'CONFIRMED', claims: { cancel: 'REQUEST' } },
    SHIPPED: { label: '발송', coreStatus: 'DISPATCHED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'MAKING', on: { action: 'START' } },
    { from: 'MAKING', to: 'SHIPPED', on: { action: 'SHIP' } },
    { from: 'MAKING', to: 'SHIPPED', on: { timer: { after: 'P3D' } } },
  ],
  actions: {
    START: { label: '제작 시작', actor: 'SELLER', scope: 'ORDER' },
    SHIP: { label: '발송', actor: 'SELLER', scope: 'ITEM', ...(groupClaim && { requires: { groupClaim } }) },
  },
});

/** A member's order of two items of the flow, started (both MAKING), and a cancel request on the first. */
async function groupWithCancelRequest(name: string, definition: Definition) {
  const flowId = await published(name, definition);
  const a = await createProduct(api, { flowId });
  const b = await createProduct(api, { flowId });
  const { order, buyer } = await memberOrder(svc, api, name.replace(/\W/g, '') || `m${Date.now()}`, [a, b]);
  ok(await api('POST', `/v1/orders/${order.orderId}/actions/START`, { body: {} }));
  const [first, second] = order.items.map((i: any) => i.orderItemId as string);
  const claim = ok(
    await buyer('POST', `/storefront/v1/me/order-items/${first}/claims`, { body: { claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND' } }),
    201,
  );
  assert.is(claim.status, 'REQUESTED');
  return { order, first, second, claim, groupId: (await flowOf(first)).groupId as string };
}

test('groupClaim CONTINUE: the others keep their deadline and actions, the canceled item leaves the group, the rest proceeds', async () => {
  const { first, second, claim, groupId } = await groupWithCancelRequest('groupcontinue', grouped('CONTINUE'));
  const other = await flowOf(second);
  assert.equal(
    other.timers.map((t: any) => t.status),
    ['PENDING'],
  );
  assert.equal(
    other.actions.map((a: any) => [a.key, a.enabled]),
    [['SHIP', true]],
  );
  // The claimed item itself is held: its own deadline pauses.
  assert.equal(
    (await flowOf(first)).timers.map((t: any) => t.status),
    ['PAUSED'],
  );

  // The deadline comes while the claim is open: the others ship, the claimed item stays where the claim found it.
  await svc.advance(3 * DAY + 60);
  api = await freshApi(svc);
  const after = await flowOf(second);
  assert.equal([after.state, after.coreStatus], ['SHIPPED', 'DISPATCHED']);
  const held = await flowOf(first);
  assert.equal([held.state, held.timers.map((t: any) => t.status)], ['MAKING', ['PAUSED']]);

  assert.is(ok(await api('POST', `/v1/claims/${claim.claimId}/approve`, { body: {} })).status, 'COMPLETED');
  const left = await flowOf(first);
  assert.equal([left.coreStatus, left.groupId], ['CANCELED', null]);
  assert.is((await flowOf(second)).groupId, groupId);
});

test('groupClaim PAUSE (default): the group stops its deadlines and actions until the claim is handled', async () => {
  const { first, second, claim, groupId } = await groupWithCancelRequest('grouppause', grouped());
  const other = await flowOf(second);
  assert.equal(
    other.timers.map((t: any) => t.status),
    ['PAUSED'],
  );
  assert.equal(
    other.actions.map((a: any) => [a.key, a.enabled]),
    [['SHIP', false]],
  );
  fails(await api('POST', `/v1/order-items/${second}/actions/SHIP`, { body: {} }), 409, 'FLOW_MOVE_NOT_ALLOWED');

  assert.is(ok(await api('POST', `/v1/claims/${claim.claimId}/approve`, { body: {} })).status, 'COMPLETED');
  assert.is((await flowOf(first)).groupId, groupId);
  const resumed = await flowOf(second);
  assert.equal(
    resumed.timers.map((t: any) => t.status),
    ['PENDING'],
  );
  assert.equal(
    resumed.actions.map((a: any) => [a.key, a.enabled]),
    [['SHIP', true]],
  );
});

test.run();
