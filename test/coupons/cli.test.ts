/**
 * The newcomer's walk of docs/promotions.md with the compiled CLI: turn points on, create a download
 * coupon, a member downloads it and pays with it and part in points, and the order shows the discount
 * and each item's point allocation; then grants, suspend and resume, the ledger, and an agent's create
 * ending at an approval request.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { createAccessToken, login, startTestService, type TestService } from '../helpers/service.js';
import { ok } from '../helpers/assert.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { member, pay, sheetOf, simulate } from '../helpers/members.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-promotions-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const svcCli = (args: string[], token = svc.ownerToken) =>
  runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: token, SVC_STORE_ID: svc.storeId });

test('points on, a download coupon, a member paying with it and part in points; the order shows both', async () => {
  const policy = await svcCli([
    'points',
    'policy',
    '--earn',
    'on',
    '--earn-rate',
    '1',
    '--validity-days',
    '365',
    '--use',
    'on',
    '--min-use',
    '1000',
    '--max-use-rate',
    '50',
  ]);
  assert.is(policy.exitCode, 0, policy.stderr);
  assert.match(policy.stdout, /earning\s+on, 1% on purchase decision/);
  assert.match(policy.stdout, /use\s+on, from 1,000원, up to 50% of a payment/);

  const coupon = jsonOf(
    await svcCli([
      'coupons',
      'create',
      '--name',
      '첫 구매 10%',
      '--type',
      'DOWNLOAD',
      '--percent',
      '10',
      '--max-discount',
      '5000',
      '--use-days',
      '30',
      '--json',
    ]),
  );
  assert.equal([coupon.issueType, coupon.benefit, coupon.status], ['DOWNLOAD', { method: 'PERCENT', value: 10, maxDiscountAmount: 5000 }, 'ACTIVE']);
  const usage = await svcCli(['coupons', 'create', '--name', '둘 다', '--type', 'MANUAL', '--percent', '10', '--amount', '1000']);
  assert.is(usage.exitCode, 2);

  const m = await member(svc, svc.api, 'cli-buyer');
  const granted = await svcCli(['points', 'grant', m.customerId, '5000', '--reason', '가입 축하']);
  assert.is(granted.exitCode, 0, granted.stderr);
  assert.match(granted.stdout, /GRANT 5,000 → balance 5,000원 \(valid until /);
  const item = ok(await m.buyer('POST', `/storefront/v1/coupons/${coupon.couponId}/download`), 201);

  const p = await createProduct(svc.api, { name: '머그컵', salePrice: 30000 });
  const sheet = await sheetOf(m.buyer, [p]);
  const start = ok(await pay(m.buyer, sheet, { coupons: [{ code: item.code }], pointAmount: 4000 }), 201);
  const done = ok(await simulate(m.buyer, start.paymentId, 'APPROVE'));
  const order = jsonOf(await svcCli(['orders', 'get', done.orderId, '--json']));
  assert.equal([order.amounts.couponDiscountAmount, order.amounts.pointAmount, order.amounts.totalAmount], [3000, 4000, 30000 + 3000 - 3000 - 4000]);
  assert.equal(
    order.items.map((i: any) => [i.couponDiscountAmount, i.pointAllocation]),
    [[3000, 4000]],
  );

  const ledger = await svcCli(['points', 'ledger', m.customerId]);
  assert.is(ledger.exitCode, 0, ledger.stderr);
  assert.match(ledger.stdout, /Balance 1,000원/);
  assert.match(ledger.stdout, /USE\s+-4,000원\s+1,000원\s+주문 결제에 사용/, ledger.stdout);
  const shown = await svcCli(['coupons', 'get', coupon.couponId]);
  assert.match(shown.stdout, /issued 1 · used 1/);
});

test('coupons list, grant (a failed buyer exits 1), suspend and resume; an agent create waits for approval', async () => {
  const manual = jsonOf(await svcCli(['coupons', 'create', '--name', '사과 쿠폰', '--type', 'MANUAL', '--amount', '2000', '--json']));
  const m = await member(svc, svc.api, 'cli-granted');
  const grant = await svcCli(['coupons', 'grant', manual.couponId, '--customers', `${m.customerId},cus_nobody`]);
  assert.is(grant.exitCode, 1);
  assert.match(grant.stdout, new RegExp(`${m.customerId}\\s+granted\\s+CP-`));
  assert.match(grant.stdout, /cus_nobody\s+CUSTOMER_NOT_FOUND/);
  assert.match(grant.stdout, /1 granted, 1 failed/);
  const list = await svcCli(['coupons', 'list', '--type', 'MANUAL']);
  assert.match(list.stdout, new RegExp(`${manual.couponId}\\s+사과 쿠폰\\s+MANUAL\\s+-\\s+2,000원\\s+ACTIVE\\s+1\\s+0`), list.stdout);
  assert.match((await svcCli(['coupons', 'suspend', manual.couponId])).stdout, /SUSPENDED/);
  const again = await svcCli(['coupons', 'suspend', manual.couponId]);
  assert.is(again.exitCode, 1);
  assert.match(again.stderr, /COUPON_STATUS_CONFLICT/);
  assert.match((await svcCli(['coupons', 'resume', manual.couponId])).stdout, /ACTIVE/);

  const agent = await createAccessToken(svc, await login(svc), { scopes: ['promotion:rw'], agent: true });
  const pending = await svcCli(['coupons', 'create', '--name', '에이전트 쿠폰', '--type', 'MANUAL', '--amount', '500'], agent);
  assert.is(pending.exitCode, 0, pending.stderr);
  assert.match(pending.stdout, /Waiting for approval apr_\w+ \(.+\), until .+: http/);
});

test.run();
