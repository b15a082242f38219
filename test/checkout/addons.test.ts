// Add-on selections and custom inputs at checkout (issue 30): validation, the price they add, the order
// item that keeps them and `ORDER.PAID.itemOptions` (spec 01 §6.2).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, directSheet, fails, ok, simulate, startGuestPayment } from '../helpers/checkout.js';

let svc: TestService;
let api: Api;
let guest: Api;
let storeId: string;

test.before(async () => {
  svc = await startTestService();
  const seller = await newSellerWithStore(svc, 'addons');
  api = seller.api;
  storeId = seller.storeId;
  guest = buyerApi(svc, storeId);
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

const ADDONS = [
  { name: '선물 포장', required: false, values: [{ name: '포장함', additionalPrice: 3000 }] },
  {
    name: '쇼핑백',
    required: true,
    values: [
      { name: '없음', additionalPrice: 0 },
      { name: '있음', additionalPrice: 500 },
    ],
  },
];
const INPUTS = [
  { key: 'engraving', label: '각인 문구', placeholder: null, maxLength: 5, required: true, type: 'TEXT', options: [] },
  { key: 'card', label: '카드 색', placeholder: null, maxLength: 20, required: false, type: 'SELECT', options: ['빨강', '파랑'] },
];

const mug = () => createProduct(api, { name: '각인 머그', salePrice: 12000, stockQuantity: 10, addons: ADDONS, customInputs: INPUTS });
const fields = (res: any) => res.body.error.fieldErrors.map((f: any) => f.field).sort();

test('missing, unknown, too long or outside the choices: 400 VALIDATION_FAILED with fieldErrors', async () => {
  const { productId, optionId } = await mug();
  const item = { productId, optionId, quantity: 1 };
  const sheet = (extra: Record<string, unknown>) => guest('POST', '/storefront/v1/checkout', { body: { directItem: { ...item, ...extra } } });

  const missing = await sheet({});
  fails(missing, 400, 'VALIDATION_FAILED');
  assert.equal(fields(missing), ['directItem.addonSelections', 'directItem.customInputs.engraving']);

  const bad = await sheet({
    addonSelections: [
      { name: '쇼핑백', value: '종이' },
      { name: '리본', value: '빨강' },
    ],
    customInputs: { engraving: '여섯글자문구', card: '초록', memo: 'x' },
  });
  fails(bad, 400, 'VALIDATION_FAILED');
  assert.equal(fields(bad), [
    'directItem.addonSelections.0.value',
    'directItem.addonSelections.1.name',
    'directItem.customInputs.card',
    'directItem.customInputs.engraving',
    'directItem.customInputs.memo',
  ]);

  // The cart checks the same at add time.
  const cart = await guest('POST', '/storefront/v1/cart/items', { body: { ...item, customInputs: { engraving: '너무 긴 문구' } } });
  fails(cart, 400, 'VALIDATION_FAILED');
});

test('add-on prices add to the item amount; the order item keeps selections and inputs; ORDER.PAID carries itemOptions', async () => {
  const { productId, optionId } = await mug();
  const sheet = await directSheet(guest, {
    productId,
    optionId,
    quantity: 2,
    addonSelections: [
      { name: '선물 포장', value: '포장함' },
      { name: '쇼핑백', value: '있음' },
    ],
    customInputs: { engraving: '사랑해', card: '파랑' },
  });
  assert.is(sheet.items[0].unitPrice, 12000 + 3000 + 500);
  assert.is(sheet.items[0].amount, 2 * 15500);
  assert.is(sheet.amounts.itemsAmount, 31000);

  const start = ok(await startGuestPayment(guest, sheet), 201);
  const { orderId } = ok(await simulate(guest, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${orderId}`));
  const orderItem = order.items[0];
  assert.is(orderItem.amount, 31000);
  assert.equal(orderItem.optionSelections, [
    { name: '선물 포장', value: '포장함', additionalPrice: 3000 },
    { name: '쇼핑백', value: '있음', additionalPrice: 500 },
  ]);
  assert.equal(orderItem.customInputs, [
    { key: 'engraving', label: '각인 문구', value: '사랑해' },
    { key: 'card', label: '카드 색', value: '파랑' },
  ]);

  const events = (await svc.services.db.$client.prepare('select type, data from events where resource_id = ?').all(orderId)) as {
    type: string;
    data: string;
  }[];
  const paid = JSON.parse(events.find((e) => e.type === 'ORDER.PAID')!.data);
  assert.equal(paid.itemOptions, [{ orderItemId: orderItem.orderItemId, optionSelections: orderItem.optionSelections, customInputs: orderItem.customInputs }]);
});

test('cart items carry their selections into the sheet; a plain order has no itemOptions', async () => {
  const { productId, optionId } = await mug();
  const added = await guest('POST', '/storefront/v1/cart/items', {
    body: { productId, optionId, quantity: 1, addonSelections: [{ name: '쇼핑백', value: '없음' }], customInputs: { engraving: '축하' } },
  });
  const cart = ok(added, 201);
  const cartHeader = added.headers.get('x-svc-cart')!;
  const line = cart.items[0];
  assert.is(line.unitPrice, 12000);
  const sheet = ok(await guest('POST', '/storefront/v1/checkout', { body: { cartItemIds: [line.cartItemId] }, headers: { 'x-svc-cart': cartHeader } }), 201);
  assert.equal(sheet.items[0].customInputs, [{ key: 'engraving', label: '각인 문구', value: '축하' }]);

  const plain = await createProduct(api, { name: '보통 상품', salePrice: 5000, stockQuantity: 3 });
  const plainSheet = await directSheet(guest, { productId: plain.productId, optionId: plain.optionId });
  const start = ok(await startGuestPayment(guest, plainSheet), 201);
  const { orderId } = ok(await simulate(guest, start.paymentId, 'APPROVE'));
  const events = (await svc.services.db.$client.prepare('select type, data from events where resource_id = ?').all(orderId)) as {
    type: string;
    data: string;
  }[];
  assert.not.ok('itemOptions' in JSON.parse(events.find((e) => e.type === 'ORDER.PAID')!.data));
});

test.run();
