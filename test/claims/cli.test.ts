/** `svc orders cancel` with the compiled CLI: the preview as a table, the cancel, a usage error without a reason. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { ok } from '../helpers/assert.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { buy, buyerApi, connectSandbox, createProduct } from '../helpers/checkout.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-claims-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const svcCli = (args: string[]) => runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId });

test('orders cancel --preview (every unit left without --quantity), then the cancel; --quantity and --reason are required', async () => {
  const p = await createProduct(svc.api, { name: '취소될 상품', salePrice: 15000 });
  const { done } = await buy(svc, svc.storeId, { productId: p.productId, optionId: p.optionId });
  const item = ok(await svc.api('GET', `/v1/orders/${done.orderId}`)).items[0];
  // Without --quantity the preview is of every unit left.
  const preview = await svcCli(['orders', 'cancel', item.orderItemId, '--preview']);
  assert.is(preview.exitCode, 0, preview.stderr);
  assert.match(preview.stdout, /shipping refund\s+3,000원/);
  assert.match(preview.stdout, /refund\s+18,000원/);
  assert.is((await svcCli(['orders', 'cancel', item.orderItemId, '--quantity', '1'])).exitCode, 2);
  assert.is((await svcCli(['orders', 'cancel', item.orderItemId, '--reason', 'ETC'])).exitCode, 2);
  const canceled = jsonOf(await svcCli(['orders', 'cancel', item.orderItemId, '--quantity', '1', '--reason', 'PRICE_ERROR', '--json']));
  assert.equal([canceled.itemStatus, canceled.amounts.cashRefundAmount, canceled.refundStatus], ['CANCELED', 18000, 'COMPLETED']);
});

test('a buyer files a return; svc claims approve, pickup-complete and complete; the refund shows in svc payments get', async () => {
  const api = svc.api;
  const p = await createProduct(api, { name: '반품될 상품', salePrice: 20000 });
  const delegation = ok(await api('POST', '/v1/customers/delegations', { body: { uid: 'cli-returner', name: '반품 회원' } }), 201);
  const buyer = buyerApi(svc, svc.storeId, delegation.accessToken);
  const sheet = ok(
    await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { productId: p.productId, optionId: p.optionId, quantity: 1 } } }),
    201,
  );
  const start = ok(
    await buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, {
      body: {
        option: 'pg_one:CARD',
        returnUrl: 'http://localhost:5173/done',
        shippingAddress: { receiverName: '회원', phone: '01012345678', zipCode: '06236', address1: '서울' },
      },
    }),
    201,
  );
  const done = ok(await buyer('POST', `/_dev/v1/payments/${start.paymentId}/simulate`, { body: { outcome: 'APPROVE' } }));
  const item = ok(await api('GET', `/v1/orders/${done.orderId}`)).items[0];
  for (const args of [
    ['orders', 'confirm', item.orderItemId],
    ['orders', 'dispatch', item.orderItemId, '--carrier', 'CJ대한통운', '--tracking-no', '1'],
    ['orders', 'deliver', item.orderItemId],
  ]) {
    assert.is((await svcCli(args)).exitCode, 0, args.join(' '));
  }
  const filed = ok(
    await buyer('POST', `/storefront/v1/me/order-items/${item.orderItemId}/claims`, { body: { claimType: 'RETURN', quantity: 1, reason: 'CHANGE_OF_MIND' } }),
    201,
  );
  const listed = await svcCli(['claims', 'list', '--status', 'REQUESTED']);
  assert.match(listed.stdout, new RegExp(`${filed.claimId}\\s+\\d+\\s+RETURN\\s+REQUESTED\\s+1\\s+CHANGE_OF_MIND\\s+20,000원`));
  assert.match((await svcCli(['claims', 'approve', filed.claimId])).stdout, /RETURN 1 · APPROVED \(approved\)/);
  assert.match((await svcCli(['claims', 'pickup-complete', filed.claimId])).stdout, /PICKUP_COMPLETED/);
  const completed = jsonOf(await svcCli(['claims', 'complete', filed.claimId, '--json']));
  assert.equal([completed.status, completed.refundAmount, completed.refundStatus], ['COMPLETED', 20000, 'COMPLETED']);
  assert.match((await svcCli(['claims', 'get', filed.claimId])).stdout, /refund 20,000원 \(points 0원\) · shipping refund 0원 · charge 3,000원/);
  const payment = jsonOf(await svcCli(['payments', 'get', start.paymentId, '--json']));
  assert.equal(
    payment.refunds.map((r: any) => [r.claimId, r.amount, r.status]),
    [[filed.claimId, 17000, 'COMPLETED']],
  );
  assert.is((await svcCli(['claims', 'reject', filed.claimId])).exitCode, 2);

  const report = await svcCli(['reports', 'sales', '--include-test']);
  assert.is(report.exitCode, 0, report.stderr);
  assert.match(report.stdout, /test payments included/);
  assert.match(report.stdout, /refunds\s+refunded\s+net/i);
  assert.match(report.stdout, /█/);
  const csv = await svcCli(['reports', 'sales', '--include-test', '--csv', '--group-by', 'METHOD']);
  assert.match(csv.stdout, /^group,paymentCount,paymentAmount,refundCount,refundAmount,netAmount\nCARD,\d+,\d+,\d+,\d+,\d+/);
  const json = jsonOf(await svcCli(['reports', 'sales', '--include-test', '--json']));
  assert.ok(json.summary.refundAmount >= 17000 && json.summary.paymentCount >= 2, JSON.stringify(json.summary));
});

test.run();
