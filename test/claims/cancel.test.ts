/**
 * Seller cancels over HTTP: preview and cancel agree to the won with ORDER.CANCELED, the refund record and
 * the sandbox gateway's canceled amount; partial then full cancels of an order paid with a coupon, points
 * and a card; stock, points and (for the whole order) the coupon come back; the payment reads
 * PARTIALLY_REFUNDED then CANCELED; refusals after dispatch; agents need approval; tenancy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eq } from 'drizzle-orm';
import { retryRefunds } from '../../src/modules/checkout/refunds.js';
import { paymentRefunds } from '../../src/modules/checkout/schema.js';
import { gatewayFor } from '../../src/modules/payments/checkout-api.js';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, startGuestPayment } from '../helpers/checkout.js';
import { ADDRESS, member, RETURN_URL, simulate } from '../helpers/members.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
let api: Api;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  api = svc.api;
  await connectSandbox(api);
  receiver = await startReceiver();
  ok(await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.CANCELED'] } }), 201);
  ok(
    await api('PUT', '/v1/point-policy', {
      body: { earnEnabled: false, defaultEarnRateBp: 100, validityDays: 365, useEnabled: true, minUseAmount: 0, maxUseRateBp: 10000 },
    }),
  );
});
test.after(async () => {
  await receiver.close();
  await svc.close();
});

async function canceledEvents(orderId: string, n: number) {
  for (let i = 0; i < 200; i++) {
    const mine = receiver.received
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.data.orderId === orderId)
      .sort((a, b) => a.sequence - b.sequence);
    if (mine.length >= n) return mine;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${n} ORDER.CANCELED of ${orderId}`);
}

/** A member's order: 3 mugs (10,000 each) and 1 plate (20,000) shipped together (3,000), a 5,000 coupon and 4,000 points. */
async function placeOrder() {
  const m = await member(svc, api, 'canceled');
  const mug = await createProduct(api, { name: '머그', salePrice: 10000, stockQuantity: 10 });
  const plate = await createProduct(api, { name: '접시', salePrice: 20000, stockQuantity: 10 });
  const coupon = ok(await api('POST', '/v1/coupons', { body: { name: '5천원', issueType: 'MANUAL', benefit: { method: 'AMOUNT', value: 5000 } } }), 201);
  const code = ok(await api('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: [m.customerId] } })).granted[0].couponItem.code;
  ok(
    await api('POST', `/v1/customers/${m.customerId}/points`, {
      body: { amount: 10000, reason: '테스트', expiresAt: new Date(svc.services.clock.now() + 30 * 86_400_000).toISOString() },
    }),
    201,
  );
  ok(await m.buyer('POST', '/storefront/v1/cart/items', { body: { productId: mug.productId, optionId: mug.optionId, quantity: 3 } }), 201);
  ok(await m.buyer('POST', '/storefront/v1/cart/items', { body: { productId: plate.productId, optionId: plate.optionId, quantity: 1 } }), 201);
  const lines = ok(await m.buyer('GET', '/storefront/v1/cart')).items.map((l: any) => l.cartItemId);
  const sheet = ok(await m.buyer('POST', '/storefront/v1/checkout', { body: { cartItemIds: lines } }), 201);
  const start = ok(
    await m.buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, {
      body: { option: 'pg_one:CARD', returnUrl: RETURN_URL, shippingAddress: ADDRESS, coupons: [{ code }], pointAmount: 4000 },
    }),
    201,
  );
  const done = ok(await simulate(m.buyer, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  const [mugItem, plateItem] = order.items;
  return { m, order, mugItem, plateItem, mug, plate, code, paymentId: start.paymentId };
}

const stockOf = async (productId: string) => ok(await api('GET', `/v1/products/${productId}`)).stockQuantity;
const balanceOf = async (customerId: string) => ok(await api('GET', `/v1/customers/${customerId}/points`)).balance;

test('partial then full cancel: preview = answer = event = refund = gateway; stock, points and the coupon come back', async () => {
  const o = await placeOrder();
  // Paid: 30,000 + 20,000 + 3,000 shipping − 5,000 coupon − 4,000 points = 44,000 by card.
  assert.equal([o.order.amounts.totalAmount, o.order.payment.amount], [44000, 44000]);
  assert.equal(
    o.order.items.map((i: any) => [i.quantity, i.couponDiscountAmount]),
    [
      [3, 3000],
      [1, 2000],
    ],
  );
  assert.is(await balanceOf(o.m.customerId), 6000);

  const preview = ok(await api('GET', `/v1/order-items/${o.mugItem.orderItemId}/cancel-preview`, { query: { quantity: 1 } }));
  // One mug: 10,000 less its third of the mug's 3,000 coupon share; points first (4,000), the rest by card.
  assert.equal(preview, {
    quantity: 1,
    refundAmount: 9000,
    itemRefundAmount: 9000,
    deliveryFeeRefundAmount: 0,
    deliveryFeeChargeAmount: 0,
    pointRefundAmount: 4000,
    cashRefundAmount: 5000,
  });
  const first = ok(
    await api('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK', detail: '재고 착오' } }),
  );
  assert.equal([first.amounts, first.itemStatus, first.canceledQuantity, first.orderStatus, first.refundStatus], [preview, 'PAID', 1, 'PAID', 'COMPLETED']);
  const [event] = await canceledEvents(o.order.orderId, 1);
  assert.equal(event.data, {
    orderId: o.order.orderId,
    orderNo: o.order.orderNo,
    orderItemId: o.mugItem.orderItemId,
    status: 'PAID',
    itemStatus: 'PAID',
    reason: 'OUT_OF_STOCK',
    quantity: 1,
    canceledQuantity: 1,
    refundAmount: 9000,
    deliveryFeeRefundAmount: 0,
    deliveryFeeChargeAmount: 0,
    testPayment: true,
  });
  assert.is(await stockOf(o.mug.productId), 8);
  assert.is(await balanceOf(o.m.customerId), 10000);
  const partly = ok(await api('GET', `/v1/payments/${o.paymentId}`));
  assert.equal(
    [partly.status, partly.refunds.map((r: any) => [r.amount, r.pointRefundAmount, r.status, r.orderItemIds])],
    ['PARTIALLY_REFUNDED', [[5000, 4000, 'COMPLETED', [o.mugItem.orderItemId]]]],
  );

  fails(await api('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 3, reason: 'ETC' } }), 400, 'VALIDATION_FAILED');
  fails(await api('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'WHATEVER' } }), 400, 'VALIDATION_FAILED');
  // Without a quantity the preview is of the whole remaining quantity (the spec's endpoint has no parameter).
  const whole = ok(await api('GET', `/v1/order-items/${o.mugItem.orderItemId}/cancel-preview`));
  assert.equal([whole.quantity, whole.refundAmount], [2, 18000]);
  const rest = ok(await api('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 2, reason: 'ETC' } }));
  assert.equal([rest.amounts.refundAmount, rest.amounts.cashRefundAmount, rest.itemStatus], [18000, 18000, 'CANCELED']);
  assert.equal(rest.amounts, whole);
  fails(await api('GET', `/v1/order-items/${o.mugItem.orderItemId}/cancel-preview`), 409, 'INVALID_STATUS');
  assert.equal(ok(await api('GET', `/v1/order-items/${o.plateItem.orderItemId}/cancel-preview`)).refundAmount, 21000);
  const plate = ok(await api('POST', `/v1/order-items/${o.plateItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'DELIVERY_IMPOSSIBLE' } }));
  // The plate is the group's last item: its 18,000 and the 3,000 shipping come back.
  assert.equal([plate.amounts.refundAmount, plate.amounts.deliveryFeeRefundAmount, plate.itemStatus, plate.orderStatus], [21000, 3000, 'CANCELED', 'CANCELED']);
  const events = await canceledEvents(o.order.orderId, 3);
  assert.equal(
    events.map((e) => [e.data.itemStatus, e.data.status, e.data.refundAmount]),
    [
      ['PAID', 'PAID', 9000],
      ['CANCELED', 'PAID', 18000],
      ['CANCELED', 'CANCELED', 21000],
    ],
  );

  const payment = ok(await api('GET', `/v1/payments/${o.paymentId}`));
  assert.is(payment.status, 'CANCELED');
  assert.is(
    payment.refunds.reduce((n: number, r: any) => n + r.amount, 0),
    44000,
  );
  const attempt = payment.attempts.find((a: any) => a.status === 'APPROVED');
  const gateway = await gatewayFor(svc.services, svc.storeId, 'pg_one');
  const view = await gateway.lookup({
    pgPaymentKey: (await svc.services.db.$client.prepare('select pg_payment_key from payment_attempts where id = ?').pluck().get(attempt.attemptId)) as string,
    pgOrderId: attempt.pgOrderId,
  });
  assert.equal([view.status, view.canceledAmount], ['CANCELED', 44000]);
  assert.equal([await stockOf(o.mug.productId), await stockOf(o.plate.productId)], [10, 10]);
  const order = ok(await api('GET', `/v1/orders/${o.order.orderId}`));
  assert.equal([order.status, order.payment.pointRefundedAmount, order.items.map((i: any) => i.status)], ['CANCELED', 4000, ['CANCELED', 'CANCELED']]);
  const coupon = ok(await o.m.buyer('GET', '/storefront/v1/me/coupons')).contents.find((i: any) => i.code === o.code);
  assert.equal([coupon.usedAt, coupon.orderId], [null, null]);

  // A canceled item takes no more flow actions or cancels.
  fails(await api('POST', `/v1/order-items/${o.mugItem.orderItemId}/confirm`), 409, 'ACTION_NOT_AVAILABLE');
  fails(await api('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'ETC' } }), 409, 'INVALID_STATUS');
  assert.equal(ok(await api('GET', `/v1/order-items/${o.mugItem.orderItemId}/flow`)).actions, []);
});

test('refusals after dispatch; agents wait for approval with the amounts in the dry run; another store cannot cancel', async () => {
  const o = await placeOrder();
  ok(await api('POST', `/v1/order-items/${o.plateItem.orderItemId}/confirm`));
  ok(await api('POST', `/v1/order-items/${o.plateItem.orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: '1' } }));
  const late = await api('POST', `/v1/order-items/${o.plateItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'ETC' } });
  fails(late, 409, 'INVALID_STATUS');
  assert.equal(late.body.error.details, { status: 'DISPATCHED', reason: 'DISPATCHED' });
  fails(await api('GET', `/v1/order-items/${o.plateItem.orderItemId}/cancel-preview`, { query: { quantity: 1 } }), 409, 'INVALID_STATUS');
  fails(await api('GET', `/v1/order-items/${o.plateItem.orderItemId}/cancel-preview`), 409, 'INVALID_STATUS');

  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['order:rw'], agent: true }), storeId: svc.storeId });
  const dry = ok(
    await agent('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'ETC' }, headers: { 'x-svc-dry-run': '1' } }),
  );
  assert.equal([dry.decision, dry.preview.facts.amounts.refundAmount], ['APPROVAL_REQUIRED', 9000]);
  const pending = await agent('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'ETC' } });
  assert.equal([pending.status, pending.body.meta.code], [202, 'APPROVAL_REQUIRED']);
  const stranger = await newSellerWithStore(svc, 'cancel');
  const poke = await stranger.api('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'ETC' } });
  assert.ok([403, 404].includes(poke.status));
  assert.is(ok(await api('GET', `/v1/orders/${o.order.orderId}`)).items[0].canceledQuantity, 0);
  const reader = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['order:r'] }), storeId: svc.storeId });
  assert.is(ok(await reader('GET', `/v1/order-items/${o.mugItem.orderItemId}/cancel-preview`, { query: { quantity: 3 } })).refundAmount, 27000);
  fails(await reader('POST', `/v1/order-items/${o.mugItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'ETC' } }), 403, 'INSUFFICIENT_ROLE');
});

test('a refund the gateway holds (REFUND_HELD) waits with its reason and heldRefundAmount; process retries it once', async () => {
  const o = await placeOrder();
  const held = await fetch(`${svc.url}/_dev/v1/payments/${o.paymentId}/simulate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: 'REFUND_HELD' }),
  });
  assert.is(held.status, 200);
  const canceled = ok(await api('POST', `/v1/order-items/${o.plateItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  assert.equal([canceled.refundStatus, canceled.amounts.cashRefundAmount], ['HELD', 14000]);
  const payment = ok(await api('GET', `/v1/payments/${o.paymentId}`));
  const refund = payment.refunds.find((r: any) => r.refundId === canceled.refundId);
  assert.equal([refund.status, typeof refund.heldReason, payment.heldRefundAmount, payment.status], ['HELD', 'string', 14000, 'APPROVED']);
  const processed = ok(await api('POST', `/v1/payments/refunds/${canceled.refundId}/process`));
  assert.equal([processed.status, processed.heldReason, processed.amount], ['COMPLETED', null, 14000]);
  fails(await api('POST', `/v1/payments/refunds/${canceled.refundId}/process`), 409, 'INVALID_STATUS');
  fails(await api('POST', '/v1/payments/refunds/rfd_nope/process'), 404, 'REFUND_NOT_FOUND');
  const after = ok(await api('GET', `/v1/payments/${o.paymentId}`));
  assert.equal([after.heldRefundAmount, after.status], [0, 'PARTIALLY_REFUNDED']);
});

test('a refund left PROCESSING goes to the gateway once, however many refunds jobs take it up at the same moment', async () => {
  const o = await placeOrder();
  await fetch(`${svc.url}/_dev/v1/payments/${o.paymentId}/simulate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ outcome: 'REFUND_HELD' }),
  });
  const canceled = ok(await api('POST', `/v1/order-items/${o.plateItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  // A `process` whose service stopped between taking the refund out of HELD and calling the gateway.
  await svc.services.db.update(paymentRefunds).set({ status: 'PROCESSING' }).where(eq(paymentRefunds.id, canceled.refundId)).run();
  // A minute later the refunds jobs of two processes look at once (each awaits the gateway before the other is done).
  const later = svc.services.clock.now() + 61_000;
  const handled = await Promise.all([retryRefunds(svc.services, later), retryRefunds(svc.services, later)]);
  assert.equal(handled.sort(), [0, 1]);
  const payment = ok(await api('GET', `/v1/payments/${o.paymentId}`));
  assert.equal(
    payment.refunds.map((r: any) => [r.status, r.amount]),
    [['COMPLETED', 14000]],
  );
  const attempt = payment.attempts.find((a: any) => a.status === 'APPROVED');
  const view = await (
    await gatewayFor(svc.services, svc.storeId, 'pg_one')
  ).lookup({
    pgPaymentKey: (await svc.services.db.$client.prepare('select pg_payment_key from payment_attempts where id = ?').pluck().get(attempt.attemptId)) as string,
    pgOrderId: attempt.pgOrderId,
  });
  assert.is(view.canceledAmount, 14000, 'the gateway canceled the money once');
});

test('cash receipts follow refunds: issued for the payment, reissued for the remainder after a partial cancel, canceled with the last', async () => {
  const guest = buyerApi(svc, svc.storeId);
  const p = await createProduct(api, { name: '현금영수증 상품', salePrice: 10000, stockQuantity: 10 });
  const sheet = ok(
    await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId: p.productId, optionId: p.optionId, quantity: 2 } } }),
    201,
  );
  const start = ok(
    await startGuestPayment(guest, sheet, { option: 'pg_one:BANK_TRANSFER', cashReceipt: { type: 'INCOME_DEDUCTION', identityNumber: '010-5555-6666' } }),
    201,
  );
  const done = ok(await simulate(guest, start.paymentId, 'APPROVE'));
  const receipt = async () => ok(await api('GET', `/v1/orders/${done.orderId}`)).payment.cashReceipt;
  ok(await api('POST', '/_dev/v1/jobs/run'));
  const issued = await receipt();
  assert.equal([issued.status, issued.amount], ['ISSUED', 23000]);
  const item = ok(await api('GET', `/v1/orders/${done.orderId}`)).items[0];
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  // Pending again, then reissued by the job runner (its loop may get there first).
  ok(await api('POST', '/_dev/v1/jobs/run'));
  const reissued = await receipt();
  assert.equal([reissued.status, reissued.amount], ['ISSUED', 13000]);
  assert.is.not(reissued.receiptNo, issued.receiptNo);
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  assert.is((await receipt()).status, 'ISSUE_CANCELED');
});

test.run();
