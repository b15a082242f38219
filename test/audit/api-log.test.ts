/**
 * The API log (spec 01 §7, §8): every administration API request of a store, kept 7 days, searchable by the
 * `traceId` an error envelope carries. Records are written in batches off the request path; the test flushes
 * them with the dev job run (`POST /_dev/v1/jobs/run`), which the service's own timer does by itself.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliEnv, jsonOf, packageRoot, runCli } from '../helpers/cli.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** Writes the records buffered so far (the job run flushes the API log before it answers). */
const flush = async () => assert.is((await svc.api('POST', '/_dev/v1/jobs/run')).status, 200);
const apiLogs = async (query: Record<string, string | number> = {}, api = svc.api) => {
  const res = await api('GET', '/v1/api-logs', { query });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.data as { contents: any[]; nextCursor: string | null };
};

test("a failing request's traceId from its error envelope is found in the API log", async () => {
  const failed = await svc.api('PATCH', '/v1/store', { body: { bogus: true }, headers: { 'idempotency-key': 'api-log-1' } });
  assert.is(failed.status, 400);
  const traceId = failed.body.error.traceId;
  assert.ok(traceId);
  await flush();
  const found = await apiLogs({ traceId });
  assert.is(found.contents.length, 1);
  const record = found.contents[0];
  assert.is(record.traceId, traceId);
  assert.is(record.requestId, failed.headers.get('x-request-id'));
  assert.is(record.operationId, 'updateStore');
  assert.is(record.method, 'PATCH');
  assert.is(record.path, '/v1/store');
  assert.is(record.status, 400);
  assert.is(record.errorCode, 'VALIDATION_FAILED');
  assert.is(record.idempotencyKey, 'api-log-1');
  assert.is(record.actor.type, 'USER');
  assert.ok(record.actor.id);
  assert.type(record.durationMs, 'number');
  assert.ok(record.durationMs >= 0);
  assert.ok(Date.parse(record.createdAt) > 0);
});

test('reads are logged too, and appear without anyone flushing', async () => {
  const read = await svc.api('GET', '/v1/store');
  const traceId = read.headers.get('x-trace-id')!;
  let found: any[] = [];
  for (let tries = 0; found.length === 0; tries++) {
    if (tries > 100) throw new Error('the GET never reached the API log');
    await new Promise((r) => setTimeout(r, 100));
    found = (await apiLogs({ traceId })).contents;
  }
  assert.is(found[0].status, 200);
  assert.is(found[0].errorCode, null);
  assert.is(found[0].operationId, 'getStore');
});

test('filters: operationId, status, from/to, and cursor pages', async () => {
  await svc.api('PATCH', '/v1/store', { body: { bogus: 1 } });
  await svc.api('GET', '/v1/store');
  await flush();
  const failures = await apiLogs({ status: 400, limit: 100 });
  assert.ok(failures.contents.length >= 2);
  assert.ok(failures.contents.every((r) => r.status === 400));
  const updates = await apiLogs({ operationId: 'updateStore', limit: 100 });
  assert.ok(updates.contents.length >= 2);
  assert.ok(updates.contents.every((r) => r.operationId === 'updateStore'));

  const first = await apiLogs({ limit: 1 });
  assert.is(first.contents.length, 1);
  assert.ok(first.nextCursor);
  const second = await apiLogs({ limit: 1, cursor: first.nextCursor! });
  assert.ok(second.contents[0].apiLogId < first.contents[0].apiLogId, 'newest first');

  // Far past anything this test's clock reaches (the service's manual clock runs from now).
  const future = '2099-01-01T00:00:00.000Z';
  assert.is((await apiLogs({ from: future })).contents.length, 0);
  assert.ok((await apiLogs({ to: future })).contents.length > 0);
  const backwards = await svc.api('GET', '/v1/api-logs', { query: { from: future, to: '2026-01-01T00:00:00Z' } });
  assert.is(backwards.body.error.code, 'INVALID_PARAMETER');
});

test('no body, query secret or token is recorded', async () => {
  const secret = 'hunter2-very-secret';
  const res = await svc.api('PATCH', '/v1/store', { body: { name: 'x', password: secret, secretKey: secret }, query: { apiKey: `q-${secret}` } });
  const traceId = res.body.error.traceId;
  await flush();
  const record = (await apiLogs({ traceId })).contents[0];
  assert.ok(record, 'recorded');
  const text = JSON.stringify(record);
  assert.not.match(text, secret);
  assert.not.match(text, svc.ownerToken);
  assert.is(record.path, '/v1/store');
});

test("another store's token never sees the log, and outsiders' refused requests are not logged in it", async () => {
  const mine = await svc.api('GET', '/v1/store');
  const myTrace = mine.headers.get('x-trace-id')!;
  const mallory = await newSellerWithStore(svc, 'mallory');
  const refused = await apiClient(svc.url)('GET', '/v1/store', { token: mallory.token, storeId: svc.storeId });
  assert.is(refused.body.error.code, 'NOT_A_MEMBER');
  await flush();
  const asMallory = apiClient(svc.url, { token: mallory.token, storeId: mallory.storeId });
  assert.is((await apiLogs({ traceId: myTrace }, asMallory)).contents.length, 0);
  const peek = await apiClient(svc.url)('GET', '/v1/api-logs', { token: mallory.token, storeId: svc.storeId });
  assert.is(peek.body.error.code, 'NOT_A_MEMBER');
  assert.is((await apiLogs({ traceId: refused.body.error.traceId })).contents.length, 0);
  assert.is((await apiLogs({ traceId: myTrace })).contents.length, 1);
});

test('reading the API log needs audit:r', async () => {
  const token = await createAccessToken(svc, await login(svc), { scopes: ['store:r'] });
  const res = await apiClient(svc.url)('GET', '/v1/api-logs', { token, storeId: svc.storeId });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'INSUFFICIENT_ROLE');
  const auditor = await createAccessToken(svc, await login(svc), { scopes: ['audit:r'] });
  assert.is((await apiClient(svc.url)('GET', '/v1/api-logs', { token: auditor, storeId: svc.storeId })).status, 200);
});

test('svc logs --trace-id finds the request, one line each, or its JSON', async () => {
  const failed = await svc.api('PATCH', '/v1/store', { body: { bogus: true } });
  const traceId = failed.body.error.traceId;
  await flush();
  const env = { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId };
  const human = await runCli(['logs', '--trace-id', traceId], env);
  assert.is(human.exitCode, 0, human.stderr);
  const lines = human.stdout.trim().split('\n');
  assert.is(lines.length, 1, human.stdout);
  assert.match(lines[0], /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} KST {2}400 {2}PATCH \/v1\/store {2}\d+ms {2}VALIDATION_FAILED {2}/);
  assert.ok(lines[0].endsWith(traceId), lines[0]);

  const json = jsonOf(await runCli(['logs', '--trace-id', traceId, '--json'], env));
  assert.is(json.contents.length, 1);
  assert.is(json.contents[0].traceId, traceId);

  const usage = await runCli(['logs', '--status', 'abc'], env);
  assert.is(usage.exitCode, 2);
});

test('svc logs --follow prints requests as they come', async () => {
  const env = { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId };
  const follow = execa(process.execPath, ['bin/run.js', 'logs', '--follow', '--operation', 'updateStore', '--json'], {
    cwd: packageRoot,
    env: cliEnv(env),
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
  });
  let printed = '';
  follow.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  try {
    const traces: string[] = [];
    const seen = () =>
      printed
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l).traceId as string);
    for (let tries = 0; !traces.every((t) => seen().includes(t)) || traces.length < 2; tries++) {
      if (tries > 150) throw new Error(`svc logs --follow printed: ${printed}`);
      if (tries % 10 === 0) traces.push((await svc.api('PATCH', '/v1/store', { body: { bogus: tries } })).body.error.traceId);
      await flush();
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(seen().indexOf(traces[0]) < seen().indexOf(traces[1]), 'oldest first');
  } finally {
    follow.kill();
    await follow;
  }
});

test('records are pruned after 7 days', async () => {
  // A login token lasts 15 minutes: an access token outlives the week.
  const auditor = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['audit:r'] }), storeId: svc.storeId });
  const res = await svc.api('GET', '/v1/store');
  const traceId = res.headers.get('x-trace-id')!;
  await flush();
  await svc.advance(7 * 86400 - 120);
  assert.is((await apiLogs({ traceId }, auditor)).contents.length, 1);
  await svc.advance(240);
  assert.is((await apiLogs({ traceId }, auditor)).contents.length, 0);
});

test.run();
