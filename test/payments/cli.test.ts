/** `svc payment-settings …` (compiled CLI) against an in-process service, as CI would run it. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { PG_ONE_TEST, PG_TWO_TEST } from '../helpers/payment-providers.js';

let svc: TestService;
let seller: Awaited<ReturnType<typeof newSellerWithStore>>;
let configDir: string;

test.before(async () => {
  svc = await startTestService();
  seller = await newSellerWithStore(svc, 'cli');
  configDir = mkdtempSync(join(tmpdir(), 'svc-pay-cli-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const svcCli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: seller.token, SVC_STORE_ID: seller.storeId, ...env });

test('connect, enable, get and sandbox: the provider walk from the CLI; secrets never printed', async () => {
  let r = await svcCli(['payment-settings', 'connect', 'pg_one', '--environment', 'TEST', '--client-key', PG_ONE_TEST.clientKey], {
    SVC_PG_SECRET: PG_ONE_TEST.secretKey,
  });
  assert.is(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /pg_one \(PG One\): DISABLED/);
  assert.match(r.stdout, /secretKey=test\*{8}/);
  r = await svcCli([
    'payment-settings',
    'connect',
    'pg_two',
    '--environment',
    'TEST',
    '--pg-store-id',
    PG_TWO_TEST.storeId,
    '--channel',
    'channel-key-card-0001=CARD,EASY_PAY:카드',
    '--api-secret',
    PG_TWO_TEST.apiSecret,
    '--json',
  ]);
  assert.is(r.exitCode, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).credentialSets.TEST.channels, [
    { channelKey: 'channel-key-card-0001', channelName: '카드', methods: ['CARD', 'EASY_PAY'] },
  ]);
  r = await svcCli(['payment-settings', 'enable', 'pg_one', '--easy-pay', 'EASYPAY_1,EASYPAY_2']);
  assert.is(r.exitCode, 0, r.stderr);
  r = await svcCli(['payment-settings', 'get']);
  assert.is(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /Checkout: TEST · candidates pg_one/);
  assert.match(r.stdout, /✗ PLATFORM_LIVE_ENABLED/);
  for (const s of [PG_ONE_TEST.secretKey, PG_TWO_TEST.apiSecret]) assert.not.ok(r.stdout.includes(s.slice(0, 8)));
  // Going live with the gate locked: exit 1 and the error code on stderr, its details listing the conditions.
  r = await svcCli(['payment-settings', 'sandbox', 'pg_one', 'off']);
  assert.is(r.exitCode, 1);
  assert.match(r.stderr, /LIVE_GATE_NOT_MET/);
  r = await svcCli(['payment-settings', 'sandbox', 'pg_one', 'off', '--json']);
  assert.is(JSON.parse(r.stdout).details.conditions.length, 5);
  r = await svcCli(['payment-settings', 'enable', 'pg_two', '--off', '--json']);
  assert.is(JSON.parse(r.stdout).enabled, false);
});

test('usage errors exit 2: unknown provider, flags of the other provider, malformed channel', async () => {
  assert.is((await svcCli(['payment-settings', 'enable', 'pg_three'])).exitCode, 2);
  assert.is((await svcCli(['payment-settings', 'connect', 'pg_one', '--environment', 'TEST', '--api-secret', 'x'])).exitCode, 2);
  const r = await svcCli(['payment-settings', 'connect', 'pg_two', '--environment', 'TEST', '--channel', 'channel-key-x']);
  assert.is(r.exitCode, 2);
  assert.match(r.stderr, /--channel/);
  assert.is((await svcCli(['payment-settings', 'sandbox', 'pg_one', 'maybe'])).exitCode, 2);
});

test.run();
