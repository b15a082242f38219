import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, ok, simulate, startGuestPayment } from '../helpers/checkout.js';

let svc: TestService;

test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
});
test.after(async () => {
  await svc.close();
});

test('50 buyers race for the last 10 units: 10 orders, 40 clean failures or automatic cancels, no negative stock, no double charge', async () => {
  const price = 9000;
  const p = await createProduct(svc.api, { name: '한정 수량', salePrice: price, stockQuantity: 10, fulfillment: { type: 'MANUAL' } });
  // Every buyer gets a sheet and a window (nothing is reserved), then all 50 approve at once.
  const started = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const buyer = buyerApi(svc, svc.storeId);
      const sheet = ok(
        await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { productId: p.productId, optionId: p.optionId, quantity: 1 } } }),
        201,
      );
      const start = ok(
        await startGuestPayment(buyer, sheet, { guest: { name: `구매자${i}`, phone: '01012345678', email: `b${i}@example.com`, orderPassword: 'pw-1234' } }),
        201,
      );
      return { buyer, paymentId: start.paymentId as string };
    }),
  );
  const outcomes = await Promise.all(
    started.map(async ({ buyer, paymentId }) => {
      const done = await simulate(buyer, paymentId, 'APPROVE');
      assert.is(done.status, 200, JSON.stringify(done.body));
      return { paymentId, result: done.data.result as string, code: done.data.lastFailure?.code ?? null, orderId: done.data.orderId as string | null };
    }),
  );
  const completed = outcomes.filter((o) => o.result === 'COMPLETED');
  const others = outcomes.filter((o) => !completed.includes(o));
  assert.is(completed.length, 10);
  assert.is(others.length, 40);
  for (const o of others) assert.is(o.code, 'OUT_OF_STOCK', JSON.stringify(o));
  assert.is(new Set(completed.map((o) => o.orderId)).size, 10);

  const product = ok(await svc.api('GET', `/v1/products/${p.productId}`));
  assert.equal([product.stockQuantity, product.status], [0, 'SOLD_OUT']);
  assert.is(ok(await svc.api('GET', '/v1/orders', { query: { keyword: '한정 수량', size: 100 } })).totalElements, 10);

  // Money: every approval that did not become an order was given back in full at the gateway.
  const ledger = (await svc.services.db.$client
    .prepare('select payment_id as "paymentId", gateway_amount as amount, canceled_amount as canceled, status from sandbox_gateway_payments')
    .all()) as { paymentId: string; amount: number; canceled: number; status: string }[];
  const charged = ledger.filter((l) => l.status === 'APPROVED' || l.status === 'CANCELED' || l.status === 'PARTIALLY_CANCELED');
  assert.is(
    charged.reduce((n, l) => n + l.amount - l.canceled, 0),
    10 * price,
  );
  for (const o of completed) assert.is(ledger.filter((l) => l.paymentId === o.paymentId && l.status === 'APPROVED').length, 1);
  for (const o of others) {
    const rows = ledger.filter((l) => l.paymentId === o.paymentId);
    assert.ok(
      rows.every((l) => l.status === 'CANCELED' && l.canceled === l.amount),
      JSON.stringify(rows),
    );
    const record = ok(await svc.api('GET', `/v1/payments/${o.paymentId}`));
    assert.equal([record.status, record.refunds.length, record.refunds[0].status], ['CANCELED', 1, 'COMPLETED']);
  }
});

test.run();
