/**
 * Source upload and builds against a real npm registry (Verdaccio on loopback): files listed and read,
 * archives refused, a version built with a dependency installed from the registry, and every build
 * failure code of spec 02 §7 with its stage — the dependency policy's rejection, an advisory source
 * down for 30 minutes, an install that fails, a package changed since it was locked, installs and
 * artifacts too large, a compile error and the time limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/registry.js';
import { apiClient, startTestService, type Api, type TestService } from '../helpers/service.js';
import { longLivedToken } from '../helpers/members.js';
import { build, createSite, miniProject, runJobs, tarGz, uploadSource } from '../helpers/site-builds.js';

let registry: LocalRegistry;
let svc: TestService;
let api: Api;
const tokens = new WeakMap<Api, string>();
let hanging: Server;
/** The fixtures are published a moment before: pnpm's one-day release-age delay would refuse them. */
const FRESH_PACKAGES = { minimumReleaseAgeMinutes: 0 };

test.before(async () => {
  registry = await startLocalRegistry();
  await registry.publish('@fixture/greet', '1.0.0', { 'index.js': "export const greet = (name) => '안녕하세요, ' + name + '님';\n" }, { type: 'module' });
  await registry.publish('@fixture/heavy', '1.0.0', { 'index.js': `export const data = '${'x'.repeat(20_000)}';\n` }, { type: 'module' });
  await registry.publish('minimist', '1.2.5', { 'index.js': 'module.exports = () => ({});\n' });
  await registry.publish('npm-cli-docs', '1.0.0', { 'index.js': 'module.exports = 1;\n' });
  await registry.publish(
    '@fixture/scripted',
    '1.0.0',
    { 'index.js': 'export const x = 1;\n', 'install.js': "require('fs').writeFileSync('/tmp/svc-install-script-ran', 'yes');\n" },
    { type: 'module', scripts: { postinstall: 'node install.js' } },
  );
  svc = await startTestService({ storefront: { ...FRESH_PACKAGES, npmRegistry: registry.url, denylist: ['@fixture/heavy'], installLimitBytes: 10_000_000 } });
  api = await tokenApi(svc);
  await createSite(api);
  hanging = createServer(() => {});
  await new Promise<void>((ok) => hanging.listen(0, '127.0.0.1', () => ok()));
});
test.after(async () => {
  await svc.close();
  await registry.close();
  hanging.close();
});

/** A 30-day token's Api (tests move the clock), remembering the token for uploads. */
async function tokenApi(target: TestService): Promise<Api> {
  const token = await longLivedToken(target);
  const a = apiClient(target.url, { token, storeId: target.storeId });
  tokens.set(a, token);
  return a;
}

/** A real pnpm-lock.yaml for `dependencies`, resolved against the local registry. */
async function lockFor(dependencies: Record<string, string>, registryUrl = registry.url): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  try {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'mini-shop', version: '1.0.0', private: true, type: 'module', sayren: { templateVersion: '7' }, dependencies }),
    );
    await execa(
      join(process.cwd(), 'node_modules/.bin/pnpm'),
      [
        'install',
        '--lockfile-only',
        '--ignore-scripts',
        `--registry=${registryUrl}`,
        '--config.update-notifier=false',
        `--config.cache-dir=${join(dir, '.pnpm-cache')}`,
      ],
      { cwd: dir },
    );
    return readFileSync(join(dir, 'pnpm-lock.yaml'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function deploy(files: Record<string, string | Uint8Array>, target: { svc: TestService; api: Api } = { svc, api }) {
  const uploaded = await uploadSource(target.svc, { token: tokens.get(target.api)!, storeId: target.svc.storeId }, await tarGz(files));
  assert.is(uploaded.status, 200, JSON.stringify(uploaded.body));
  return build(target.api);
}

test('upload: files listed with sizes and hashes, one file read back; bad archives refused and nothing changes', async () => {
  const before = ok(await api('GET', '/v1/storefront/site/files')).contents;
  assert.ok(
    before.some((f: any) => f.path === 'package.json'),
    "the template's files are the source after the deployment",
  );
  const up = (bytes: Uint8Array) => uploadSource(svc, { token: tokens.get(api)!, storeId: svc.storeId }, bytes);
  for (const [archive, reason] of [
    [Buffer.from('not a tarball'), 'NOT_TAR_GZ'],
    [await tarGz({ 'src/server.ts': 'x' }), 'NO_PACKAGE_JSON'],
    [await tarGz({ 'package.json': '{}', '../escape.txt': 'x' }), 'UNSAFE_PATH'],
  ] as const) {
    const res = await up(archive);
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.equal([res.body.error.code, res.body.error.details.reason], ['STOREFRONT_SOURCE_INVALID', reason]);
  }
  assert.equal(ok(await api('GET', '/v1/storefront/site/files')).contents, before);

  const files = miniProject({ files: { 'node_modules/x/index.js': 'skipped', 'src/notes.txt': '메모 ✓' } });
  const res = await up(await tarGz(files));
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.data.skipped, 1);
  assert.ok(res.data.changed.includes('package.json') && res.data.added.includes('src/notes.txt') && res.data.removed.length > 0, JSON.stringify(res.data));
  const listed = ok(await api('GET', '/v1/storefront/site/files')).contents;
  assert.equal(
    listed.map((f: any) => f.path).sort(),
    Object.keys(files)
      .filter((p) => !p.startsWith('node_modules'))
      .sort(),
  );
  const note = ok(await api('GET', '/v1/storefront/site/files', { query: { path: 'src/notes.txt' } }));
  assert.equal([note.encoding, note.content, note.size], ['utf8', '메모 ✓', Buffer.byteLength('메모 ✓')]);
  fails(await api('GET', '/v1/storefront/site/files', { query: { path: 'nope.txt' } }), 404, 'STOREFRONT_FILE_NOT_FOUND');
});

test('a version built with a dependency from the registry; templateVersion from package.json or inherited', async () => {
  const lock = await lockFor({ '@fixture/greet': '1.0.0' });
  const server = `  const { greet } = await import('@fixture/greet');\n  return new Response('<p>' + greet('구매자') + '</p>', { headers: { 'content-type': 'text/html; charset=utf-8' } });`;
  const built = await deploy(miniProject({ server, lock, packageJson: { dependencies: { '@fixture/greet': '1.0.0' } } }));
  assert.is(built.status, 'SUCCEEDED', JSON.stringify(built));
  assert.equal([built.failureStage, built.errorCode], [null, null]);
  const versions = ok(await api('GET', '/v1/storefront/site/versions')).contents;
  const made = versions.find((v: any) => v.versionId === built.versionId);
  assert.equal([made.number, made.templateVersion, made.published], ['v2', '7', false]);

  const inherited = await deploy(miniProject({ packageJson: { sayren: undefined } }));
  assert.is(inherited.status, 'SUCCEEDED', JSON.stringify(inherited));
  const v3 = ok(await api('GET', '/v1/storefront/site/versions')).contents.find((v: any) => v.versionId === inherited.versionId);
  assert.is(v3.templateVersion, '1', "no sayren.templateVersion: the published version's (the basic template's 1)");
  fails(await api('GET', '/v1/storefront/site/builds/bld_nope'), 404, 'STOREFRONT_BUILD_NOT_FOUND');
});

test('install scripts are reported as warnings and never run', async () => {
  rmSync('/tmp/svc-install-script-ran', { force: true });
  const scripted = { '@fixture/scripted': '1.0.0' };
  const built = await deploy(miniProject({ lock: await lockFor(scripted), packageJson: { dependencies: scripted } }));
  assert.is(built.status, 'SUCCEEDED', built.logTail);
  assert.ok(
    built.dependencies.warnings.some((w: any) => w.reason === 'INSTALL_SCRIPT' && w.package === '@fixture/scripted'),
    JSON.stringify(built.dependencies),
  );
  assert.not.ok(existsSync('/tmp/svc-install-script-ran'), 'the postinstall script did not run');
});

test('VERIFY and DEPENDENCIES: a project without svc.storefront.json; lockfile, advisories, malware and the denylist', async () => {
  const noConfig = miniProject();
  delete noConfig['svc.storefront.json'];
  const verify = await deploy(noConfig);
  assert.equal([verify.status, verify.failureStage, verify.errorCode], ['FAILED', 'VERIFY', 'PROJECT_INVALID']);

  const noLock = await deploy(miniProject({ lock: null }));
  assert.equal([noLock.status, noLock.failureStage, noLock.errorCode], ['FAILED', 'DEPENDENCIES', 'DEPENDENCY_REJECTED']);
  assert.is(noLock.dependencies.rejected[0].reason, 'UNSUPPORTED_SOURCE');

  const dependencies = { minimist: '1.2.5', 'npm-cli-docs': '1.0.0', '@fixture/heavy': '1.0.0' };
  const rejected = await deploy(miniProject({ lock: await lockFor(dependencies), packageJson: { dependencies } }));
  assert.equal([rejected.status, rejected.failureStage, rejected.errorCode], ['FAILED', 'DEPENDENCIES', 'DEPENDENCY_REJECTED']);
  const reasons = Object.fromEntries(rejected.dependencies.rejected.map((r: any) => [r.package, r.reason]));
  assert.equal(reasons, { minimist: 'ADVISORY', 'npm-cli-docs': 'MALWARE', '@fixture/heavy': 'DENYLISTED' });
  assert.ok(rejected.dependencies.rejected.find((r: any) => r.package === 'minimist').advisory, 'the advisory id is named');
  assert.match(rejected.logTail, 'DEPENDENCY_REJECTED');
});

test('INSTALL: a version missing from the registry, a package changed since it was locked, too much installed', async () => {
  const lock = await lockFor({ '@fixture/greet': '1.0.0' });
  const missing = lock
    .replaceAll('@fixture/greet@1.0.0', '@fixture/greet@1.0.9')
    .replaceAll('version: 1.0.0', 'version: 1.0.9')
    .replace('specifier: 1.0.0', 'specifier: 1.0.9');
  const failed = await deploy(miniProject({ lock: missing, packageJson: { dependencies: { '@fixture/greet': '1.0.9' } } }));
  assert.equal([failed.status, failed.failureStage, failed.errorCode], ['FAILED', 'INSTALL', 'INSTALL_FAILED'], failed.logTail);

  const tampered = lock.replace(/integrity: sha512-[A-Za-z0-9+/=]+/, `integrity: sha512-${Buffer.alloc(64, 7).toString('base64')}`);
  const changed = await deploy(miniProject({ lock: tampered, packageJson: { dependencies: { '@fixture/greet': '1.0.0' } } }));
  assert.equal([changed.status, changed.failureStage, changed.errorCode], ['FAILED', 'INSTALL', 'DEPENDENCIES_CHANGED'], changed.logTail);

  const small = await startTestService({ storefront: { ...FRESH_PACKAGES, npmRegistry: registry.url, installLimitBytes: 5_000 } });
  try {
    const smallApi = await tokenApi(small);
    await createSite(smallApi);
    const heavy = { '@fixture/heavy': '1.0.0' };
    const tooLarge = await deploy(miniProject({ lock: await lockFor(heavy), packageJson: { dependencies: heavy } }), { svc: small, api: smallApi });
    assert.equal([tooLarge.status, tooLarge.failureStage, tooLarge.errorCode], ['FAILED', 'INSTALL', 'INSTALL_TOO_LARGE'], tooLarge.logTail);
  } finally {
    await small.close();
  }
});

test('BUILD: a Node built-in in the server entry, an artifact too large', async () => {
  const nodeApi = await deploy(miniProject({ server: "  const { readFileSync } = await import('node:fs');\n  return new Response(String(readFileSync));" }));
  assert.equal([nodeApi.status, nodeApi.failureStage, nodeApi.errorCode], ['FAILED', 'BUILD', 'BUILD_FAILED']);
  assert.match(nodeApi.logTail, 'node:fs');

  const big = await deploy(miniProject({ files: { 'public/video.bin': new Uint8Array(26 * 1024 * 1024) } }));
  assert.equal([big.status, big.failureStage, big.errorCode], ['FAILED', 'BUILD', 'ARTIFACT_TOO_LARGE'], big.logTail);
});

test('BUILD_TIMEOUT: an install that hangs past the time limit', async () => {
  const slow = await startTestService({
    storefront: { ...FRESH_PACKAGES, npmRegistry: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`, buildTimeoutMs: 2_000 },
  });
  try {
    const slowApi = await tokenApi(slow);
    // The deployment of the template has no dependencies to fetch, so it builds despite the registry.
    await createSite(slowApi);
    const greet = { '@fixture/greet': '1.0.0' };
    const timedOut = await deploy(miniProject({ lock: await lockFor(greet), packageJson: { dependencies: greet } }), { svc: slow, api: slowApi });
    assert.equal([timedOut.status, timedOut.failureStage, timedOut.errorCode], ['FAILED', 'INSTALL', 'BUILD_TIMEOUT'], timedOut.logTail);
  } finally {
    await slow.close();
  }
});

test('DEPENDENCY_CHECK_UNAVAILABLE: the advisory source unreachable for 30 minutes (retried before that)', async () => {
  const offline = await startTestService({ storefront: { advisorySource: 'http://127.0.0.1:1/osv/npm/all.zip' } });
  try {
    const offlineApi = await tokenApi(offline);
    ok(await offlineApi('POST', '/v1/storefront/site', { body: { templateId: 'basic' } }), 201);
    await runJobs(offlineApi);
    await runJobs(offlineApi);
    const deployment = ok(await offlineApi('GET', '/v1/storefront/site/deployment'));
    const buildId = deployment.buildId;
    assert.ok(buildId, JSON.stringify(deployment));
    let waiting: any;
    for (let i = 0; i < 50; i++) {
      waiting = ok(await offlineApi('GET', `/v1/storefront/site/builds/${buildId}`));
      if (waiting.status === 'QUEUED' && waiting.logTail.includes('다시 시도')) break;
      await runJobs(offlineApi);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.is(waiting.status, 'QUEUED', JSON.stringify(waiting));
    await offline.advance(31 * 60);
    let failed: any;
    for (let i = 0; i < 50; i++) {
      failed = ok(await offlineApi('GET', `/v1/storefront/site/builds/${buildId}`));
      if (failed.status === 'FAILED') break;
      await runJobs(offlineApi);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal([failed.status, failed.failureStage, failed.errorCode], ['FAILED', 'DEPENDENCIES', 'DEPENDENCY_CHECK_UNAVAILABLE']);
    const ended = ok(await offlineApi('GET', '/v1/storefront/site/deployment'));
    assert.equal([ended.status, ended.errorCode], ['FAILED', 'DEPENDENCY_CHECK_UNAVAILABLE']);
    assert.equal(
      ended.steps.map((s: any) => s.status),
      ['SUCCEEDED', 'SUCCEEDED', 'FAILED'],
    );
    ok(await offlineApi('POST', '/v1/storefront/site/deployment/retry'), 202);
    assert.is(ok(await offlineApi('GET', '/v1/storefront/site/deployment')).status, 'RUNNING');
  } finally {
    await offline.close();
  }
});

test.run();
