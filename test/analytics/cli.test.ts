/** `svc analytics …` (the compiled CLI) against an in-process service with a few crafted visits. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { today } from '../../src/kernel/dates.js';
import { jsonOf, runCli } from '../helpers/cli.js';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let configDir: string;

test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-analytics-'));
  const now = svc.services.clock.now();
  const buyer = apiClient(svc.url, { storeId: svc.storeId });
  const at = (ms: number) => new Date(now - ms).toISOString();
  const res = await buyer('POST', '/storefront/v1/events', {
    headers: {
      'x-svc-visitor': 'visitor-cli-1',
      'x-svc-session': 'session-cli-1',
      'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148',
    },
    body: {
      events: [
        { name: 'page', at: at(60_000), path: '/', utm: { source: 'kakao', medium: 'social', campaign: 'launch' } },
        { name: 'search', at: at(50_000), path: '/', query: 'Mug', resultCount: 0 },
        { name: 'page', at: at(40_000), path: '/products/1' },
      ],
    },
  });
  assert.is(res.status, 204);
  await svc.advance(600);
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const svcCli = (args: string[]) => runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId });

test('svc analytics overview: sparklines and a table; --json is the report; --csv the rows', async () => {
  const human = await svcCli(['analytics', 'overview']);
  assert.is(human.exitCode, 0, human.stderr);
  assert.match(human.stdout, /sessions\s+[▁▂▃▄▅▆▇█]{30} 1/);
  const json = jsonOf(await svcCli(['analytics', 'overview', '--json']));
  assert.is(json.summary.sessions, 1);
  assert.is(json.rows.length, 30);
  const csv = await svcCli(['analytics', 'overview', '--csv', '--from', today(svc.services.clock.now()), '--to', today(svc.services.clock.now())]);
  const lines = csv.stdout.trim().split('\n');
  assert.is(lines.length, 2);
  assert.ok(lines[0].startsWith('date,sessions,engagedSessions,visitors,pageViews'));
});

test('svc analytics sources/devices/search/checkout/realtime print their tables; errors exit 1', async () => {
  assert.match((await svcCli(['analytics', 'sources'])).stdout, /kakao/);
  assert.match((await svcCli(['analytics', 'devices'])).stdout, /MOBILE/);
  const search = await svcCli(['analytics', 'search']);
  assert.match(search.stdout, /zero results: mug \(1\)/);
  const checkout = await svcCli(['analytics', 'checkout']);
  assert.match(checkout.stdout, /SESSION\s+█+\s+1 \(100%\)/);
  assert.match(checkout.stdout, /LEFT_BEFORE_WINDOW/);
  assert.is((await svcCli(['analytics', 'pages'])).exitCode, 0);
  assert.is((await svcCli(['analytics', 'products'])).exitCode, 0);
  const realtime = jsonOf(await svcCli(['analytics', 'realtime', '--json']));
  assert.ok('summary' in realtime);
  const wide = await svcCli(['analytics', 'overview', '--from', '2026-01-01', '--to', '2026-12-31']);
  assert.is(wide.exitCode, 1);
  assert.match(wide.stderr + wide.stdout, /RANGE_TOO_WIDE/);
});

test.run();
