import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { login, startTestService, type TestService } from '../helpers/service.js';
import { transaction } from '../../src/db/client.js';
import { seoulDateOf } from '../../src/db/clock.js';
import { addDays } from '../../src/kernel/dates.js';
import { priceStay, recordSale } from '../../src/modules/catalog/stock.js';
import { ApiError } from '../../src/server/errors.js';
import { createProduct, fails, read } from '../helpers/products.js';

let svc: TestService;
let day0: string;
test.before(async () => {
  svc = await startTestService();
  day0 = seoulDateOf(svc.services.clock.now());
});
test.after(async () => {
  await svc.close();
});

const d = (n: number) => addDays(day0, n);
const calendar = (p: any, body: Record<string, unknown>) =>
  svc.api('PUT', `/v1/products/${p.productId}/calendar`, { body: { variantIds: p.variants.map((v: any) => v.variantId), ...body } });
const stay = (p: any, s: unknown, i = 0, quantity = 1) =>
  priceStay(svc.services.db, svc.storeId, p.productId, p.variants[i].variantId, s as never, { now: svc.services.clock.now(), quantity });
async function throwsCode(fn: () => Promise<unknown>, code: string) {
  try {
    await fn();
  } catch (error) {
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, code);
    return (error as ApiError).details;
  }
  assert.unreachable(`expected ${code}`);
}
const dated = () =>
  createProduct(svc.api, {
    salePrice: 50000,
    inventoryMode: 'DATED',
    options: [{ name: '객실', values: ['A', 'B'] }],
    variants: [{ optionValues: ['B'], additionalAmount: 10000 }],
  });

test('calendar on a STANDARD product: 409 INVENTORY_MODE_NOT_DATED; stock endpoint on DATED: 409 INVENTORY_MODE_DATED', async () => {
  const std = await createProduct(svc.api);
  fails(await calendar(std, { from: d(0), to: d(1), stock: 1 }), 409, 'INVENTORY_MODE_NOT_DATED');
  fails(await svc.api('GET', `/v1/products/${std.productId}/calendar`), 409, 'INVENTORY_MODE_NOT_DATED');
  const p = await dated();
  fails(
    await svc.api('PATCH', `/v1/products/${p.productId}/variants/${p.variants[0].variantId}/stock`, { body: { adjustment: 1 } }),
    409,
    'INVENTORY_MODE_DATED',
  );
});

test('calendar write and read: absent days have stock 0; only sent fields change; price null resets; daysOfWeek', async () => {
  const p = await dated();
  const res = await calendar(p, { from: d(0), to: d(9), stock: 3 });
  assert.equal(res.data, { productId: p.productId, variantIds: p.variants.map((v: any) => v.variantId), from: d(0), to: d(9), updatedDays: 10 });
  await calendar(p, { variantIds: [p.variants[0].variantId], from: d(5), to: d(14), price: 70000 });
  const read1 = await svc.api('GET', `/v1/products/${p.productId}/calendar`, { query: { from: d(0), to: d(14) } });
  const [a, b] = read1.data.variants;
  assert.equal(a.days[0], { date: d(0), stock: 3, price: 50000, priceSet: false });
  assert.equal(a.days[5], { date: d(5), stock: 3, price: 70000, priceSet: true });
  assert.equal(a.days[12], { date: d(12), stock: 0, price: 70000, priceSet: true }, 'a price-only write leaves stock 0');
  assert.equal(b.days[5], { date: d(5), stock: 3, price: 60000, priceSet: false }, 'salePrice plus the add-on');
  assert.equal(b.days[12].stock, 0);
  await calendar(p, { variantIds: [p.variants[0].variantId], from: d(5), to: d(6), price: null });
  const weekday = new Date(`${d(0)}T00:00:00Z`).getUTCDay();
  await calendar(p, { from: d(0), to: d(13), stock: 9, daysOfWeek: [weekday] });
  const read2 = (await svc.api('GET', `/v1/products/${p.productId}/calendar`, { query: { from: d(0), to: d(13) } })).data.variants[0].days;
  assert.equal(read2[5].price, 50000);
  assert.equal(read2[7].price, 70000);
  assert.equal(
    read2.filter((x: any) => x.stock === 9).map((x: any) => x.date),
    [d(0), d(7)],
  );
});

test('calendar errors: RANGE_TOO_WIDE, INVALID_PARAMETER, INVALID_PRICE_UNIT, VARIANT_NOT_FOUND, form errors — nothing changes', async () => {
  const p = await dated();
  fails(await calendar(p, { from: d(0), to: d(400), stock: 1 }), 400, 'RANGE_TOO_WIDE');
  assert.is((await calendar(p, { from: d(0), to: d(399), stock: 1 })).status, 200);
  fails(await calendar(p, { from: d(3), to: d(1), stock: 5 }), 400, 'INVALID_PARAMETER');
  fails(await calendar(p, { from: '2027-02-30', to: '2027-03-02', stock: 5 }), 400, 'INVALID_PARAMETER');
  fails(await calendar(p, { from: '2027/03/01', to: '2027-03-02', stock: 5 }), 400, 'VALIDATION_FAILED');
  fails(await calendar(p, { from: d(0), to: d(1) }), 400, 'VALIDATION_FAILED');
  fails(await calendar(p, { from: d(0), to: d(1), stock: 5, daysOfWeek: [7] }), 400, 'VALIDATION_FAILED');
  fails(await calendar(p, { from: d(0), to: d(1), price: 15 }), 400, 'INVALID_PRICE_UNIT');
  fails(await calendar(p, { variantIds: ['var_nope'], from: d(0), to: d(1), stock: 5 }), 404, 'VARIANT_NOT_FOUND');
  fails(await svc.api('GET', `/v1/products/${p.productId}/calendar`, { query: { from: d(0), to: d(400) } }), 400, 'RANGE_TOO_WIDE');
  const days = (await svc.api('GET', `/v1/products/${p.productId}/calendar`, { query: { from: d(0), to: d(1) } })).data.variants[0].days;
  assert.equal(
    days.map((x: any) => [x.stock, x.price]),
    [
      [1, 50000],
      [1, 50000],
    ],
  );
});

test('stay pricing: sum of nightly prices from check-in to the night before check-out', async () => {
  const p = await dated();
  await calendar(p, { from: d(1), to: d(40), stock: 2 });
  await calendar(p, { variantIds: [p.variants[0].variantId], from: d(2), to: d(2), price: 80000 });
  const priced = (await stay(p, { checkIn: d(1), checkOut: d(4) }))!;
  assert.equal(priced.nights, [
    { date: d(1), price: 50000 },
    { date: d(2), price: 80000 },
    { date: d(3), price: 50000 },
  ]);
  assert.is(priced.unitPrice, 180000);
  assert.is((await stay(p, { checkIn: d(1), checkOut: d(2) }, 1))!.unitPrice, 60000);
  assert.is((await stay(p, { checkIn: d(1), checkOut: d(31) }))!.nights.length, 30);
});

test('stay errors: STAY_REQUIRED, STAY_NOT_APPLICABLE, STAY_INVALID, DATES_UNAVAILABLE', async () => {
  const p = await dated();
  const std = await createProduct(svc.api, { stockQuantity: 1 });
  await calendar(p, { from: d(1), to: d(5), stock: 1 });
  await throwsCode(() => stay(p, undefined), 'STAY_REQUIRED');
  await throwsCode(() => stay(std, { checkIn: d(1), checkOut: d(2) }), 'STAY_NOT_APPLICABLE');
  assert.is(await stay(std, undefined), null);
  await throwsCode(() => stay(p, { checkIn: d(2), checkOut: d(2) }), 'STAY_INVALID');
  await throwsCode(() => stay(p, { checkIn: d(1), checkOut: d(32) }), 'STAY_INVALID');
  await throwsCode(() => stay(p, { checkIn: d(-1), checkOut: d(1) }), 'STAY_INVALID');
  await throwsCode(() => stay(p, { checkIn: '2027-02-29', checkOut: '2027-03-02' }), 'STAY_INVALID');
  assert.equal(await throwsCode(() => stay(p, { checkIn: d(4), checkOut: d(7) }), 'DATES_UNAVAILABLE'), { dates: [d(6)] });
  assert.equal(await throwsCode(() => stay(p, { checkIn: d(1), checkOut: d(2) }, 0, 2), 'DATES_UNAVAILABLE'), { dates: [d(1)] });
});

test('a sold stay takes its nights from the calendar and locks the inventory mode', async () => {
  const p = await dated();
  await calendar(p, { from: d(1), to: d(5), stock: 1 });
  const sale = { storeId: svc.storeId, productId: p.productId, variantId: p.variants[0].variantId, quantity: 1, stay: { checkIn: d(2), checkOut: d(4) } };
  await transaction(svc.services.db, () => recordSale(svc.services.db, svc.services.clock.now(), sale));
  await throwsCode(() => stay(p, { checkIn: d(1), checkOut: d(3) }), 'DATES_UNAVAILABLE');
  await throwsCode(
    () => transaction(svc.services.db, () => recordSale(svc.services.db, svc.services.clock.now(), { ...sale, stay: { checkIn: d(3), checkOut: d(5) } })),
    'DATES_UNAVAILABLE',
  );
  const days = (await svc.api('GET', `/v1/products/${p.productId}/calendar`, { query: { from: d(1), to: d(5) } })).data.variants[0].days;
  assert.equal(
    days.map((x: any) => x.stock),
    [1, 0, 0, 1, 1],
    'the refused sale took nothing',
  );
  fails(await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { inventoryMode: 'STANDARD' } }), 409, 'INVENTORY_MODE_LOCKED');
});

test('buyer calendar: availability and price per day, no stock counts, at most 120 days, only on-sale products', async () => {
  const p = await dated();
  await calendar(p, { from: d(0), to: d(3), stock: 4, price: 55000 });
  const res = await svc.api('GET', `/storefront/v1/products/${p.productId}/calendar`, { token: null, storeId: null, query: { from: d(0), to: d(4) } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const days = res.data.variants[0].days;
  assert.equal(days[0], { date: d(0), available: true, price: 55000 });
  assert.equal(days[4], { date: d(4), available: false, price: 50000 });
  assert.ok(!JSON.stringify(res.data).includes('stock'));
  fails(await svc.api('GET', `/storefront/v1/products/${p.productId}/calendar`, { token: null, query: { from: d(0), to: d(120) } }), 400, 'RANGE_TOO_WIDE');
  assert.is((await svc.api('GET', `/storefront/v1/products/${p.productId}/calendar`, { token: null, query: { from: d(0), to: d(119) } })).status, 200);
  await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { status: 'SUSPENDED' } });
  fails(await svc.api('GET', `/storefront/v1/products/${p.productId}/calendar`, { token: null }), 404, 'PRODUCT_NOT_FOUND');
});

test('discount errors: INVALID_PRICE_UNIT, too large, dates — nothing changes', async () => {
  const p = await createProduct(svc.api, { salePrice: 10000 });
  const put = (body: Record<string, unknown>) =>
    svc.api('PUT', `/v1/products/${p.productId}/discount`, {
      body: { method: 'AMOUNT', value: 1000, startDate: '2027-01-01', endDate: '2027-01-31', ...body },
    });
  fails(await put({ value: 15 }), 400, 'INVALID_PRICE_UNIT');
  fails(await put({ value: 10000 }), 400, 'VALIDATION_FAILED');
  fails(await put({ method: 'PERCENT', value: 100 }), 400, 'VALIDATION_FAILED');
  fails(await put({ method: 'HALF' }), 400, 'VALIDATION_FAILED');
  fails(await put({ endDate: '2026-12-31' }), 400, 'INVALID_PARAMETER');
  fails(await put({ startDate: '2027-02-30' }), 400, 'INVALID_PARAMETER');
  fails(await put({ percent: 10 }), 400, 'VALIDATION_FAILED');
  fails(await svc.api('GET', `/v1/products/${p.productId}/discount`), 404, 'DISCOUNT_NOT_FOUND');
});

test('discount: none → DISCOUNT_NOT_FOUND; set; detail shows the same shape; buyer pays the discounted price only inside the period', async () => {
  const p = await createProduct(svc.api, {
    salePrice: 10000,
    listPrice: 15000,
    options: [{ name: 'c', values: ['a', 'b'] }],
    variants: [{ optionValues: ['b'], additionalAmount: 500 * 2 }],
  });
  fails(await svc.api('GET', `/v1/products/${p.productId}/discount`), 404, 'DISCOUNT_NOT_FOUND');
  fails(await svc.api('DELETE', `/v1/products/${p.productId}/discount`), 404, 'DISCOUNT_NOT_FOUND');
  const set = await svc.api('PUT', `/v1/products/${p.productId}/discount`, { body: { method: 'PERCENT', value: 15, startDate: d(0), endDate: d(2) } });
  assert.is(set.status, 200, JSON.stringify(set.body));
  assert.equal(set.data, { method: 'PERCENT', value: 15, startDate: d(0), endDate: d(2), discountedPrice: 8500, active: true });
  assert.equal((await svc.api('GET', `/v1/products/${p.productId}/discount`)).data, set.data);
  assert.equal((await read(svc.api, p.productId)).discount, set.data);
  const buyer = (await svc.api('GET', `/storefront/v1/products/${p.productId}`, { token: null, storeId: null })).data;
  assert.is(buyer.price, 8500);
  assert.is(buyer.originalPrice, 15000);
  assert.equal(
    buyer.variants.map((v: any) => v.price),
    [8500, 9500],
  );
  const later = await svc.api('PUT', `/v1/products/${p.productId}/discount`, { body: { method: 'AMOUNT', value: 3000, startDate: d(5), endDate: d(9) } });
  assert.is(later.data.active, false);
  assert.is((await svc.api('GET', `/storefront/v1/products/${p.productId}`, { token: null })).data.price, 10000);
  await svc.advance(6 * 86400);
  assert.is((await svc.api('GET', `/storefront/v1/products/${p.productId}`, { token: null })).data.price, 7000);
  // Six days on, the owner's login token has expired: log in again.
  const token = await login(svc);
  assert.equal((await svc.api('DELETE', `/v1/products/${p.productId}/discount`, { token })).data, { productId: p.productId, discount: null });
  assert.is((await svc.api('GET', `/v1/products/${p.productId}`, { token })).data.discount, null);
});

test.run();
