/**
 * Terminal control sequences in anonymous analytics events (outside security run): a visitor's path, UTM
 * values and search terms reach `svc analytics` tables and CSV as visible escapes, never as an ESC or BEL
 * byte the seller's terminal would obey; `--json` keeps the values themselves.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';

const TITLE = '\u001b]0;pwned\u0007';
const CLEAR = '\u001b[2J';
/** Bytes a terminal acts on: C0 but line feed, DEL, C1. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let svc: TestService;
let configDir: string;

test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-escapes-'));
  const now = svc.services.clock.now();
  const at = (ms: number) => new Date(now - ms).toISOString();
  const visitor = apiClient(svc.url, { storeId: svc.storeId });
  const res = await visitor('POST', '/storefront/v1/events', {
    headers: {
      'x-svc-visitor': 'visitor-escapes-1',
      'x-svc-session': 'session-escapes-1',
      'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148',
    },
    body: {
      events: [
        { name: 'page', at: at(60_000), path: `/${TITLE}${CLEAR}`, utm: { source: `kakao${TITLE}`, medium: CLEAR, campaign: `launch\u009b2J\nforged row` } },
        { name: 'search', at: at(50_000), path: '/', query: `mug${CLEAR}`, resultCount: 0 },
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

test("svc analytics tables and CSV print a visitor's control characters as visible escapes", async () => {
  const sources = await svcCli(['analytics', 'sources']);
  assert.is(sources.exitCode, 0, sources.stderr);
  assert.not.match(sources.stdout, CONTROL, JSON.stringify(sources.stdout));
  assert.match(sources.stdout, 'kakao\\u001b]0;pwned\\u0007', 'the text is still there, escaped');

  const pages = await svcCli(['analytics', 'pages']);
  assert.is(pages.exitCode, 0, pages.stderr);
  assert.not.match(pages.stdout, CONTROL, JSON.stringify(pages.stdout));
  assert.match(pages.stdout, '/\\u001b]0;pwned\\u0007\\u001b[2J');

  const search = await svcCli(['analytics', 'search']);
  assert.is(search.exitCode, 0, search.stderr);
  assert.not.match(search.stdout, CONTROL, JSON.stringify(search.stdout));
  assert.match(search.stdout, 'mug\\u001b[2j', 'search terms are kept in lower case');

  const csv = await svcCli(['analytics', 'pages', '--csv']);
  assert.not.match(csv.stdout, CONTROL, JSON.stringify(csv.stdout));
  assert.match(csv.stdout, '/\\u001b]0;pwned\\u0007\\u001b[2J');
});

test('--json output is the report itself: the same values, still valid JSON', async () => {
  const json = jsonOf(await svcCli(['analytics', 'sources', '--json']));
  assert.ok(
    json.rows.some((r: any) => r.source === `kakao${TITLE}`),
    JSON.stringify(json.rows),
  );
  const pages = jsonOf(await svcCli(['analytics', 'pages', '--json']));
  assert.ok(
    pages.rows.some((r: any) => r.path === `/${TITLE}${CLEAR}`),
    JSON.stringify(pages.rows),
  );
});

test.run();
