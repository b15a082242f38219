import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Services } from '../../../server/services.js';
import { advisorySnapshotDir, AdvisorySourceUnavailable, loadAdvisories, type AdvisoryIndex } from './advisories.js';
import { putBlob, readBlob, sha256 } from '../serving/blobs.js';
import { bundleProject, LIMITS } from './bundle.js';
import { contentTypeOf } from './content-types.js';
import { checkDependencies, installedScriptWarnings } from './dependency-policy.js';
import { projectConfig } from './project-checks.js';
import { runSellerProcess, sellerSandboxed, toolPackage } from './seller-sandbox.js';
import { builds, type VersionAsset } from '../schema.js';
import { BuildFailure, TryLater, type Build } from './build-failure.js';
import { publicFiles } from './public-files.js';
import { storeVersion } from './build-version.js';

/** The advisory source may be unreachable this long before builds fail with DEPENDENCY_CHECK_UNAVAILABLE. */
const ADVISORY_GRACE_MS = 30 * 60_000;

/** A failed download is retried once, soon: an integrity mismatch or a missing version does not heal in a minute. */
const FETCH_RETRIES = { PNPM_CONFIG_FETCH_RETRIES: '1', PNPM_CONFIG_FETCH_RETRY_MINTIMEOUT: '1000', PNPM_CONFIG_FETCH_RETRY_MAXTIMEOUT: '5000' };
const pnpmPackage = toolPackage('pnpm');

const advisoryCache = new Map<string, { at: number; index: AdvisoryIndex }>();
async function advisories(services: Services): Promise<AdvisoryIndex> {
  const source = services.config.storefront.advisorySource ?? advisorySnapshotDir;
  const hit = advisoryCache.get(source);
  if (hit && Date.now() - hit.at < 10 * 60_000) return hit.index;
  const index = await loadAdvisories(source);
  advisoryCache.set(source, { at: Date.now(), index });
  return index;
}

const workDir = (services: Services, buildId: string) => join(services.config.dataDir, 'storefront', 'work', buildId);
/** pnpm's content-addressed store: packages downloaded once serve every later build. */
const pnpmStore = (services: Services) => join(services.config.dataDir, 'storefront', 'pnpm-store');

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The build's stages, in order; each throws BuildFailure. Answers the new version's id. */
export async function runStages(services: Services, build: Build, log: (line: string) => void): Promise<string> {
  const deadline = Date.now() + services.config.storefront.buildTimeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  // Queued before the sandbox went missing (or by an older service): the build never runs without it.
  let sandboxed: boolean;
  try {
    sandboxed = sellerSandboxed(services.config.storefront.sellerSandbox);
  } catch {
    throw new BuildFailure('VERIFY', 'SELLER_SANDBOX_UNAVAILABLE', '판매자 코드를 격리할 샌드박스(bubblewrap)가 이 서버에 없어 빌드하지 않았습니다');
  }
  const dir = workDir(services, build.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    // VERIFY: the project names its entries and they exist.
    for (const [path, file] of Object.entries(build.files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), readBlob(services, file.hash));
    }
    log(`파일 ${Object.keys(build.files).length}개`);
    if (!build.files['svc.storefront.json']) throw new BuildFailure('VERIFY', 'PROJECT_INVALID', 'svc.storefront.json이 없습니다');
    let config: z.output<typeof projectConfig>;
    try {
      config = projectConfig.parse(JSON.parse(readFileSync(join(dir, 'svc.storefront.json'), 'utf8')));
    } catch (error) {
      throw new BuildFailure(
        'VERIFY',
        'PROJECT_INVALID',
        `svc.storefront.json: ${error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message}`,
      );
    }
    for (const entry of [config.server, ...config.client])
      if (!build.files[entry]) throw new BuildFailure('VERIFY', 'PROJECT_INVALID', `svc.storefront.json이 가리키는 ${entry}가 없습니다`);

    // DEPENDENCIES: the policy runs before anything is installed.
    let index: AdvisoryIndex;
    try {
      index = await advisories(services);
    } catch (error) {
      if (!(error instanceof AdvisorySourceUnavailable)) throw error;
      const since = build.advisoriesUnavailableSince ?? services.clock.now();
      if (services.clock.now() - since >= ADVISORY_GRACE_MS)
        throw new BuildFailure('DEPENDENCIES', 'DEPENDENCY_CHECK_UNAVAILABLE', `보안 권고 출처를 30분 동안 읽지 못했습니다: ${error.message}`);
      await services.db.update(builds).set({ advisoriesUnavailableSince: since }).where(eq(builds.id, build.id)).run();
      log(`보안 권고 출처를 읽지 못해 잠시 뒤 다시 시도합니다: ${error.message}`);
      throw new TryLater();
    }
    const report = await checkDependencies(dir, { advisories: index, denylist: services.config.storefront.denylist });
    for (const w of report.warnings) log(`경고 ${w.reason} ${w.package}${w.version ? `@${w.version}` : ''}: ${w.detail}`);
    if (report.rejected.length > 0) {
      for (const r of report.rejected) log(`거부 ${r.reason} ${r.package}${r.version ? `@${r.version}` : ''}: ${r.detail}`);
      throw new BuildFailure('DEPENDENCIES', 'DEPENDENCY_REJECTED', `의존성 ${report.rejected.length}개가 정책에 맞지 않습니다`, report);
    }
    await services.db.update(builds).set({ dependencies: report }).where(eq(builds.id, build.id)).run();

    // INSTALL: in the sandbox with the network, from the lockfile only, scripts off; project-level package-manager
    // settings are not honoured, and no pnpm version the project names is fetched (packageManager, devEngines).
    for (const config of ['.npmrc', 'pnpm-workspace.yaml', '.pnpmfile.cjs', '.pnpmfile.mjs']) rmSync(join(dir, config), { force: true });
    withoutPackageManager(dir);
    const lockBefore = sha256(readFileSync(join(dir, 'pnpm-lock.yaml')));
    const { npmRegistry } = services.config.storefront;
    mkdirSync(pnpmStore(services), { recursive: true });
    const install = await runSellerProcess(
      {
        command: [
          join(pnpmPackage, 'pnpm'),
          'install',
          '--frozen-lockfile',
          '--ignore-scripts',
          '--ignore-pnpmfile',
          '--prod',
          '--config.update-notifier=false',
          '--reporter=append-only',
          // Never switch to another pnpm (pnpm 11+ spells it pm-on-fail, pnpm 10 manage-package-manager-versions).
          '--config.pm-on-fail=ignore',
          '--config.manage-package-manager-versions=false',
          // Copies, not hard links into the shared store: nothing done in the project can change another build's packages.
          '--config.package-import-method=copy',
          `--store-dir=${pnpmStore(services)}`,
          ...(npmRegistry ? [`--registry=${npmRegistry}`] : []),
        ],
        project: dir,
        readOnly: [pnpmPackage],
        writable: [pnpmStore(services)],
        network: 'registry',
        limits: { wallMs: remaining() },
        env: {
          CI: 'true',
          npm_config_update_notifier: 'false',
          PNPM_CONFIG_MINIMUM_RELEASE_AGE: String(services.config.storefront.minimumReleaseAgeMinutes),
          ...FETCH_RETRIES,
        },
      },
      sandboxed,
    );
    for (const line of install.output.split('\n').filter(Boolean).slice(-40)) log(line);
    if (install.timedOut) throw new BuildFailure('INSTALL', 'BUILD_TIMEOUT', '빌드 시간 10분을 넘었습니다');
    // A package whose content no longer matches the lockfile's integrity was changed since it was locked.
    if (install.exitCode !== 0 && /INTEGRITY/i.test(install.output))
      throw new BuildFailure('INSTALL', 'DEPENDENCIES_CHANGED', '받은 패키지가 pnpm-lock.yaml의 무결성 값과 다릅니다 (잠근 뒤 바뀌었습니다)');
    if (install.exitCode !== 0) throw new BuildFailure('INSTALL', 'INSTALL_FAILED', `pnpm install이 실패했습니다 (종료 코드 ${install.exitCode ?? '없음'})`);
    if (sha256(readFileSync(join(dir, 'pnpm-lock.yaml'))) !== lockBefore)
      throw new BuildFailure('INSTALL', 'DEPENDENCIES_CHANGED', '설치 중 pnpm-lock.yaml이 바뀌었습니다');
    const scripted = (await installedScriptWarnings(dir)).filter(
      (w) => !report.warnings.some((known) => known.reason === w.reason && known.package === w.package),
    );
    for (const w of scripted) log(`경고 ${w.reason} ${w.package}@${w.version}: ${w.detail}`);
    if (scripted.length) {
      report.warnings.push(...scripted);
      await services.db.update(builds).set({ dependencies: report }).where(eq(builds.id, build.id)).run();
    }
    const installLimit = services.config.storefront.installLimitBytes;
    if (existsSync(join(dir, 'node_modules')) && dirBytes(join(dir, 'node_modules')) > installLimit)
      throw new BuildFailure('INSTALL', 'INSTALL_TOO_LARGE', `설치된 패키지가 ${installLimit} bytes를 넘습니다`);

    // BUILD: esbuild in the sandbox, confined to the project; the service reads back only what it wrote under out/.
    const bundled = await bundleProject(dir, config, { sandboxed, minify: true, hashNames: true, wallMs: remaining() });
    if (!bundled.ok) {
      for (const line of bundled.errors) log(line);
      if (bundled.timedOut) throw new BuildFailure('BUILD', 'BUILD_TIMEOUT', '빌드 시간 10분을 넘었습니다');
      if (bundled.tooLarge) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', bundled.errors[0]);
      throw new BuildFailure('BUILD', 'BUILD_FAILED', `esbuild 오류 ${bundled.errors.length}개`);
    }
    for (const line of bundled.log) log(`경고 ${line}`);
    const { server, client, clientEntries } = bundled.output;

    const staticFiles = new Map<string, { bytes: Uint8Array; immutable: boolean }>();
    for (const [path, bytes] of client) staticFiles.set(path, { bytes, immutable: true });
    if (config.public) {
      for (const [path, bytes] of publicFiles(dir, config.public, log)) if (!staticFiles.has(path)) staticFiles.set(path, { bytes, immutable: false });
    }
    let staticBytes = 0;
    for (const file of staticFiles.values()) staticBytes += file.bytes.byteLength;
    if (staticBytes > LIMITS.staticTotal) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', `정적 파일이 모두 ${staticBytes} bytes로 100 MiB를 넘습니다`);
    log(`서버 번들 ${server.code.byteLength} bytes, 정적 파일 ${staticFiles.size}개 ${staticBytes} bytes`);

    // UPLOAD: artifacts into the blob store, then the version row.
    const assets: Record<string, VersionAsset> = {};
    try {
      for (const [path, file] of staticFiles) assets[path] = { ...putBlob(services, file.bytes), contentType: contentTypeOf(path), immutable: file.immutable };
      const bundle = putBlob(services, server.code);
      const map = server.map ? putBlob(services, server.map) : null;
      return await storeVersion(services, build, { bundle, map }, assets, clientEntries, staticBytes);
    } catch (error) {
      throw new BuildFailure('UPLOAD', 'UPLOAD_FAILED', (error as Error).message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The install must not fetch a pnpm the project names: the fields go from the build's copy of package.json. */
function withoutPackageManager(dir: string) {
  const path = join(dir, 'package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as { packageManager?: unknown; devEngines?: { packageManager?: unknown } };
  if (manifest.packageManager === undefined && manifest.devEngines?.packageManager === undefined) return;
  delete manifest.packageManager;
  if (manifest.devEngines && typeof manifest.devEngines === 'object') delete manifest.devEngines.packageManager;
  writeFileSync(path, JSON.stringify(manifest, null, 2));
}
