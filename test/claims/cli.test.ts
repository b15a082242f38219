/** `svc orders cancel` with the compiled CLI: the preview as a table, the cancel, a usage error without a reason. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { ok } from '../helpers/assert.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { buy, connectSandbox, createProduct } from '../checkout/support.js';

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

test('orders cancel --preview, then the cancel; --reason is required', async () => {
  const p = await createProduct(svc.api, { name: '취소될 상품', salePrice: 15000 });
  const { done } = await buy(svc, svc.storeId, { productId: p.productId, optionId: p.optionId });
  const item = ok(await svc.api('GET', `/v1/orders/${done.orderId}`)).items[0];
  const preview = await svcCli(['orders', 'cancel', item.orderItemId, '--quantity', '1', '--preview']);
  assert.is(preview.exitCode, 0, preview.stderr);
  assert.match(preview.stdout, /shipping refund\s+3,000원/);
  assert.match(preview.stdout, /refund\s+18,000원/);
  assert.is((await svcCli(['orders', 'cancel', item.orderItemId, '--quantity', '1'])).exitCode, 2);
  const canceled = jsonOf(await svcCli(['orders', 'cancel', item.orderItemId, '--quantity', '1', '--reason', 'PRICE_ERROR', '--json']));
  assert.equal([canceled.itemStatus, canceled.amounts.cashRefundAmount, canceled.refundStatus], ['CANCELED', 18000, 'COMPLETED']);
});

test.run();
