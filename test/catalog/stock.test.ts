import { and, eq } from 'drizzle-orm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transaction } from '../../src/db/client.js';
import { hasSalesHistory, variantsInOrders } from '../../src/modules/catalog/product-rows.js';
import { recordSale, restoreStock } from '../../src/modules/catalog/stock.js';
import { events } from '../../src/modules/events/schema.js';
import { ApiError } from '../../src/server/errors.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { createProduct, fails, read } from '../helpers/products.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const stockPath = (p: any, i = 0) => `/v1/products/${p.productId}/variants/${p.variants[i].variantId}/stock`;
const outOfStockEvents = (productId: string) =>
  svc.services.db
    .select()
    .from(events)
    .where(and(eq(events.type, 'PRODUCT.OUT_OF_STOCK'), eq(events.resourceId, productId)))
    .all();
/** What checkout does at payment: the test plays checkout through the in-process services. */
const sell = (p: any, quantity = 1, i = 0) =>
  transaction(svc.services.db, () =>
    recordSale(svc.services.db, svc.services.clock.now(), { storeId: svc.storeId, productId: p.productId, variantId: p.variants[i].variantId, quantity }),
  );

test('stock: absolute or signed delta, exactly one of them', async () => {
  const p = await createProduct(svc.api, { stockQuantity: 5 });
  assert.equal((await svc.api('PATCH', stockPath(p), { body: { stockQuantity: 8 } })).data, {
    productId: p.productId,
    variantId: p.variants[0].variantId,
    stockQuantity: 8,
    productStatus: 'ON_SALE',
  });
  assert.is((await svc.api('PATCH', stockPath(p), { body: { adjustment: -3 } })).data.stockQuantity, 5);
  for (const body of [{}, { stockQuantity: 1, adjustment: 1 }, { stockQuantity: -1 }, { adjustment: 1.5 }, { quantity: 1 }]) {
    fails(await svc.api('PATCH', stockPath(p), { body }), 400, 'VALIDATION_FAILED');
  }
  assert.is((await read(svc.api, p.productId)).stockQuantity, 5);
  fails(await svc.api('PATCH', `/v1/products/${p.productId}/variants/var_nope/stock`, { body: { adjustment: 1 } }), 404, 'VARIANT_NOT_FOUND');
});

test('stock never goes negative: 409 INSUFFICIENT_STOCK, nothing changes', async () => {
  const p = await createProduct(svc.api, { stockQuantity: 2 });
  fails(await svc.api('PATCH', stockPath(p), { body: { adjustment: -3 } }), 409, 'INSUFFICIENT_STOCK');
  assert.is((await read(svc.api, p.productId)).stockQuantity, 2);
});

test('an adjustment never raises stock past the largest stockQuantity accepted: 409 STOCK_LIMIT_EXCEEDED, nothing changes', async () => {
  const max = 1_000_000_000;
  const p = await createProduct(svc.api, { stockQuantity: max - 5 });
  assert.is((await svc.api('PATCH', stockPath(p), { body: { adjustment: 5 } })).data.stockQuantity, max, 'up to the bound is fine');
  fails(await svc.api('PATCH', stockPath(p), { body: { stockQuantity: max + 1 } }), 400, 'VALIDATION_FAILED');
  for (const adjustment of [1, max]) {
    const res = await svc.api('PATCH', stockPath(p), { body: { adjustment } });
    fails(res, 409, 'STOCK_LIMIT_EXCEEDED');
    assert.is(res.body.error.details.maximum, max);
  }
  assert.is((await read(svc.api, p.productId)).stockQuantity, max);
  // A cut is always allowed, and units given back by a cancellation are never refused.
  assert.is((await svc.api('PATCH', stockPath(p), { body: { adjustment: -1 } })).data.stockQuantity, max - 1);
  await sell(p, 2);
  await svc.api('PATCH', stockPath(p), { body: { stockQuantity: max } });
  await transaction(svc.services.db, () =>
    restoreStock(svc.services.db, svc.services.clock.now(), { storeId: svc.storeId, productId: p.productId, variantId: p.variants[0].variantId, quantity: 2 }),
  );
  assert.is((await read(svc.api, p.productId)).stockQuantity, max + 2);
});

test('reaching 0: SOLD_OUT when no variant on sale has stock; PRODUCT.OUT_OF_STOCK once per variant', async () => {
  const p = await createProduct(svc.api, {
    options: [{ name: 'c', values: ['a', 'b', 'c'] }],
    variants: [
      { optionValues: ['a'], stockQuantity: 2 },
      { optionValues: ['b'], stockQuantity: 1 },
      { optionValues: ['c'], stockQuantity: 4, saleOn: false },
    ],
  });
  assert.is((await svc.api('PATCH', stockPath(p, 0), { body: { adjustment: -2 } })).data.productStatus, 'ON_SALE');
  assert.equal(
    (await outOfStockEvents(p.productId)).map((e) => e.data),
    [{ productId: p.productId, variantId: p.variants[0].variantId }],
  );
  await svc.api('PATCH', stockPath(p, 0), { body: { stockQuantity: 0 } });
  assert.is((await outOfStockEvents(p.productId)).length, 1, 'setting 0 again is not a new event');
  // Variant c has stock but is not on sale, so b reaching 0 sells the product out.
  assert.is((await svc.api('PATCH', stockPath(p, 1), { body: { adjustment: -1 } })).data.productStatus, 'SOLD_OUT');
  const evts = await outOfStockEvents(p.productId);
  assert.equal(
    evts.map((e) => e.data.variantId),
    [p.variants[0].variantId, p.variants[1].variantId],
  );
  assert.ok(evts.every((e) => e.resourceType === 'PRODUCT' && e.storeId === svc.storeId));
  // A restock puts a product the service sold out back on sale; a new run at 0 is a new event.
  assert.is((await svc.api('PATCH', stockPath(p, 1), { body: { adjustment: 3 } })).data.productStatus, 'ON_SALE');
  await svc.api('PATCH', stockPath(p, 1), { body: { stockQuantity: 0 } });
  assert.is((await outOfStockEvents(p.productId)).length, 3);
});

test('a seller-set SOLD_OUT stays when stock comes back', async () => {
  const p = await createProduct(svc.api, { stockQuantity: 0, status: 'SOLD_OUT' });
  assert.is((await svc.api('PATCH', stockPath(p), { body: { adjustment: 5 } })).data.productStatus, 'SOLD_OUT');
});

test('concurrent adjustments never lose an update', async () => {
  const p = await createProduct(svc.api, { stockQuantity: 30 });
  const results = await Promise.all(Array.from({ length: 40 }, () => svc.api('PATCH', stockPath(p), { body: { adjustment: -1 } })));
  assert.is(results.filter((r) => r.status === 200).length, 30);
  assert.ok(results.filter((r) => r.status !== 200).every((r) => r.body.error.code === 'INSUFFICIENT_STOCK'));
  await Promise.all(Array.from({ length: 25 }, () => svc.api('PATCH', stockPath(p), { body: { adjustment: 2 } })));
  assert.is((await read(svc.api, p.productId)).stockQuantity, 50);
  assert.is((await outOfStockEvents(p.productId)).length, 1);
});

test('sales history locks fulfillment type (FULFILLMENT_TYPE_LOCKED) but not its attributes', async () => {
  const p = await createProduct(svc.api, { stockQuantity: 10 });
  assert.is(await hasSalesHistory(svc.services.db, svc.storeId, p.productId), false);
  await sell(p, 2);
  assert.is(await hasSalesHistory(svc.services.db, svc.storeId, p.productId), true);
  assert.equal(await variantsInOrders(svc.services.db, svc.storeId, [p.variants[0].variantId, 'var_other']), [p.variants[0].variantId]);
  const after = await read(svc.api, p.productId);
  assert.is(after.fulfillmentTypeLocked, true);
  assert.is(after.stockQuantity, 8);
  fails(await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: { type: 'MANUAL' } } }), 409, 'FULFILLMENT_TYPE_LOCKED');
  const fee = { type: 'SHIPPING', shipping: { ...after.fulfillment.shipping, deliveryFee: 5000 } };
  assert.equal((await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: fee } })).data.fulfillment, fee);
  assert.is((await read(svc.api, p.productId)).fulfillment.type, 'SHIPPING');
});

test('sales history locks inventoryMode: INVENTORY_MODE_LOCKED', async () => {
  const p = await createProduct(svc.api, { stockQuantity: 10 });
  const fresh = await createProduct(svc.api);
  assert.is((await svc.api('PATCH', `/v1/products/${fresh.productId}`, { body: { inventoryMode: 'DATED' } })).data.inventoryMode, 'DATED');
  await sell(p);
  fails(await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { inventoryMode: 'DATED' } }), 409, 'INVENTORY_MODE_LOCKED');
  assert.is((await read(svc.api, p.productId)).inventoryMode, 'STANDARD');
});

test('a variant in an order cannot be deleted (VARIANT_IN_ORDER); switching its sale off works', async () => {
  const p = await createProduct(svc.api, { options: [{ name: 'c', values: ['a', 'b'] }], variants: [{ optionValues: ['a'], stockQuantity: 3 }] });
  await sell(p, 1, 0);
  const res = await svc.api('PUT', `/v1/products/${p.productId}/options`, { body: { options: [{ name: 'c', values: ['b'] }] } });
  fails(res, 409, 'VARIANT_IN_ORDER');
  assert.equal(res.body.error.details.variantIds, [p.variants[0].variantId]);
  assert.is((await read(svc.api, p.productId)).variants.length, 2);
  fails(await svc.api('DELETE', `/v1/products/${p.productId}`), 409, 'VARIANT_IN_ORDER');
  // Removing the unsold one is fine.
  assert.is((await svc.api('PUT', `/v1/products/${p.productId}/options`, { body: { options: [{ name: 'c', values: ['a'] }] } })).data.variants.length, 1);
  const off = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { variants: [{ optionValues: ['a'], saleOn: false }] } });
  assert.is(off.data.variants[0].saleOn, false);
});

test('recordSale refuses more than the stock, restoreStock gives it back', async () => {
  const p = await createProduct(svc.api, { stockQuantity: 1 });
  try {
    await sell(p, 2);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 'INSUFFICIENT_STOCK');
  }
  assert.is((await read(svc.api, p.productId)).fulfillmentTypeLocked, false, 'a refused sale records nothing');
  await sell(p, 1);
  assert.is((await read(svc.api, p.productId)).status, 'SOLD_OUT');
  await restoreStock(svc.services.db, svc.services.clock.now(), {
    storeId: svc.storeId,
    productId: p.productId,
    variantId: p.variants[0].variantId,
    quantity: 1,
  });
  const back = await read(svc.api, p.productId);
  assert.is(back.stockQuantity, 1);
  assert.is(back.status, 'ON_SALE');
  assert.is(back.fulfillmentTypeLocked, true);
});

test('bulk status: partial success, at most 100', async () => {
  const a = await createProduct(svc.api);
  const b = await createProduct(svc.api);
  const res = await svc.api('POST', '/v1/products/bulk/status', { body: { productIds: [a.productId, 'prd_missing', b.productId], status: 'SUSPENDED' } });
  assert.is(res.status, 200);
  assert.equal(res.data.succeeded, [a.productId, b.productId]);
  assert.equal(
    res.data.failed.map((f: any) => [f.productId, f.code]),
    [['prd_missing', 'PRODUCT_NOT_FOUND']],
  );
  assert.is((await read(svc.api, a.productId)).status, 'SUSPENDED');
  fails(
    await svc.api('POST', '/v1/products/bulk/status', { body: { productIds: Array.from({ length: 101 }, (_, i) => `p${i}`), status: 'ENDED' } }),
    400,
    'VALIDATION_FAILED',
  );
  fails(await svc.api('POST', '/v1/products/bulk/status', { body: { productIds: [a.productId], status: 'GONE' } }), 400, 'VALIDATION_FAILED');
  assert.is((await read(svc.api, a.productId)).status, 'SUSPENDED');
});

test.run();
