/**
 * Verify and checks over HTTP: the immediate rules on good and broken projects; a check that passes, one
 * that fails each step (type check, lint, tests), one that times out after 150 s of service clock, one
 * whose process died unreported; one check per site at a time; tenancy.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checks } from '../../src/modules/storefront/schema.js';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { createSite, eventually, miniProject, tarGz, uploadSource } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let token: string;
test.before(async () => {
  svc = await startTestService();
  token = await createAccessToken(svc, svc.ownerToken, { scopes: ['storefront:rw'], expiresInDays: 365 });
  api = apiClient(svc.url, { token, storeId: svc.storeId });
  await createSite(api);
});
test.after(async () => {
  await svc.close();
});

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    module: 'ESNext',
    moduleResolution: 'Bundler',
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  },
  include: ['src'],
});
const upload = async (files: Record<string, string | Uint8Array>) => {
  const res = await uploadSource(svc, { token, storeId: svc.storeId }, await tarGz(files));
  assert.is(res.status, 200, JSON.stringify(res.body));
};
const finished = (checkId: string) =>
  eventually(
    api,
    async () => {
      const check = ok(await api('GET', `/v1/storefront/site/checks/${checkId}`));
      return ['QUEUED', 'RUNNING'].includes(check.status) ? undefined : check;
    },
    `check ${checkId}`,
    120_000,
  );
const stepsOf = (check: any) => Object.fromEntries(check.steps.map((s: any) => [s.name, s.status]));

test('verify: the template passes; a broken project answers every problem at once, fast', async () => {
  const good = ok(await api('POST', '/v1/storefront/site/verify'));
  assert.equal([good.ok, good.errors], [true, []]);
  await upload({ ...miniProject({ lock: null }), 'svc.storefront.json': JSON.stringify({ server: 'src/missing.ts', client: ['src/client.ts'], extra: 1 }) });
  const invalidConfig = ok(await api('POST', '/v1/storefront/site/verify'));
  assert.is(invalidConfig.ok, false);
  assert.equal(invalidConfig.errors.map((e: any) => e.code).sort(), ['LOCKFILE_MISSING', 'PROJECT_CONFIG_INVALID']);
  await upload({
    ...miniProject({ lock: null, packageJson: { scripts: { postinstall: 'node x.js' } } }),
    'svc.storefront.json': JSON.stringify({ server: 'src/missing.ts' }),
  });
  const broken = ok(await api('POST', '/v1/storefront/site/verify'));
  assert.equal(
    broken.errors.map((e: any) => [e.code, e.path]),
    [
      ['ENTRY_MISSING', 'src/missing.ts'],
      ['LOCKFILE_MISSING', 'pnpm-lock.yaml'],
    ],
  );
  assert.ok(
    broken.warnings.some((w: any) => w.code === 'DEPENDENCY_INSTALL_SCRIPT'),
    JSON.stringify(broken.warnings),
  );
});

test("a check that passes: type check, lint and tests of the site's files; one at a time per site", async () => {
  await upload({
    ...miniProject(),
    'tsconfig.json': TSCONFIG,
    'test/math.test.ts':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('adds', () => { const n: number = 1 + 1; assert.equal(n, 2); });\n",
  });
  const queued = ok(await api('POST', '/v1/storefront/site/checks'), 202);
  assert.is(queued.status, 'QUEUED');
  assert.equal(stepsOf(queued), { typecheck: 'PENDING', lint: 'PENDING', test: 'PENDING' });
  const busy = fails(await api('POST', '/v1/storefront/site/checks'), 409, 'CHECK_RUNNING');
  assert.is(busy.error.details.checkId, queued.checkId);
  const done = await finished(queued.checkId);
  assert.is(done.status, 'PASSED', JSON.stringify(done.steps));
  assert.equal(stepsOf(done), { typecheck: 'PASSED', lint: 'PASSED', test: 'PASSED' });
  assert.match(done.steps[2].output, 'adds');
  assert.ok(done.steps.every((s: any) => s.durationMs >= 0));
  const other = await newSellerWithStore(svc, 'sf-chk');
  fails(await other.api('GET', `/v1/storefront/site/checks/${queued.checkId}`), 404, 'STOREFRONT_CHECK_NOT_FOUND');
});

test('a check that fails each step: a type error, a lint finding, a failing test', async () => {
  await upload({
    ...miniProject(),
    'tsconfig.json': TSCONFIG,
    'src/wrong.ts':
      "export const count: number = 'three';\nexport function kind(x: number) { switch (x) { case 1: return 'one'; case 1: return 'uno'; } return 'many'; }\n",
    'test/math.test.ts':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('adds wrongly', () => { assert.equal(1 + 1, 3); });\n",
  });
  const check = await finished(ok(await api('POST', '/v1/storefront/site/checks'), 202).checkId);
  assert.is(check.status, 'FAILED');
  assert.equal(stepsOf(check), { typecheck: 'FAILED', lint: 'FAILED', test: 'FAILED' });
  assert.match(check.steps[0].output, 'TS2322');
  assert.match(check.steps[1].output, 'duplicate-case');
  assert.match(check.steps[2].output, 'adds wrongly');
});

test('a check still running after 150 s is TIMED_OUT (its process stopped); one whose process died unreported is UNKNOWN', async () => {
  await upload({ ...miniProject(), 'test/loop.test.ts': "import { test } from 'node:test';\ntest('never ends', () => { for (;;) {} });\n" });
  const { checkId } = ok(await api('POST', '/v1/storefront/site/checks'), 202);
  await eventually(
    api,
    async () => {
      const check = ok(await api('GET', `/v1/storefront/site/checks/${checkId}`));
      return check.steps[2].status === 'RUNNING' ? check : undefined;
    },
    'the test step to run',
  );
  await svc.advance(151);
  const timedOut = ok(await api('GET', `/v1/storefront/site/checks/${checkId}`));
  assert.is(timedOut.status, 'TIMED_OUT');
  assert.is(stepsOf(timedOut).test, 'TIMED_OUT');
  assert.equal([stepsOf(timedOut).typecheck, stepsOf(timedOut).lint], ['SKIPPED', 'PASSED']);

  const now = svc.services.clock.now();
  const site = ok(await api('GET', '/v1/storefront/site'));
  await svc.services.db
    .insert(checks)
    .values({
      id: 'chk_dead',
      storeId: svc.storeId,
      siteId: site.siteId,
      status: 'RUNNING',
      steps: [],
      files: {},
      nextAttemptAt: now + 180_000,
      createdAt: now,
      startedAt: now,
      finishedAt: null,
    })
    .run();
  fails(await api('POST', '/v1/storefront/site/checks'), 409, 'CHECK_RUNNING');
  await svc.advance(181);
  assert.is(ok(await api('GET', '/v1/storefront/site/checks/chk_dead')).status, 'UNKNOWN');
});

test('svc check in a folder, no service: the basic template passes; a broken copy fails with exit 1, --json and --junit', async () => {
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
  const template = join(import.meta.dirname, '..', '..', 'templates', 'storefront', 'basic');
  const started = performance.now();
  const passing = await execa('node', [bin, 'check', '--dir', template], { reject: false, env: { CI: '1', NO_COLOR: '1' } });
  console.log(`  svc check on the basic template: ${(performance.now() - started).toFixed(0)} ms`);
  assert.is(passing.exitCode, 0, `${passing.stdout}\n${passing.stderr}`);
  assert.match(passing.stdout, 'svc check PASSED');

  const work = mkdtempSync(join(tmpdir(), 'svc-check-'));
  try {
    cpSync(template, work, { recursive: true });
    writeFileSync(join(work, 'src', 'broken.ts'), "export const total: number = 'many';\n");
    mkdirSync(join(work, 'test'));
    writeFileSync(
      join(work, 'test', 'price.test.ts'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('price', () => assert.equal(1, 2));\n",
    );
    rmSync(join(work, 'pnpm-lock.yaml'));
    const junitFile = join(work, 'svc-check.xml');
    const failing = await execa('node', [bin, 'check', '--dir', work, '--json', '--junit', junitFile], { reject: false, env: { CI: '1', NO_COLOR: '1' } });
    assert.is(failing.exitCode, 1, failing.stderr);
    const report = JSON.parse(failing.stdout);
    assert.equal([report.kind, report.status, report.verify.ok], ['storefront', 'FAILED', false]);
    assert.equal(
      report.verify.errors.map((e: any) => e.code),
      ['LOCKFILE_MISSING'],
    );
    assert.equal(stepsOf(report), { typecheck: 'FAILED', lint: 'PASSED', test: 'FAILED' });
    const xml = readFileSync(junitFile, 'utf8');
    assert.match(xml, '<testsuite name="svc check" tests="4" failures="3" skipped="0">');
    assert.match(xml, /<testcase classname="svc.check.storefront" name="typecheck" time="[\d.]+"><failure message="FAILED">[^<]*TS2322/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('svc check in an app folder verifies its manifest', async () => {
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
  const work = mkdtempSync(join(tmpdir(), 'svc-check-app-'));
  try {
    cpSync(join(import.meta.dirname, '..', '..', 'templates', 'app', 'tools'), work, { recursive: true });
    const manifest = join(work, 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('{{handle}}', 'greeter').replace('{{name}}', 'Greeter'));
    const passing = await execa('node', [bin, 'check', '--dir', work, '--json'], { reject: false, env: { CI: '1' } });
    assert.is(passing.exitCode, 0, passing.stdout);
    assert.equal([JSON.parse(passing.stdout).kind, JSON.parse(passing.stdout).status], ['app', 'PASSED']);
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"handle": "greeter"', '"handle": "Greeter!"'));
    const failing = await execa('node', [bin, 'check', '--dir', work, '--json'], { reject: false, env: { CI: '1' } });
    assert.is(failing.exitCode, 1);
    assert.equal(
      JSON.parse(failing.stdout).verify.errors.map((e: any) => e.path),
      ['manifest.json#handle'],
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();
