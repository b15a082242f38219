import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { GUEST, buy, buyerApi, connectSandbox, createProduct, directSheet, fails, ok, startGuestPayment } from '../helpers/checkout.js';

let svc: TestService;
let api: Api;
let first: { orderId: string; orderNo: number; paymentId: string; attemptId: string };
let second: { orderId: string; orderNo: number; paymentId: string };
let openPaymentId: string;

test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  await connectSandbox(api);
  const p = await createProduct(api, { name: '관리자 조회 상품', salePrice: 15000 });
  const a = await buy(svc, svc.storeId, { productId: p.productId, optionId: p.optionId });
  const b = await buy(svc, svc.storeId, { productId: p.productId, optionId: p.optionId, quantity: 2 });
  const orderOf = async (id: string) => ok(await api('GET', `/v1/orders/${id}`));
  const oa = await orderOf(a.done.orderId);
  const ob = await orderOf(b.done.orderId);
  first = { orderId: oa.orderId, orderNo: oa.orderNo, paymentId: a.start.paymentId, attemptId: a.start.attemptId };
  second = { orderId: ob.orderId, orderNo: ob.orderNo, paymentId: b.start.paymentId };
  const guest = buyerApi(svc, svc.storeId);
  const sheet = await directSheet(guest, { productId: p.productId, optionId: p.optionId });
  openPaymentId = ok(await startGuestPayment(guest, sheet, { guest: { ...GUEST, name: '박열림' } }), 201).paymentId;
});
test.after(async () => {
  await svc.close();
});

const hyphenated = (no: number) => `${String(no).slice(0, 8)}-${String(no).slice(8)}`;
const ids = (page: any) => page.contents.map((o: any) => o.orderId);

test('GET /v1/orders: newest first, orderNo with hyphen, keyword, testPayment, lastChangedFrom, period rules', async () => {
  const all = ok(await api('GET', '/v1/orders'));
  assert.equal(ids(all), [second.orderId, first.orderId]);
  assert.equal([all.page, all.size, all.totalElements, all.totalPages], [1, 20, 2, 1]);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { orderNo: hyphenated(first.orderNo) } }))), [first.orderId]);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { keyword: hyphenated(second.orderNo) } }))), [second.orderId]);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { keyword: '김구' } }))).length, 2);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { keyword: '관리자 조회' } }))).length, 2);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { keyword: '없는말' } }))), []);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { testPayment: false } }))), []);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { testPayment: true, size: 1 } }))), [second.orderId]);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { lastChangedFrom: new Date(svc.services.clock.now() + 3600_000).toISOString() } }))), []);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { lastChangedFrom: '2020-01-01T00:00:00+09:00' } }))).length, 2);
  assert.equal(ids(ok(await api('GET', '/v1/orders', { query: { orderedFrom: '2020-01-01', orderedTo: '2020-01-31' } }))), []);
  fails(await api('GET', '/v1/orders', { query: { orderedFrom: '2020-01-01', orderedTo: '2020-06-01' } }), 400, 'RANGE_TOO_WIDE');
  fails(await api('GET', '/v1/orders', { query: { orderedFrom: '2020-02-30' } }), 400, 'INVALID_PARAMETER');
  fails(await api('GET', '/v1/orders', { query: { orderNo: '123' } }), 400, 'VALIDATION_FAILED');
  fails(await api('GET', '/v1/orders', { query: { status: 'PAID' } }), 400, 'VALIDATION_FAILED');
  fails(await api('GET', '/v1/orders', { query: { testPayment: 'yes' } }), 400, 'VALIDATION_FAILED');
});

test('GET /v1/order-items: testPayment and orderId filters', async () => {
  const items = ok(await api('GET', '/v1/order-items', { query: { testPayment: true } }));
  assert.is(items.totalElements, 2);
  assert.equal(items.contents.map((i: any) => i.orderNo).sort(), [first.orderNo, second.orderNo].sort());
  assert.is(ok(await api('GET', '/v1/order-items', { query: { testPayment: false } })).totalElements, 0);
  const one = ok(await api('GET', '/v1/order-items', { query: { orderId: second.orderId } }));
  assert.equal(
    one.contents.map((i: any) => [i.quantity, i.orderItemNo, i.optionId === i.variantId]),
    [[2, second.orderNo * 100 + 1, true]],
  );
});

test('GET /v1/payments: test payments only with includeTest, filters, search, 92-day period', async () => {
  assert.is(ok(await api('GET', '/v1/payments')).totalElements, 0);
  const all = ok(await api('GET', '/v1/payments', { query: { includeTest: true } }));
  assert.equal(
    all.contents.map((p: any) => p.paymentId),
    [openPaymentId, second.paymentId, first.paymentId],
  );
  const list = async (query: Record<string, string | boolean>) =>
    ok(await api('GET', '/v1/payments', { query: { includeTest: true, ...query } })).contents.map((p: any) => p.paymentId);
  assert.equal(await list({ status: 'APPROVED' }), [second.paymentId, first.paymentId]);
  assert.equal(await list({ status: 'READY,FAILED' }), [openPaymentId]);
  assert.equal(await list({ provider: 'pg_two' }), []);
  assert.equal((await list({ provider: 'pg_one', method: 'CARD' })).length, 3);
  assert.equal(await list({ keyword: String(first.orderNo) }), [first.paymentId]);
  assert.equal(await list({ keyword: hyphenated(second.orderNo) }), [second.paymentId]);
  assert.equal(await list({ keyword: first.paymentId }), [first.paymentId]);
  assert.equal(await list({ keyword: first.attemptId }), [first.paymentId]);
  assert.equal(await list({ keyword: '박열' }), [openPaymentId]);
  assert.equal(await list({ from: '2020-01-01', to: '2020-03-01' }), []);
  fails(await api('GET', '/v1/payments', { query: { from: '2020-01-01', to: '2020-04-05' } }), 400, 'RANGE_TOO_WIDE');
  fails(await api('GET', '/v1/payments', { query: { status: 'DONE' } }), 400, 'VALIDATION_FAILED');
  const item = all.contents.find((p: any) => p.paymentId === first.paymentId);
  assert.equal([item.status, item.provider, item.method, item.testPayment, item.pgOrderId], ['APPROVED', 'pg_one', 'CARD', true, `${first.orderNo}-01`]);
  assert.ok(item.pgTransactionId);
});

test("tenancy: another store's order and payment are 403 TENANT_MISMATCH; unknown ids 404", async () => {
  const other = await newSellerWithStore(svc, 'tenant');
  fails(await other.api('GET', `/v1/orders/${first.orderId}`), 403, 'TENANT_MISMATCH');
  fails(await other.api('GET', `/v1/payments/${first.paymentId}`), 403, 'TENANT_MISMATCH');
  fails(await other.api('GET', '/v1/orders/ord_nope'), 404, 'ORDER_NOT_FOUND');
  fails(await other.api('GET', '/v1/payments/pay_nope'), 404, 'PAYMENT_NOT_FOUND');
  assert.is(ok(await other.api('GET', '/v1/orders')).totalElements, 0);
  assert.is(ok(await other.api('GET', '/v1/payments', { query: { includeTest: true } })).totalElements, 0);
  assert.is(ok(await other.api('GET', '/v1/order-items')).totalElements, 0);
  // The buyer API of another store does not find this store's sheets and payments.
  fails(
    await buyerApi(svc, other.storeId)('POST', `/storefront/v1/payments/${openPaymentId}/attempts`, {
      body: { option: 'pg_one:CARD', returnUrl: 'https://x.example/' },
    }),
    404,
    'PAYMENT_NOT_FOUND',
  );
  fails(await api('GET', '/v1/orders', { token: null }), 401, 'UNAUTHORIZED');
});

test.run();
