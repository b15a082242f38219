import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { ADDRESS, GUEST, RETURN_URL, buyerApi, buy, connectSandbox, createProduct, fails, ok, simulate, startGuestPayment } from '../helpers/checkout.js';

let svc: TestService;
let api: Api;
let guest: Api;

test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  guest = buyerApi(svc, svc.storeId);
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

async function member(uid: string) {
  const res = ok(await api('POST', '/v1/customers/delegations', { body: { uid, email: `${uid}@example.com`, name: '회원' } }), 201);
  return Object.assign(buyerApi(svc, svc.storeId, res.accessToken), { token: res.accessToken as string });
}

test('guest cart: first add hands out x-svc-cart; same line adds up; patch, delete; other carts are 404', async () => {
  const a = await createProduct(api, { name: '장바구니 A', salePrice: 5000 });
  const b = await createProduct(api, { name: '장바구니 B', salePrice: 7000 });
  const first = await guest('POST', '/storefront/v1/cart/items', { body: { productId: a.productId, optionId: a.optionId, quantity: 1 } });
  const cartId = first.headers.get('x-svc-cart')!;
  assert.is(first.status, 201);
  assert.is(first.data.cartId, cartId);
  const cart = buyerApi(svc, svc.storeId);
  const withCart = (method: string, path: string, body?: unknown) => cart(method, path, { body, headers: { 'x-svc-cart': cartId } });
  ok(await withCart('POST', '/storefront/v1/cart/items', { productId: a.productId, optionId: a.optionId, quantity: 2 }), 201);
  const both = ok(await withCart('POST', '/storefront/v1/cart/items', { productId: b.productId, optionId: b.optionId, quantity: 1 }), 201);
  assert.equal(
    both.items.map((i: any) => [i.name, i.quantity, i.amount]),
    [
      ['장바구니 A', 3, 15000],
      ['장바구니 B', 1, 7000],
    ],
  );
  const lineB = both.items[1].cartItemId;
  assert.is(ok(await withCart('PATCH', `/storefront/v1/cart/items/${lineB}`, { quantity: 4 })).items[1].quantity, 4);
  fails(await withCart('PATCH', `/storefront/v1/cart/items/${lineB}`, { quantity: 1000 }), 400, 'VALIDATION_FAILED');
  fails(await withCart('PATCH', `/storefront/v1/cart/items/${lineB}`, { quantity: 101 }), 409, 'INSUFFICIENT_STOCK');
  fails(await cart('GET', '/storefront/v1/cart', { headers: { 'x-svc-cart': 'cart_nope' } }), 404, 'CART_NOT_FOUND');
  fails(await guest('PATCH', `/storefront/v1/cart/items/${lineB}`, { body: { quantity: 1 } }), 404, 'CART_ITEM_NOT_FOUND');
  assert.equal(ok(await guest('GET', '/storefront/v1/cart')), { cartId: null, items: [], itemsAmount: 0 });

  // Sheet from cart lines: shipping charged once for the two products of the same origin and policy.
  const sheet = ok(await withCart('POST', '/storefront/v1/checkout', { cartItemIds: both.items.map((i: any) => i.cartItemId) }), 201);
  assert.equal(sheet.amounts, { itemsAmount: 43000, deliveryAmount: 3000, remoteSurcharge: 0, couponDiscountAmount: 0, pointAmount: 0, totalAmount: 46000 });
  fails(await guest('POST', '/storefront/v1/checkout', { body: { cartItemIds: [lineB] } }), 404, 'CART_ITEM_NOT_FOUND');
  ok(await withCart('DELETE', `/storefront/v1/cart/items/${both.items[0].cartItemId}`));
  assert.is(ok(await withCart('GET', '/storefront/v1/cart')).items.length, 1);
  // Another store's header does not reach this cart.
  const other = await newSellerWithStore(svc, 'cartother');
  fails(await apiClient(svc.url, { storeId: other.storeId })('GET', '/storefront/v1/cart', { headers: { 'x-svc-cart': cartId } }), 404, 'CART_NOT_FOUND');
});

test('delivery quote: Jeju and island surcharges per shipping group; policies charged separately; sheet unchanged', async () => {
  const a = await createProduct(api, { name: '배송 A', salePrice: 10000 });
  const c = await createProduct(api, {
    name: '조건부 무료',
    salePrice: 30000,
    fulfillment: {
      type: 'SHIPPING',
      shipping: { deliveryType: 'CONDITIONAL_FREE', deliveryFee: 2500, conditionalFreeAmount: 50000, shippingAddressId: null, returnAddressId: null },
    },
  });
  const cart = { 'x-svc-cart': '' };
  const add = async (p: { productId: string; optionId: string }, quantity: number) => {
    const res = await guest('POST', '/storefront/v1/cart/items', {
      body: { productId: p.productId, optionId: p.optionId, quantity },
      headers: cart['x-svc-cart'] ? cart : {},
    });
    cart['x-svc-cart'] = res.headers.get('x-svc-cart')!;
    return res.data;
  };
  await add(a, 1);
  const lines = await add(c, 1);
  const sheet = ok(await guest('POST', '/storefront/v1/checkout', { body: { cartItemIds: lines.items.map((i: any) => i.cartItemId) }, headers: cart }), 201);
  assert.equal([sheet.amounts.deliveryAmount, sheet.amounts.totalAmount], [3000 + 2500, 45500]);
  const jeju = ok(await guest('POST', `/storefront/v1/checkout/${sheet.checkoutId}/delivery-quote`, { body: { zipCode: '63100' } }));
  assert.equal([jeju.delivery.remoteSurcharge, jeju.delivery.remoteAreaLabel, jeju.amounts.totalAmount], [6000, '제주', 51500]);
  const island = ok(await guest('POST', `/storefront/v1/checkout/${sheet.checkoutId}/delivery-quote`, { body: { zipCode: '40200' } }));
  assert.equal([island.delivery.remoteSurcharge, island.delivery.remoteAreaLabel], [10000, '도서산간']);
  const seoul = ok(await guest('POST', `/storefront/v1/checkout/${sheet.checkoutId}/delivery-quote`, { body: { zipCode: '06236' } }));
  assert.equal([seoul.delivery.remoteSurcharge, seoul.delivery.remoteAreaLabel], [0, null]);
  fails(await guest('POST', `/storefront/v1/checkout/${sheet.checkoutId}/delivery-quote`, { body: { zipCode: '6310' } }), 400, 'VALIDATION_FAILED');
  assert.is(ok(await guest('GET', `/storefront/v1/checkout/${sheet.checkoutId}`)).delivery.zipCode, null);
  // Paying to Jeju charges the surcharge and the sheet learns the zip code.
  const start = ok(await startGuestPayment(guest, sheet, { shippingAddress: { ...ADDRESS, zipCode: '63100' } }), 201);
  assert.is(start.amounts.totalAmount, 51500);
  assert.is(ok(await guest('GET', `/storefront/v1/checkout/${sheet.checkoutId}`)).delivery.zipCode, '63100');
  const done = ok(await simulate(guest, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal(
    order.items.map((i: any) => i.deliveryFee),
    [3000, 2500],
  );
  assert.is(order.amounts.remoteSurcharge, 6000);
  // The cart lines that became the order left the cart.
  assert.equal(ok(await guest('GET', '/storefront/v1/cart', { headers: cart })).items, []);
});

test('member buyer: token from delegation, own cart, payment without guest fields, other buyers see 404', async () => {
  const p = await createProduct(api, { name: '회원 상품', salePrice: 8000, fulfillment: { type: 'MANUAL' } });
  const alice = await member('alice');
  const bob = await member('bob');
  ok(await alice('POST', '/storefront/v1/cart/items', { body: { productId: p.productId, optionId: p.optionId, quantity: 2 } }), 201);
  assert.is(ok(await alice('GET', '/storefront/v1/cart')).items.length, 1);
  assert.is(ok(await bob('GET', '/storefront/v1/cart')).items.length, 0);
  const line = ok(await alice('GET', '/storefront/v1/cart')).items[0].cartItemId;
  const sheet = ok(await alice('POST', '/storefront/v1/checkout', { body: { cartItemIds: [line] } }), 201);
  assert.is(sheet.requiresShipping, false);
  fails(await bob('GET', `/storefront/v1/checkout/${sheet.checkoutId}`), 404, 'CHECKOUT_NOT_FOUND');
  fails(await guest('GET', `/storefront/v1/checkout/${sheet.checkoutId}`), 404, 'CHECKOUT_NOT_FOUND');
  fails(
    await alice('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, { body: { option: 'pg_one:CARD', returnUrl: RETURN_URL, guest: GUEST } }),
    400,
    'VALIDATION_FAILED',
  );
  const start = ok(await alice('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, { body: { option: 'pg_one:CARD', returnUrl: RETURN_URL } }), 201);
  fails(
    await bob('POST', `/storefront/v1/payments/${start.paymentId}/attempts`, { body: { option: 'pg_one:CARD', returnUrl: RETURN_URL } }),
    404,
    'PAYMENT_NOT_FOUND',
  );
  const done = ok(await simulate(alice, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal([order.buyer.guest, order.buyer.email, order.shippingAddress], [false, 'alice@example.com', null]);
  assert.equal(ok(await alice('GET', '/storefront/v1/cart')).items, []);
  fails(await buyerApi(svc, svc.storeId, 'not-a-token')('GET', '/storefront/v1/cart'), 401, 'UNAUTHORIZED');
  // A buyer token is for its store only.
  const other = await newSellerWithStore(svc, 'mem');
  fails(await apiClient(svc.url, { storeId: other.storeId, token: alice.token })('GET', '/storefront/v1/cart'), 401, 'UNAUTHORIZED');
});

test('stay: nights priced per night and fixed on the order item; DATED needs stay', async () => {
  const stay = await createProduct(api, { name: '스테이', salePrice: 100000, inventoryMode: 'DATED', fulfillment: { type: 'MANUAL' } });
  ok(await api('PUT', `/v1/products/${stay.productId}/calendar`, { body: { variantIds: [stay.optionId], from: '2030-03-01', to: '2030-03-10', stock: 1 } }));
  ok(
    await api('PUT', `/v1/products/${stay.productId}/calendar`, { body: { variantIds: [stay.optionId], from: '2030-03-02', to: '2030-03-02', price: 150000 } }),
  );
  fails(
    await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId: stay.productId, optionId: stay.optionId, quantity: 1 } } }),
    400,
    'STAY_REQUIRED',
  );
  fails(
    await guest('POST', '/storefront/v1/checkout', {
      body: { directItem: { productId: stay.productId, optionId: stay.optionId, quantity: 1, stay: { checkIn: '2030-03-09', checkOut: '2030-03-12' } } },
    }),
    409,
    'DATES_UNAVAILABLE',
  );
  fails(
    await guest('POST', '/storefront/v1/checkout', {
      body: { directItem: { productId: stay.productId, optionId: stay.optionId, quantity: 1, stay: { checkIn: '2030-03-03', checkOut: '2030-03-03' } } },
    }),
    400,
    'STAY_INVALID',
  );
  const { done, sheet } = await buy(svc, svc.storeId, {
    productId: stay.productId,
    optionId: stay.optionId,
    stay: { checkIn: '2030-03-01', checkOut: '2030-03-03' },
  });
  assert.is(sheet.amounts.totalAmount, 250000);
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal(order.items[0].stay, {
    checkIn: '2030-03-01',
    checkOut: '2030-03-03',
    nights: [
      { date: '2030-03-01', price: 100000 },
      { date: '2030-03-02', price: 150000 },
    ],
  });
  assert.is(order.items[0].unitPrice, 250000);
  fails(
    await guest('POST', '/storefront/v1/checkout', {
      body: { directItem: { productId: stay.productId, optionId: stay.optionId, quantity: 1, stay: { checkIn: '2030-03-02', checkOut: '2030-03-03' } } },
    }),
    409,
    'DATES_UNAVAILABLE',
  );
});

test('guest order lookup: order number with hyphen and password; wrong password looks missing; 429 for 30 minutes', async () => {
  const p = await createProduct(api, { name: '조회 상품' });
  const { done } = await buy(svc, svc.storeId, { productId: p.productId, optionId: p.optionId });
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  const no = String(order.orderNo);
  const lookup = (orderNo: string, orderPassword: string) => guest('POST', '/storefront/v1/guest/orders/lookup', { body: { orderNo, orderPassword } });
  const found = ok(await lookup(`${no.slice(0, 8)}-${no.slice(8)}`, GUEST.orderPassword));
  assert.equal([found.orderId, found.items.length], [order.orderId, 1]);
  assert.is(found.guestPasswordHash, undefined);
  fails(await lookup('20990101000001', GUEST.orderPassword), 404, 'ORDER_NOT_FOUND');
  for (let i = 0; i < 5; i++) fails(await lookup(no, 'wrong-password'), 404, 'ORDER_NOT_FOUND');
  const locked = await lookup(no, GUEST.orderPassword);
  fails(locked, 429, 'GUEST_LOOKUP_LOCKED');
  assert.ok(locked.body.error.details.retryAfterSeconds > 1700);
  await svc.advance(30 * 60 + 1);
  ok(await lookup(no, GUEST.orderPassword));
});

test.run();
