/**
 * Buyers' claims through the default SHIPPING flow over HTTP: an IMMEDIATE cancel while PAID, a REQUEST
 * cancel once CONFIRMED (approved with a deduction, concurrent approvals run once), NONE after dispatch,
 * a return after delivery (timers paused while open, pickup, completion with the refund and the stock),
 * the seller's-fault return without shipping, an exchange (stock out and in at the right steps), a
 * withdrawal by WITHDRAW_REQUEST, PERIOD_EXPIRED, guests, CLAIM.* events, agents and tenancy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, GUEST } from '../helpers/checkout.js';
import { longLivedApi, member, pay, signIn, simulate } from '../helpers/members.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
let api: Api;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  await connectSandbox(svc.api);
  api = await longLivedApi(svc);
  receiver = await startReceiver();
  ok(
    await svc.api('POST', '/v1/webhooks', {
      body: { url: receiver.url, eventTypes: ['CLAIM.CANCEL_REQUESTED', 'CLAIM.RETURN_REQUESTED', 'CLAIM.EXCHANGE_REQUESTED', 'CLAIM.COMPLETED'] },
    }),
    201,
  );
});
test.after(async () => {
  await receiver.close();
  await svc.close();
});

async function claimEvents(claimId: string, n: number) {
  for (let i = 0; i < 200; i++) {
    const mine = receiver.received
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.data.claimId === claimId)
      .sort((a, b) => a.sequence - b.sequence);
    if (mine.length >= n) return mine;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${n} events of ${claimId}`);
}

/** A member's paid order of `quantity` units of a 10,000 product with two options (3,000 shipping). */
async function bought(label: string, quantity = 1) {
  const m = await member(svc, api, label);
  const product = ok(
    await api('POST', '/v1/products', {
      body: {
        name: `${label} 셔츠`,
        salePrice: 10000,
        options: [{ name: '사이즈', values: ['S', 'M'] }],
        variants: [
          { optionValues: ['S'], stockQuantity: 10 },
          { optionValues: ['M'], stockQuantity: 10 },
        ],
      },
    }),
    201,
  );
  const [small, medium] = product.variants;
  ok(await m.buyer('POST', '/storefront/v1/cart/items', { body: { productId: product.productId, optionId: small.variantId, quantity } }), 201);
  const lines = ok(await m.buyer('GET', '/storefront/v1/cart')).items.map((l: any) => l.cartItemId);
  const sheet = ok(await m.buyer('POST', '/storefront/v1/checkout', { body: { cartItemIds: lines } }), 201);
  const done = ok(await simulate(m.buyer, ok(await pay(m.buyer, sheet, {}), 201).paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  return { ...m, order, item: order.items[0], product, small, medium };
}
const claim = (buyer: Api, orderItemId: string, body: Record<string, unknown>) =>
  buyer('POST', `/storefront/v1/me/order-items/${orderItemId}/claims`, { body });
const variantStock = async (productId: string, variantId: string) =>
  ok(await api('GET', `/v1/products/${productId}`)).variants.find((v: any) => v.variantId === variantId).stockQuantity;
const toDelivered = async (id: string) => {
  ok(await api('POST', `/v1/order-items/${id}/confirm`));
  ok(await api('POST', `/v1/order-items/${id}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: '9' } }));
  ok(await api('POST', `/v1/order-items/${id}/delivered`));
};

test('cancel: IMMEDIATE while PAID completes at once; REQUEST once CONFIRMED waits, approval with a deduction runs once; NONE after dispatch', async () => {
  const a = await bought('immediate', 2);
  const preview = ok(
    await a.buyer('POST', `/storefront/v1/me/order-items/${a.item.orderItemId}/claims/preview`, {
      body: { claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND' },
    }),
  );
  assert.equal(preview, {
    claimType: 'CANCEL',
    quantity: 1,
    decision: 'IMMEDIATE',
    refundAmount: 10000,
    deliveryFeeRefundAmount: 0,
    deliveryFeeChargeAmount: 0,
    deductAmount: 0,
    pointRefundAmount: 0,
    cashRefundAmount: 10000,
  });
  const now = ok(await claim(a.buyer, a.item.orderItemId, { claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND' }), 201);
  assert.equal([now.status, now.approved, now.refundAmount, now.refundStatus, now.claimNo], ['COMPLETED', true, 10000, 'COMPLETED', a.order.orderNo * 100 + 1]);
  const events = await claimEvents(now.claimId, 2);
  assert.equal(
    events.map((e) => [e.type, e.sequence, e.data.status]),
    [
      ['CLAIM.CANCEL_REQUESTED', 1, 'REQUESTED'],
      ['CLAIM.COMPLETED', 2, 'COMPLETED'],
    ],
  );
  assert.equal(Object.keys(events[1].data).sort(), [
    'claimId',
    'claimNo',
    'claimType',
    'deductAmount',
    'deliveryFeeChargeAmount',
    'deliveryFeeRefundAmount',
    'orderId',
    'orderItemId',
    'quantity',
    'refundAmount',
    'status',
    'testPayment',
  ]);
  assert.is(ok(await api('GET', `/v1/orders/${a.order.orderId}`)).items[0].canceledQuantity, 1);

  const b = await bought('request');
  ok(await api('POST', `/v1/order-items/${b.item.orderItemId}/confirm`));
  const asked = ok(await claim(b.buyer, b.item.orderItemId, { claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND', detail: '마음이 바뀜' }), 201);
  assert.equal([asked.status, asked.approved, asked.refundAmount, asked.refundStatus], ['REQUESTED', false, 13000, null]);
  fails(await claim(b.buyer, b.item.orderItemId, { claimType: 'CANCEL', quantity: 1, reason: 'ETC' }), 409, 'INVALID_STATUS');
  const flow = ok(await api('GET', `/v1/order-items/${b.item.orderItemId}/flow`));
  assert.equal(
    flow.actions.map((x: any) => [x.key, x.enabled]),
    [
      ['DISPATCH', false],
      ['WITHDRAW_REQUEST', true],
    ],
  );
  const [r1, r2] = await Promise.all([1, 2].map(() => api('POST', `/v1/claims/${asked.claimId}/approve`, { body: { deductAmount: 1000 } })));
  assert.equal([r1.status, r2.status].sort(), [200, 409]);
  const approved = (r1.status === 200 ? r1 : r2).data;
  // Spec 01 §6.2 rule 4: the claim's refundAmount keeps the shipping refund and has the deduction not taken off.
  assert.equal([approved.status, approved.refundAmount, approved.deductAmount, approved.deliveryFeeRefundAmount], ['COMPLETED', 13000, 1000, 3000]);
  const refunds = ok(await svc.api('GET', `/v1/payments/${b.order.payment.paymentId}`)).refunds.filter((r: any) => r.claimId === asked.claimId);
  assert.equal(
    refunds.map((r: any) => r.amount + r.pointRefundAmount),
    [12000],
  );
  assert.is(ok(await api('GET', `/v1/orders/${b.order.orderId}`)).status, 'CANCELED');

  const c = await bought('too-late');
  ok(await api('POST', `/v1/order-items/${c.item.orderItemId}/confirm`));
  ok(await api('POST', `/v1/order-items/${c.item.orderItemId}/dispatch`, { body: { carrier: 'CJ', trackingNo: '1' } }));
  const refused = await claim(c.buyer, c.item.orderItemId, { claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND' });
  fails(refused, 409, 'INVALID_STATUS');
  assert.equal(refused.body.error.details, { status: 'DISPATCHED', claimType: 'CANCEL' });
});

test('return: requested after delivery pauses the decision timer; approve, pickup, complete refunds less return shipping and puts the stock back', async () => {
  const r = await bought('returner');
  await toDelivered(r.item.orderItemId);
  const before = await variantStock(r.product.productId, r.small.variantId);
  fails(await claim(r.buyer, r.item.orderItemId, { claimType: 'RETURN', quantity: 2, reason: 'CHANGE_OF_MIND' }), 400, 'VALIDATION_FAILED');
  const asked = ok(await claim(r.buyer, r.item.orderItemId, { claimType: 'RETURN', quantity: 1, reason: 'CHANGE_OF_MIND' }), 201);
  assert.equal([asked.status, asked.refundAmount, asked.deliveryFeeChargeAmount], ['REQUESTED', 10000, 3000]);
  const timers = ok(await api('GET', `/v1/order-items/${r.item.orderItemId}/flow`)).timers;
  assert.equal(
    timers.map((t: any) => t.status),
    ['PAUSED'],
  );
  await svc.advance(9 * 86_400);
  assert.is(ok(await api('GET', `/v1/order-items/${r.item.orderItemId}/flow`)).state, 'DELIVERED');
  fails(await api('POST', `/v1/claims/${asked.claimId}/complete`), 409, 'INVALID_STATUS');
  assert.is(ok(await api('POST', `/v1/claims/${asked.claimId}/approve`, { body: {} })).status, 'APPROVED');
  fails(await api('POST', `/v1/claims/${asked.claimId}/reship`, { body: { carrier: 'CJ', trackingNo: '1' } }), 409, 'INVALID_STATUS');
  assert.is(ok(await api('POST', `/v1/claims/${asked.claimId}/pickup-complete`)).status, 'PICKUP_COMPLETED');
  assert.is(await variantStock(r.product.productId, r.small.variantId), before);
  const done = ok(await api('POST', `/v1/claims/${asked.claimId}/complete`));
  assert.equal([done.status, done.refundAmount, done.refundStatus], ['COMPLETED', 10000, 'COMPLETED']);
  assert.is(await variantStock(r.product.productId, r.small.variantId), before + 1);
  const item = ok(await api('GET', `/v1/orders/${r.order.orderId}`)).items[0];
  assert.equal([item.status, item.returnedQuantity], ['RETURNED', 1]);
  const events = await claimEvents(asked.claimId, 2);
  assert.equal(
    events.map((e) => [e.type, e.data.refundAmount]),
    [
      ['CLAIM.RETURN_REQUESTED', 10000],
      ['CLAIM.COMPLETED', 10000],
    ],
  );

  // The seller's fault costs the buyer no shipping.
  const d = await bought('defect');
  await toDelivered(d.item.orderItemId);
  const defect = ok(await claim(d.buyer, d.item.orderItemId, { claimType: 'RETURN', quantity: 1, reason: 'DEFECTIVE' }), 201);
  assert.equal([defect.deliveryFeeChargeAmount, defect.refundAmount], [0, 10000]);
});

test('claim amounts as spec 01 §6.2 rule 4: refundAmount holds the shipping refund, charge and deduction stay apart; subtracting both gives the refund', async () => {
  const r = await bought('rule-four');
  await toDelivered(r.item.orderItemId);
  const body = { claimType: 'RETURN', quantity: 1, reason: 'CHANGE_OF_MIND' };
  const preview = ok(await r.buyer('POST', `/storefront/v1/me/order-items/${r.item.orderItemId}/claims/preview`, { body }));
  // The preview shows the claim's amounts as the record and the events do; points and cash are what goes back.
  assert.equal(
    [preview.refundAmount, preview.deliveryFeeChargeAmount, preview.deductAmount, preview.pointRefundAmount + preview.cashRefundAmount],
    [10000, 3000, 0, 7000],
  );
  const asked = ok(await claim(r.buyer, r.item.orderItemId, body), 201);
  assert.equal([asked.refundAmount, asked.deliveryFeeChargeAmount, asked.deductAmount], [10000, 3000, 0]);
  const approved = ok(await api('POST', `/v1/claims/${asked.claimId}/approve`, { body: { deductAmount: 1000 } }));
  assert.equal([approved.refundAmount, approved.deliveryFeeChargeAmount, approved.deductAmount], [10000, 3000, 1000]);
  ok(await api('POST', `/v1/claims/${asked.claimId}/pickup-complete`));
  const done = ok(await api('POST', `/v1/claims/${asked.claimId}/complete`));
  assert.equal([done.refundAmount, done.deliveryFeeChargeAmount, done.deductAmount], [10000, 3000, 1000]);

  const events = await claimEvents(asked.claimId, 2);
  assert.equal(
    events.map((e) => [e.type, e.data.refundAmount, e.data.deliveryFeeRefundAmount, e.data.deliveryFeeChargeAmount, e.data.deductAmount]),
    [
      ['CLAIM.RETURN_REQUESTED', 10000, 0, 3000, 0],
      ['CLAIM.COMPLETED', 10000, 0, 3000, 1000],
    ],
  );
  // "To reconstruct a refund subtract both charge and deduction": the refund record holds what went back.
  const final = events[1].data;
  const [refund] = ok(await api('GET', `/v1/payments/${r.order.payment.paymentId}`)).refunds.filter((x: any) => x.claimId === asked.claimId);
  assert.is(refund.amount + refund.pointRefundAmount, final.refundAmount - final.deliveryFeeChargeAmount - final.deductAmount);
  assert.is(refund.amount, 6000);

  // A cancel of the group's last unit: its shipping is in refundAmount and in deliveryFeeRefundAmount.
  const c = await bought('rule-four-cancel');
  ok(await api('POST', `/v1/order-items/${c.item.orderItemId}/confirm`));
  const cancel = ok(await claim(c.buyer, c.item.orderItemId, { claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND' }), 201);
  const canceled = ok(await api('POST', `/v1/claims/${cancel.claimId}/approve`, { body: { deductAmount: 500 } }));
  const [requested, completed] = await claimEvents(cancel.claimId, 2);
  assert.equal(
    [requested.data.refundAmount, completed.data.refundAmount, completed.data.deliveryFeeRefundAmount, completed.data.deductAmount, canceled.refundAmount],
    [13000, 13000, 3000, 500, 13000],
  );
  const [cancelRefund] = ok(await api('GET', `/v1/payments/${c.order.payment.paymentId}`)).refunds.filter((x: any) => x.claimId === cancel.claimId);
  assert.is(cancelRefund.amount + cancelRefund.pointRefundAmount, 12500);
});

test('exchange: the new option is checked; original stock back at pickup, new stock taken at reship; refund-free completion', async () => {
  const x = await bought('exchanger');
  await toDelivered(x.item.orderItemId);
  fails(await claim(x.buyer, x.item.orderItemId, { claimType: 'EXCHANGE', quantity: 1, reason: 'CHANGE_OF_MIND' }), 400, 'VALIDATION_FAILED');
  fails(
    await claim(x.buyer, x.item.orderItemId, { claimType: 'EXCHANGE', quantity: 1, reason: 'CHANGE_OF_MIND', exchangeOptionId: 'var_nope' }),
    400,
    'VALIDATION_FAILED',
  );
  const asked = ok(
    await claim(x.buyer, x.item.orderItemId, { claimType: 'EXCHANGE', quantity: 1, reason: 'CHANGE_OF_MIND', exchangeOptionId: x.medium.variantId }),
    201,
  );
  assert.equal([asked.status, asked.refundAmount, asked.deliveryFeeChargeAmount], ['REQUESTED', null, 6000]);
  const [s0, m0] = [await variantStock(x.product.productId, x.small.variantId), await variantStock(x.product.productId, x.medium.variantId)];
  ok(await api('POST', `/v1/claims/${asked.claimId}/approve`, { body: { deliveryFeeChargeAmount: 0 } }));
  ok(await api('POST', `/v1/claims/${asked.claimId}/pickup-complete`));
  assert.equal([await variantStock(x.product.productId, x.small.variantId), await variantStock(x.product.productId, x.medium.variantId)], [s0 + 1, m0]);
  const shipped = ok(await api('POST', `/v1/claims/${asked.claimId}/reship`, { body: { carrier: 'CJ대한통운', trackingNo: 'X1' } }));
  assert.equal([shipped.status, shipped.reship], ['RESHIPPED', { carrier: 'CJ대한통운', trackingNo: 'X1' }]);
  assert.is(await variantStock(x.product.productId, x.medium.variantId), m0 - 1);
  const done = ok(await api('POST', `/v1/claims/${asked.claimId}/complete`));
  assert.equal([done.status, done.refundAmount, done.deliveryFeeChargeAmount], ['COMPLETED', null, 0]);
  const [, completed] = await claimEvents(asked.claimId, 2);
  assert.equal([completed.type, completed.data.refundAmount], ['CLAIM.COMPLETED', null]);
  assert.is(ok(await api('GET', `/v1/orders/${x.order.orderId}`)).items[0].status, 'EXCHANGED');
});

test('withdrawal by WITHDRAW_REQUEST, rejection, PERIOD_EXPIRED, guests; agents and tenancy', async () => {
  const w = await bought('withdrawer');
  await toDelivered(w.item.orderItemId);
  const asked = ok(await claim(w.buyer, w.item.orderItemId, { claimType: 'RETURN', quantity: 1, reason: 'CHANGE_OF_MIND' }), 201);
  ok(await w.buyer('POST', `/storefront/v1/me/order-items/${w.item.orderItemId}/actions/WITHDRAW_REQUEST`, { body: {} }));
  assert.is(ok(await api('GET', `/v1/claims/${asked.claimId}`)).status, 'WITHDRAWN');
  assert.equal(
    ok(await api('GET', `/v1/order-items/${w.item.orderItemId}/flow`)).timers.map((t: any) => t.status),
    ['PENDING'],
  );
  const again = ok(await claim(w.buyer, w.item.orderItemId, { claimType: 'RETURN', quantity: 1, reason: 'ETC' }), 201);
  const rejected = ok(await api('POST', `/v1/claims/${again.claimId}/reject`, { body: { reason: '사용 흔적이 있습니다' } }));
  assert.equal([rejected.status, rejected.rejectReason], ['REJECTED', '사용 흔적이 있습니다']);
  fails(await api('POST', `/v1/claims/${again.claimId}/approve`, { body: {} }), 409, 'INVALID_STATUS');

  // The decision deadline passed but the job runner has not run yet: the claim is too late.
  svc.services.clock.advance(9 * 86_400);
  const back = await signIn(svc, api, w.uid);
  fails(await claim(back.buyer, w.item.orderItemId, { claimType: 'RETURN', quantity: 1, reason: 'ETC' }), 409, 'PERIOD_EXPIRED');
  await fetch(`${svc.url}/_dev/v1/jobs/run`, { method: 'POST' });

  // A guest files with the order password.
  const shop = buyerApi(svc, svc.storeId);
  const p = await createProduct(api, { name: '손님 상품' });
  const sheet = ok(await shop('POST', '/storefront/v1/checkout', { body: { directItem: { productId: p.productId, optionId: p.optionId, quantity: 1 } } }), 201);
  const start = ok(
    await shop('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, {
      body: {
        option: 'pg_one:CARD',
        returnUrl: 'http://localhost:5173/done',
        guest: GUEST,
        shippingAddress: { receiverName: '손님', phone: '01011112222', zipCode: '06236', address1: '서울' },
      },
    }),
    201,
  );
  const order = ok(await api('GET', `/v1/orders/${ok(await simulate(shop, start.paymentId, 'APPROVE')).orderId}`));
  const guestClaim = (password: string) =>
    shop('POST', `/storefront/v1/guest/orders/${order.orderId}/items/${order.items[0].orderItemId}/claims`, {
      body: { orderPassword: password, claimType: 'CANCEL', quantity: 1, reason: 'CHANGE_OF_MIND' },
    });
  fails(await guestClaim('wrong'), 404, 'ORDER_NOT_FOUND');
  assert.is(ok(await guestClaim(GUEST.orderPassword), 201).status, 'COMPLETED');

  const r = await bought('agent-return');
  await toDelivered(r.item.orderItemId);
  const open = ok(await claim(r.buyer, r.item.orderItemId, { claimType: 'RETURN', quantity: 1, reason: 'CHANGE_OF_MIND' }), 201);
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['claim:rw'], agent: true }), storeId: svc.storeId });
  const pending = await agent('POST', `/v1/claims/${open.claimId}/approve`, { body: {} });
  assert.equal([pending.status, pending.body.meta.code], [202, 'APPROVAL_REQUIRED']);
  assert.equal(
    ok(await agent('GET', '/v1/claims', { query: { orderId: r.order.orderId } })).contents.map((c: any) => c.claimId),
    [open.claimId],
  );
  fails(await api('GET', '/v1/claims/clm_nope'), 404, 'CLAIM_NOT_FOUND');
  const stranger = await newSellerWithStore(svc, 'claims');
  const peek = await stranger.api('GET', `/v1/claims/${open.claimId}`);
  assert.ok([403, 404].includes(peek.status));
  assert.equal(ok(await stranger.api('GET', '/v1/claims')).contents, []);
  const other = await member(svc, api, 'other-buyer');
  fails(await claim(other.buyer, r.item.orderItemId, { claimType: 'RETURN', quantity: 1, reason: 'ETC' }), 404, 'ORDER_ITEM_NOT_FOUND');
});

test.run();
