/**
 * The compiled CLI (`node bin/run.js …`, built by `npm test`) against an in-process service: the newcomer's
 * path `svc checkout try` → `svc orders list`, on the seeded store and on a store with no provider yet.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { apiClient, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { createProduct } from '../helpers/checkout.js';

let svc: TestService;
let configDir: string;

test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-checkout-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const svcCli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId, ...env });
const json = jsonOf;

test('svc checkout try on the seeded store, then svc orders list/get and svc payments list/get show it', async () => {
  const human = await svcCli(['checkout', 'try']);
  assert.is(human.exitCode, 0, human.stderr);
  assert.match(human.stdout, /Order \d{14} \(ord_\w+\) · PAID · TEST payment/);
  assert.match(human.stdout, 'Approved in the sandbox.');
  const order = json(await svcCli(['checkout', 'try', '--json']));
  assert.is(order.testPayment, true);
  const list = json(await svcCli(['orders', 'list', '--json']));
  assert.is(list.totalElements, 2);
  assert.is(list.contents[0].orderId, order.orderId);
  const byNo = json(await svcCli(['orders', 'list', '--order-no', `${String(order.orderNo).slice(0, 8)}-${String(order.orderNo).slice(8)}`, '--json']));
  assert.equal(
    byNo.contents.map((o: any) => o.orderId),
    [order.orderId],
  );
  const table = await svcCli(['orders', 'list']);
  assert.match(table.stdout, String(order.orderNo));
  assert.match((await svcCli(['orders', 'get', order.orderId])).stdout, `payment ${order.payment.paymentId}`);
  const hidden = await svcCli(['payments', 'list']);
  assert.match(hidden.stdout, 'add --include-test');
  const payments = json(await svcCli(['payments', 'list', '--include-test', '--json']));
  assert.is(payments.totalElements, 2);
  const payment = json(await svcCli(['payments', 'get', order.payment.paymentId, '--json']));
  assert.equal([payment.status, payment.attempts.length, payment.pgOrderId], ['APPROVED', 1, `${order.orderNo}-01`]);
  const missing = await svcCli(['orders', 'get', 'ord_nope', '--json']);
  assert.is(missing.exitCode, 1);
  assert.is(json(missing).code, 'ORDER_NOT_FOUND');
});

test('svc checkout try connects pg_one in sandbox mode when no provider is in use; usage error without products', async () => {
  const seller = await newSellerWithStore(svc, 'clitry');
  const env = { SVC_TOKEN: seller.token, SVC_STORE_ID: seller.storeId };
  const empty = await svcCli(['checkout', 'try'], env);
  assert.is(empty.exitCode, 2, empty.stdout + empty.stderr);
  assert.match(empty.stderr, 'no product on sale');
  const p = await createProduct(seller.api, { name: 'CLI 상품', salePrice: 5000, stockQuantity: 3 });
  const r = await svcCli(['checkout', 'try', '--product', p.productId, '--quantity', '2'], env);
  assert.is(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, 'connecting pg_one in sandbox mode', r.stdout + r.stderr);
  assert.match(r.stdout, '13,000원');
  // The buyer API as a storefront calls it: no admin token, only the store.
  const store = (await apiClient(svc.url, { storeId: seller.storeId })('GET', '/storefront/v1/store')).data;
  assert.equal([store.checkoutAvailable, store.checkoutMode], [true, 'TEST']);
});

test.run();
