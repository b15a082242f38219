/**
 * A site build reads and publishes nothing but the project's own files, and runs in the seller sandbox
 * (bubblewrap, which must be installed here): hostile projects uploaded through the public API — imports
 * that climb out to the data dir's signing key, absolute imports of it, `/proc/self/environ` and `/dev/zero`
 * as text, a CSS url() out of the project, a `public` folder outside it, a symlink in the upload, a lockfile
 * that links a registry specifier to a folder, a `packageManager` that would fetch another pnpm — each
 * ends FAILED at the expected stage (or builds without the fetch), and neither a build's record nor any
 * stored artifact holds the service's secrets: its signing key, its operator token, its environment.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { pack } from 'tar-stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { startLocalRegistry, type LocalRegistry } from '../helpers/registry.js';
import { localFetch } from '../helpers/sites.js';
import { apiClient, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { longLivedToken } from '../helpers/members.js';
import { build, createSite, miniProject, synced, uploadSource } from '../helpers/site-builds.js';

/** In the service's environment (it runs in this process) and as its operator token. */
const CANARY = `canary-${'7f3a'.repeat(10)}`;
process.env.SVC_CONTAINMENT_CANARY = CANARY;

let registry: LocalRegistry;
/** A service under test, its seller's API and token, and the private part of its Ed25519 signing key. */
interface Target {
  svc: TestService;
  api: Api;
  token: string;
  privateKey: string;
}
let target: Target;
let svc: TestService;
let api: Api;
let token: string;

async function startTarget(storefront: Record<string, unknown> = {}): Promise<Target> {
  const started = await startTestService({ operatorToken: CANARY, storefront: { npmRegistry: registry.url, minimumReleaseAgeMinutes: 0, ...storefront } });
  const privateKey = (JSON.parse(readFileSync(join(started.dataDir, 'keys', 'signing.json'), 'utf8')) as { d: string }).d;
  const sellerToken = await longLivedToken(started);
  const sellerApi = apiClient(started.url, { token: sellerToken, storeId: started.storeId });
  await createSite(sellerApi);
  return { svc: started, api: sellerApi, token: sellerToken, privateKey };
}

test.before(async () => {
  try {
    execFileSync('bwrap', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('bubblewrap (bwrap) is not installed: site builds must run in the seller sandbox (apt-get install bubblewrap)');
  }
  registry = await startLocalRegistry();
  await registry.publish('@fixture/greet', '1.0.0', { 'index.js': "export const greet = (name) => 'hi ' + name;\n" }, { type: 'module' });
  target = await startTarget();
  ({ svc, api, token } = target);
});
test.after(async () => {
  await svc.close();
  await registry.close();
});

const upload = async (files: Record<string, string | Uint8Array>, to = target) => {
  const res = await uploadSource(to.svc, { token: to.token, storeId: to.svc.storeId }, await tarGz(files));
  assert.is(res.status, 200, JSON.stringify(res.body));
};

/** A `.tar.gz` whose entries may be symlinks (`{ symlink: target }`). */
async function tarGz(files: Record<string, string | Uint8Array | { symlink: string }>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => tar.on('end', resolve));
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === 'object' && 'symlink' in content) tar.entry({ name, type: 'symlink', linkname: content.symlink });
    else tar.entry({ name, type: 'file' }, Buffer.from(content));
  }
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** Everything a seller can see of a build: its record (log tail, codes, dependency findings). */
function assertNoSecrets(what: string, value: unknown, of = target) {
  const text = JSON.stringify(value);
  assert.not.ok(text.includes(of.privateKey), `${what}: the signing key's private part leaked`);
  assert.not.ok(text.includes(CANARY), `${what}: the operator token / service environment leaked`);
}

/** Uploads `files`, builds them and checks the build's record holds no secret. */
async function hostileBuild(what: string, files: Record<string, string | Uint8Array>, at = target) {
  const before = ok(await at.api('GET', '/v1/storefront/site/versions')).contents.length;
  await upload(files, at);
  const built = await build(at.api);
  assertNoSecrets(what, built, at);
  if (built.status === 'FAILED') assert.is(ok(await at.api('GET', '/v1/storefront/site/versions')).contents.length, before, `${what}: no version was made`);
  return built;
}

/** Every stored source file and artifact (bundles, maps, static files, published or not) of the service. */
function assertBlobsClean(of: Target) {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
  const blobs = walk(join(of.svc.dataDir, 'storefront', 'blobs'));
  assert.ok(blobs.length > 0);
  for (const file of blobs) assertNoSecrets(file, readFileSync(file, 'latin1'), of);
}

/** A server entry whose module imports `specifier` (as `with`) and serves it. */
const serverImporting = (specifier: string, attributes = '') =>
  miniProject({
    files: {
      'src/server.ts': `import stolen from ${JSON.stringify(specifier)}${attributes};\nexport default { async fetch(): Promise<Response> { return new Response(String(stolen)); } };\n`,
    },
  });

/** Projects that import the data dir's signing key, the service's environment or an endless device. */
function importAttacks(dataDir: string): [string, Record<string, string | Uint8Array>][] {
  const key = join(dataDir, 'keys', 'signing.json');
  return [
    ['relative climb to the data dir', serverImporting('../../../../keys/signing.json')],
    ['relative climb as text', serverImporting('../../../../keys/signing.json', " with { type: 'text' }")],
    ['absolute path of the key', serverImporting(key)],
    ['the service environment', serverImporting('/proc/self/environ', " with { type: 'text' }")],
    ['an endless device', serverImporting('/dev/zero', " with { type: 'text' }")],
    [
      'a client asset out of the project',
      miniProject({ files: { 'src/client.ts': "import './site.css';\n", 'src/site.css': `body { background: url(${JSON.stringify(key)}) }\n` } }),
    ],
    [
      'a dynamic import of the key',
      miniProject({ server: `  const stolen = await import(${JSON.stringify(key)});\n  return new Response(JSON.stringify(stolen));` }),
    ],
  ];
}

test('imports out of the project are refused: relative climbs, absolute paths, /proc, /dev and CSS url()', async () => {
  for (const [what, files] of importAttacks(svc.dataDir)) {
    const built = await hostileBuild(what, files);
    assert.equal([built.status, built.failureStage, built.errorCode], ['FAILED', 'BUILD', 'BUILD_FAILED'], `${what}: ${built.logTail}`);
    // Refused by the confinement, or not even there to resolve: the sandbox shows the build only its project.
    assert.match(built.logTail, /프로젝트 밖의 파일|Could not resolve/, `${what}: ${built.logTail}`);
  }
});

test("with the operator's opt-out (SVC_SELLER_SANDBOX=off) the confinement alone refuses the same imports", async () => {
  const unsandboxed = await startTarget({ sellerSandbox: 'off' });
  try {
    for (const [what, files] of importAttacks(unsandboxed.svc.dataDir)) {
      const built = await hostileBuild(what, files, unsandboxed);
      assert.equal([built.status, built.failureStage, built.errorCode], ['FAILED', 'BUILD', 'BUILD_FAILED'], `${what}: ${built.logTail}`);
      assert.match(built.logTail, '프로젝트 밖의 파일', `${what}: ${built.logTail}`);
    }
    assertBlobsClean(unsandboxed);
  } finally {
    await unsandboxed.svc.close();
  }
});

test('a normal project still builds: its own text import, its public folder, a package from the registry', async () => {
  const dependencies = { '@fixture/greet': '1.0.0' };
  const lock = await lockWithGreet();
  const built = await hostileBuild(
    'control',
    miniProject({
      lock,
      packageJson: { dependencies },
      files: {
        'src/server.ts':
          "import note from './note.txt' with { type: 'text' };\nimport { greet } from '@fixture/greet';\nexport default { async fetch(): Promise<Response> { return new Response(greet(note.trim())); } };\n",
        'src/note.txt': '구매자\n',
      },
    }),
  );
  assert.is(built.status, 'SUCCEEDED', built.logTail);
  ok(await api('POST', `/v1/storefront/site/versions/${built.versionId}/publish`));
  ok(await api('POST', '/v1/products', { body: { name: '상품', salePrice: 1000, stockQuantity: 10 } }), 201);
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
  const site = await synced(api);
  const page = await localFetch(site.url);
  assert.equal([page.status, await page.text()], [200, 'hi 구매자']);
  const style = await localFetch(new URL('style.css', site.url));
  assert.equal([style.status, await style.text()], [200, 'body { color: #333 }\n']);
});

test("public: only a folder inside the project, not the bundler's out/; symlinks cannot be uploaded", async () => {
  for (const folder of ['../..', '../../../keys', svc.dataDir, 'public/../..']) {
    const files = { ...miniProject(), 'svc.storefront.json': JSON.stringify({ server: 'src/server.ts', client: ['src/client.ts'], public: folder }) };
    const built = await hostileBuild(`public ${folder}`, files);
    assert.equal([built.status, built.failureStage, built.errorCode], ['FAILED', 'VERIFY', 'PROJECT_INVALID'], `${folder}: ${built.logTail}`);
    const verified = ok(await api('POST', '/v1/storefront/site/verify'));
    assert.ok(
      verified.errors.some((e: any) => e.code === 'PROJECT_CONFIG_INVALID'),
      `verify reports public ${folder}: ${JSON.stringify(verified)}`,
    );
  }
  const outFolder = await hostileBuild('public out', {
    ...miniProject(),
    'svc.storefront.json': JSON.stringify({ server: 'src/server.ts', client: ['src/client.ts'], public: 'out' }),
  });
  assert.equal(
    [outFolder.status, outFolder.failureStage, outFolder.errorCode],
    ['FAILED', 'BUILD', 'BUILD_FAILED'],
    "the bundler's output (the server bundle) is never published as static files",
  );
  for (const target of [join(svc.dataDir, 'keys'), '../../../keys']) {
    const res = await uploadSource(svc, { token, storeId: svc.storeId }, await tarGz({ ...miniProject(), 'public/keys': { symlink: target } }));
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.equal([res.body.error.code, res.body.error.details.reason], ['STOREFRONT_SOURCE_INVALID', 'UNSUPPORTED_ENTRY']);
  }
});

/** A real lockfile for @fixture/greet, resolved by pnpm against the local registry. */
async function lockWithGreet(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'));
  try {
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'mini-shop', version: '1.0.0', private: true, dependencies: { '@fixture/greet': '1.0.0' } }),
    );
    // Not execFileSync: the registry answers from this process's event loop.
    await execa(
      join(process.cwd(), 'node_modules/.bin/pnpm'),
      [
        'install',
        '--lockfile-only',
        '--ignore-scripts',
        `--registry=${registry.url}`,
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

test('a lockfile that locks a registry specifier to a folder link is refused before anything is installed', async () => {
  const linked = (await lockWithGreet()).replace(/(\n {6}'@fixture\/greet':\n {8}specifier: 1\.0\.0\n {8}version: )1\.0\.0/, '$1link:../../../keys');
  assert.match(linked, 'version: link:../../../keys', 'the fixture lockfile has the link');
  const built = await hostileBuild('lockfile link', miniProject({ lock: linked, packageJson: { dependencies: { '@fixture/greet': '1.0.0' } } }));
  assert.equal([built.status, built.failureStage, built.errorCode], ['FAILED', 'DEPENDENCIES', 'DEPENDENCY_REJECTED'], built.logTail);
  assert.equal(
    built.dependencies.rejected.map((r: any) => [r.package, r.reason]),
    [['@fixture/greet', 'UNSUPPORTED_SOURCE']],
  );
  assert.match(built.dependencies.rejected[0].detail, 'locked to the link source "link:../../../keys"');
  const verified = ok(await api('POST', '/v1/storefront/site/verify'));
  assert.ok(
    verified.errors.some((e: any) => e.code === 'DEPENDENCY_UNSUPPORTED_SOURCE'),
    JSON.stringify(verified),
  );
});

test("packageManager and devEngines name another pnpm: the install uses svc's own and fetches none", async () => {
  const version = (createRequire(import.meta.url)('pnpm/package.json') as { version: string }).version;
  const built = await hostileBuild(
    'packageManager',
    miniProject({
      packageJson: { packageManager: 'pnpm@9.15.0', devEngines: { packageManager: { name: 'pnpm', version: '9.15.0', onFail: 'download' } } },
    }),
  );
  assert.is(built.status, 'SUCCEEDED', built.logTail);
  assert.match(built.logTail, `using pnpm v${version}`);
  assert.not.match(built.logTail, '9.15.0');
});

test('other stores keep answering while a hostile build runs', async () => {
  const other = await newSellerWithStore(svc, 'bystander');
  const otherApi = other.api;
  const { site } = await createSite(otherApi);
  await upload(serverImporting('/dev/zero', " with { type: 'text' }"));
  const { buildId } = ok(await api('POST', '/v1/storefront/site/versions'), 202);
  for (let i = 0; ; i++) {
    const [page, products, hostile] = await Promise.all([
      localFetch(site.url),
      otherApi('GET', '/v1/products'),
      api('GET', `/v1/storefront/site/builds/${buildId}`),
    ]);
    assert.is(page.status, 200, "the other store's site answers");
    assert.is(products.status, 200, "the other store's API answers");
    if (ok(hostile).status === 'FAILED') {
      assertNoSecrets('the /dev/zero build', hostile.data);
      assert.is(hostile.data.errorCode, 'BUILD_FAILED');
      break;
    }
    assert.ok(i < 600, 'the hostile build ends');
    await api('POST', '/_dev/v1/jobs/run');
    await new Promise((r) => setTimeout(r, 100));
  }
});

test('nothing stored for sites holds a secret: sources, bundles, maps and static files', () => assertBlobsClean(target));

test.run();
