/**
 * The newcomer's walk with the compiled CLI: `svc checkout try`, then `svc orders confirm/dispatch/deliver`
 * while `svc webhooks listen --json` prints ORDER.CONFIRMED → DISPATCHED → DELIVERED and the state changes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv, jsonOf, packageRoot, runCli } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-flows-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const env = () => ({ SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId });
const svcCli = (args: string[]) => runCli(args, env());

test('checkout try, then orders confirm/dispatch/deliver, seen live in webhooks listen', async () => {
  const listen = execa(
    process.execPath,
    ['bin/run.js', 'webhooks', 'listen', '--json', '--events', 'ORDER.CONFIRMED,ORDER.DISPATCHED,ORDER.DELIVERED,ORDER.FLOW_STATE_CHANGED'],
    {
      cwd: packageRoot,
      env: cliEnv(env()),
      extendEnv: false,
      reject: false,
      stdin: 'pipe',
    },
  );
  let printed = '';
  listen.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const events = () =>
    printed
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l).event)
      .filter((event) => event !== 'ready');
  try {
    // The stream shows events made after it connected: a sample event tells when it is.
    for (let tries = 0; events().length === 0; tries++) {
      if (tries > 100) throw new Error(`webhooks listen printed nothing: ${printed}`);
      await svc.api('POST', '/_dev/v1/events', { body: { type: 'ORDER.CONFIRMED' } });
      await new Promise((r) => setTimeout(r, 200));
    }
    const products = (await svc.api('GET', '/v1/products', { query: { size: 100 } })).data.contents;
    const shipped = products.find((p: any) => p.fulfillment.type === 'SHIPPING' && p.inventoryMode === 'STANDARD');
    const human = await svcCli(['checkout', 'try', '--product', shipped.productId]);
    assert.is(human.exitCode, 0, human.stderr);
    const hint = /Move it:\s+svc orders confirm (oi_\w+)/.exec(human.stdout);
    assert.ok(hint, human.stdout);
    const itemId = hint![1];

    const table = await svcCli(['orders', 'flow', itemId]);
    assert.is(table.exitCode, 0, table.stderr);
    assert.match(table.stdout, /PAID \(결제 완료\)/);
    assert.match(table.stdout, /CONFIRM\s+주문 확인\s+SELLER\s+yes/);

    const confirmed = await svcCli(['orders', 'confirm', itemId]);
    assert.is(confirmed.exitCode, 0, confirmed.stderr);
    assert.match(confirmed.stdout, `${itemId} → CONFIRMED (상품 준비중) · core CONFIRMED`);
    const usage = await svcCli(['orders', 'dispatch', itemId, '--carrier', 'CJ']);
    assert.is(usage.exitCode, 2);
    const dispatched = jsonOf(await svcCli(['orders', 'dispatch', itemId, '--carrier', 'CJ대한통운', '--tracking-no', '123456789012', '--json']));
    assert.equal([dispatched.state, dispatched.timers.map((t: any) => t.to)], ['DISPATCHED', ['DELIVERED']]);
    const wrong = await svcCli(['orders', 'action', itemId, 'DECIDE_PURCHASE', '--json']);
    assert.is(wrong.exitCode, 1);
    assert.equal([jsonOf(wrong).code, jsonOf(wrong).details], ['ACTION_NOT_AVAILABLE', { key: 'DECIDE_PURCHASE', reason: 'ACTOR' }]);
    const delivered = jsonOf(await svcCli(['orders', 'deliver', itemId, '--json']));
    assert.is(delivered.state, 'DELIVERED');

    const orderId = delivered.orderId;
    const until = Date.now() + 15_000;
    const mine = () => events().filter((e) => e.data.orderId === orderId);
    while (Date.now() < until && mine().length < 6) await new Promise((r) => setTimeout(r, 50));
    assert.equal(
      mine().map((e) => e.type),
      ['ORDER.FLOW_STATE_CHANGED', 'ORDER.CONFIRMED', 'ORDER.FLOW_STATE_CHANGED', 'ORDER.DISPATCHED', 'ORDER.FLOW_STATE_CHANGED', 'ORDER.DELIVERED'],
      printed,
    );
  } finally {
    listen.kill('SIGINT');
    await listen;
  }
});

test('orders fulfill and orders action with inputs; --json everywhere', async () => {
  const page = jsonOf(await svcCli(['api', 'GET', '/v1/products', '--json']));
  const manual = page.contents.find((p: any) => p.fulfillment.type === 'MANUAL' && p.inventoryMode === 'STANDARD');
  const order = jsonOf(await svcCli(['checkout', 'try', '--product', manual.productId, '--json']));
  const itemId = order.items[0].orderItemId;
  const invalid = await svcCli(['orders', 'action', itemId, 'FULFILL', '--input', 'note=', '--input', 'color=red', '--json']);
  assert.is(invalid.exitCode, 1);
  assert.is(jsonOf(invalid).code, 'FLOW_ACTION_INPUT_INVALID');
  const fulfilled = jsonOf(await svcCli(['orders', 'fulfill', itemId, '--note', '쿠폰 1234', '--json']));
  assert.equal([fulfilled.state, fulfilled.coreStatus], ['FULFILLED', 'FULFILLED']);
  const flow = jsonOf(await svcCli(['orders', 'flow', itemId, '--json']));
  assert.equal(
    flow.actions.map((a: any) => [a.key, a.actor]),
    [['DECIDE_PURCHASE', 'BUYER']],
  );
  const read = jsonOf(await svcCli(['orders', 'get', order.orderId, '--json']));
  assert.equal(read.items[0].fulfillment, { type: 'MANUAL', note: '쿠폰 1234' });
});

test.run();
