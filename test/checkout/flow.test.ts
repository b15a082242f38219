import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import {
  ADDRESS,
  GUEST,
  RETURN_URL,
  buyerApi,
  buy,
  connectSandbox,
  createProduct,
  directSheet,
  fails,
  ok,
  simulate,
  startGuestPayment,
} from '../helpers/checkout.js';

let svc: TestService;
let api: Api;
let guest: Api;
let storeId: string;

test.before(async () => {
  svc = await startTestService();
  // A fresh store: the seeded one comes with a sandbox provider already connected.
  const seller = await newSellerWithStore(svc, 'flow');
  api = seller.api;
  storeId = seller.storeId;
  guest = buyerApi(svc, storeId);
});
test.after(async () => {
  await svc.close();
});

test('GET /storefront/v1/store: availability follows the providers; X-Store-Id required', async () => {
  const before = ok(await guest('GET', '/storefront/v1/store'));
  assert.equal(
    [before.checkoutAvailable, before.checkoutMode, before.checkoutUnavailableReason, before.guestCheckout],
    [false, null, 'PAYMENT_NOT_CONFIGURED', true],
  );
  fails(await buyerApi(svc, '')('GET', '/storefront/v1/store'), 400, 'STORE_ID_REQUIRED');
  fails(await buyerApi(svc, 'st_nope')('GET', '/storefront/v1/store'), 404, 'STORE_NOT_FOUND');
});

test('no provider: the sheet lists no options and starting a payment is 409 PAYMENT_NOT_CONFIGURED (NO_PROVIDER)', async () => {
  const { productId, optionId } = await createProduct(api, { name: '미설정 상품' });
  const sheet = await directSheet(guest, { productId, optionId });
  assert.equal(sheet.paymentOptions, []);
  const res = await startGuestPayment(guest, sheet, { option: { pg: 'pg_one', method: 'CARD' } });
  fails(res, 409, 'PAYMENT_NOT_CONFIGURED');
  assert.is(res.body.error.details.reason, 'NO_PROVIDER');
  await connectSandbox(api);
  const after = ok(await guest('GET', '/storefront/v1/store'));
  assert.equal([after.checkoutAvailable, after.checkoutMode, after.checkoutUnavailableReason], [true, 'TEST', null]);
});

test('a full guest purchase: sheet → payment → pay page approve → order with ORDER.PAID', async () => {
  const { productId, optionId } = await createProduct(api, { name: '머그컵', salePrice: 12000, stockQuantity: 5 });
  const sheet = await directSheet(guest, { productId, optionId, quantity: 2 });
  assert.is(sheet.testPayment, true);
  assert.is(sheet.requiresShipping, true);
  assert.is(sheet.delivery.zipCode, null);
  assert.equal(sheet.amounts, { itemsAmount: 24000, deliveryAmount: 3000, remoteSurcharge: 0, couponDiscountAmount: 0, pointAmount: 0, totalAmount: 27000 });
  assert.is(sheet.items[0].thumbnailUrl, null);
  assert.ok(sheet.paymentOptions.some((o: any) => o.key === 'pg_one:CARD' && o.label && o.pgName));

  const start = ok(await startGuestPayment(guest, sheet), 201);
  assert.is(start.status, 'ready');
  assert.is(start.payUrl, `${svc.url}/pay/${start.paymentId}`);
  assert.is(start.orderId, null);
  assert.is(start.option.key, 'pg_one:CARD');
  assert.is(start.amounts.totalAmount, 27000);

  const page = await fetch(start.payUrl);
  const html = await page.text();
  assert.is(page.status, 200);
  assert.match(html, '27,000원');
  assert.match(html, 'value="APPROVE"');
  assert.match(html, 'value="REFUSE"');
  assert.match(html, 'value="CANCEL"');
  // Read as a Korean buyer reads it: the method's name, the expiry in Korea's time.
  assert.match(html, '<dd data-method>신용·체크카드</dd>');
  const opened = ok(await guest('GET', `/storefront/v1/payments/${start.paymentId}`));
  const kst = new Date(Date.parse(opened.expiresAt) + 9 * 3600_000).toISOString().slice(0, 16).replace('T', ' ');
  assert.match(html, `<dd data-expires>${kst} (KST)까지</dd>`);
  // The window's form carries its token; without it (another site posting the form) nothing is decided.
  const token = /name="token" value="([^"]+)"/.exec(html)![1];
  const forged = await fetch(start.payUrl, { method: 'POST', body: new URLSearchParams({ outcome: 'APPROVE' }), redirect: 'manual' });
  assert.is(forged.status, 403);
  const crossSite = await fetch(start.payUrl, {
    method: 'POST',
    body: new URLSearchParams({ outcome: 'APPROVE', token }),
    headers: { origin: 'https://evil.example' },
    redirect: 'manual',
  });
  assert.is(crossSite.status, 403);
  const decided = await fetch(start.payUrl, { method: 'POST', body: new URLSearchParams({ outcome: 'APPROVE', token }), redirect: 'manual' });
  assert.is(decided.status, 303);
  const back = new URL(decided.headers.get('location')!);
  assert.is(`${back.origin}${back.pathname}`, RETURN_URL);
  assert.is(back.searchParams.get('status'), 'COMPLETED');
  const orderId = back.searchParams.get('orderId')!;
  assert.ok(orderId);

  const status = ok(await guest('GET', `/storefront/v1/payments/${start.paymentId}`, { storeId: null }));
  assert.equal([status.result, status.status, status.orderId, status.testPayment], ['COMPLETED', 'COMPLETED', orderId, true]);

  const order = ok(await api('GET', `/v1/orders/${orderId}`));
  assert.match(String(order.orderNo), /^\d{14}$/);
  assert.is(order.testPayment, true);
  assert.equal([order.payment.method, order.payment.approvedMethod, order.payment.amount], ['CARD', 'CARD', 27000]);
  assert.is(order.items[0].orderItemNo, order.orderNo * 100 + 1);
  assert.equal(order.items[0].fulfillmentSnapshot.type, 'SHIPPING');
  assert.is(order.items[0].refundPolicy.returnDeliveryFee, 3000);
  assert.equal(order.shippingAddress.zipCode, ADDRESS.zipCode);
  assert.is(order.buyer.name, GUEST.name);

  const product = ok(await api('GET', `/v1/products/${productId}`));
  assert.is(product.stockQuantity, 3);
  assert.is(product.fulfillmentTypeLocked, true);

  const events = (await svc.services.db.$client.prepare('select type, data from events where resource_id = ?').all(orderId)) as {
    type: string;
    data: string;
  }[];
  assert.equal(
    events.map((e) => e.type),
    ['ORDER.PAID'],
  );
  assert.equal(JSON.parse(events[0].data), { orderId, orderNo: order.orderNo, status: 'PAID', testPayment: true });

  const payment = ok(await api('GET', `/v1/payments/${start.paymentId}`));
  assert.is(payment.pgOrderId, `${order.orderNo}-01`);
  assert.is(payment.status, 'APPROVED');
  assert.is(payment.attempts.length, 1);
  assert.equal(payment.refunds, []);

  // The sheet is used up.
  fails(await startGuestPayment(guest, sheet), 409, 'CHECKOUT_ALREADY_COMPLETED');
});

test('checkout validation: unknown fields, both or neither item source, missing product, variant off, stock', async () => {
  const { productId, optionId } = await createProduct(api, { name: '재고 2', stockQuantity: 2 });
  fails(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId, optionId, quantity: 1, price: 10 } } }), 400, 'VALIDATION_FAILED');
  fails(await guest('POST', '/storefront/v1/checkout', { body: {} }), 400, 'VALIDATION_FAILED');
  fails(
    await guest('POST', '/storefront/v1/checkout', { body: { cartItemIds: ['x'], directItem: { productId, optionId, quantity: 1 } } }),
    400,
    'VALIDATION_FAILED',
  );
  fails(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId: 'prd_nope', optionId, quantity: 1 } } }), 404, 'PRODUCT_NOT_FOUND');
  fails(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId, optionId: 'var_nope', quantity: 1 } } }), 404, 'VARIANT_NOT_FOUND');
  fails(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId, optionId, quantity: 3 } } }), 409, 'INSUFFICIENT_STOCK');
  fails(
    await guest('POST', '/storefront/v1/checkout', {
      body: { directItem: { productId, optionId, quantity: 1, stay: { checkIn: '2030-01-01', checkOut: '2030-01-02' } } },
    }),
    400,
    'STAY_NOT_APPLICABLE',
  );
  ok(await api('POST', '/v1/products/bulk/status', { body: { productIds: [productId], status: 'SUSPENDED' } }));
  fails(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId, optionId, quantity: 1 } } }), 404, 'PRODUCT_NOT_FOUND');
});

test('payment start rules: guest, shipping address, option, return url, coupons, points, stale sheet', async () => {
  const { productId, optionId } = await createProduct(api, { name: '규칙 상품' });
  const sheet = await directSheet(guest, { productId, optionId });
  const start = (body: Record<string, unknown>) => guest('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, { body });
  const base = { option: { pg: 'pg_one', method: 'CARD' }, guest: GUEST, returnUrl: RETURN_URL, shippingAddress: ADDRESS };
  fails(await start({ ...base, guest: undefined }), 400, 'VALIDATION_FAILED');
  fails(await start({ ...base, shippingAddress: undefined }), 400, 'SHIPPING_ADDRESS_REQUIRED');
  fails(await start({ ...base, option: undefined }), 400, 'VALIDATION_FAILED');
  const unavailable = await start({ ...base, option: { pg: 'pg_one', method: 'VIRTUAL_ACCOUNT' } });
  fails(unavailable, 409, 'PAYMENT_OPTION_UNAVAILABLE');
  assert.ok(unavailable.body.error.details.paymentOptions.length > 0);
  fails(await start({ ...base, option: 'pg_two:CARD' }), 409, 'PAYMENT_OPTION_UNAVAILABLE');
  fails(await start({ ...base, returnUrl: 'http://shop.example.com/done' }), 400, 'RETURN_URL_NOT_ALLOWED');
  fails(await start({ ...base, returnUrl: 'not a url' }), 400, 'RETURN_URL_NOT_ALLOWED');
  const coupon = await start({ ...base, coupons: [{ code: 'WELCOME10' }] });
  fails(coupon, 400, 'VALIDATION_FAILED');
  assert.is(coupon.body.error.fieldErrors[0].code, 'COUPON_NOT_FOUND');
  fails(await start({ ...base, pointAmount: 1000 }), 409, 'POINTS_UNAVAILABLE');
  fails(await start({ ...base, guest: { ...GUEST, phone: '010-1234-5678' } }), 400, 'VALIDATION_FAILED');
  fails(await start({ ...base, guest: { ...GUEST, orderPassword: 'x'.repeat(129) } }), 400, 'VALIDATION_FAILED');
  fails(await start({ ...base, shippingAddress: { ...ADDRESS, phone: '0501234567' } }), 400, 'VALIDATION_FAILED');
  // 050 safe numbers (0503–0508), 070 and area codes are phones too.
  for (const phone of ['05051234567', '07012345678', '0212345678', '0311234567']) {
    const s = await directSheet(guest, { productId, optionId });
    ok(await startGuestPayment(guest, s, { guest: { ...GUEST, phone } }), 201);
  }
  // The seller changes the product type after the sheet was made.
  const stale = await directSheet(guest, { productId, optionId });
  ok(await api('PATCH', `/v1/products/${productId}`, { body: { fulfillment: { type: 'MANUAL' } } }));
  fails(await startGuestPayment(guest, stale), 409, 'CHECKOUT_STALE');
});

test('members-only store: guest sheet and payment start are 403 GUEST_CHECKOUT_DISABLED', async () => {
  const { productId, optionId } = await createProduct(api, { name: '회원 전용' });
  const sheet = await directSheet(guest, { productId, optionId });
  ok(await api('PATCH', '/v1/store', { body: { guestCheckout: false } }));
  try {
    fails(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId, optionId, quantity: 1 } } }), 403, 'GUEST_CHECKOUT_DISABLED');
    fails(await startGuestPayment(guest, sheet), 403, 'GUEST_CHECKOUT_DISABLED');
    assert.is(ok(await guest('GET', '/storefront/v1/store')).guestCheckout, false);
  } finally {
    ok(await api('PATCH', '/v1/store', { body: { guestCheckout: true } }));
  }
});

test('payment domains: other https return addresses are refused; test payments still accept localhost', async () => {
  const { productId, optionId } = await createProduct(api, { name: '도메인 상품' });
  ok(await api('PUT', '/v1/store/payment-settings', { body: { checkoutOrigins: ['https://shop.example.com'] } }));
  try {
    const sheet = await directSheet(guest, { productId, optionId });
    const res = await startGuestPayment(guest, sheet, { returnUrl: 'https://other.example.com/done' });
    fails(res, 400, 'RETURN_URL_NOT_ALLOWED');
    assert.is(res.body.error.details.reason, 'NOT_PAYMENT_DOMAIN');
    ok(await startGuestPayment(guest, sheet, { returnUrl: 'https://shop.example.com/checkout/done' }), 201);
    ok(await startGuestPayment(guest, sheet, { returnUrl: 'http://127.0.0.1:3000/done' }), 201);
  } finally {
    ok(await api('PUT', '/v1/store/payment-settings', { body: { checkoutOrigins: [] } }));
  }
});

test('buyer price is the discounted price inside the period; the refund policy is fixed at payment time', async () => {
  const { productId, optionId } = await createProduct(api, { name: '할인 상품', salePrice: 20000, refundPolicy: { returnDeliveryFee: 5000 } });
  ok(await api('PUT', `/v1/products/${productId}/discount`, { body: { method: 'PERCENT', value: 10, startDate: '2020-01-01', endDate: '2099-12-31' } }));
  const { sheet, done } = await buy(svc, storeId, { productId, optionId });
  assert.equal([sheet.items[0].unitPrice, sheet.amounts.itemsAmount], [18000, 18000]);
  ok(await api('PATCH', `/v1/products/${productId}`, { body: { refundPolicy: { returnDeliveryFee: 9000 } } }));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal([order.items[0].unitPrice, order.items[0].refundPolicy.returnDeliveryFee, order.items[0].refundPolicy.exchangeDeliveryFee], [18000, 5000, 6000]);
});

test('simulate: unknown payment 404, bad outcome 400', async () => {
  fails(await simulate(guest, 'pay_nope', 'APPROVE'), 404, 'PAYMENT_NOT_FOUND');
  const { productId, optionId } = await createProduct(api, { name: 'sim' });
  const { start } = await buy(svc, storeId, { productId, optionId });
  fails(await simulate(guest, start.paymentId, 'MAYBE'), 400, 'VALIDATION_FAILED');
  fails(await simulate(guest, start.paymentId, 'APPROVE'), 409, 'PAYMENT_IN_PROGRESS');
});

test.run();
