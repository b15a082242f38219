import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { claimEachDue, CLAIM_LEASE_MS } from '../../../db/claim.js';
import { transaction, type Db } from '../../../db/client.js';
import { isoAt } from '../../../db/clock.js';
import { newId } from '../../../db/ids.js';
import type { Job } from '../../../server/jobs.js';
import type { Services } from '../../../server/services.js';
import { advisorySnapshotDir, AdvisorySourceUnavailable, loadAdvisories, type AdvisoryIndex } from './advisories.js';
import { putBlob, readBlob, sha256 } from '../serving/blobs.js';
import { bundleProject, LIMITS } from './bundle.js';
import { contentTypeOf } from './content-types.js';
import { projectFiles, SOURCE_LIMITS } from './source.js';
import { checkDependencies, installedScriptWarnings } from './dependency-policy.js';
import { projectConfig } from './project-checks.js';
import { runSellerProcess, sellerSandboxed, toolPackage } from './seller-sandbox.js';
import { builds, deployments, versions, type DependencyFinding, type StoredFile, type VersionAsset } from '../schema.js';
import { currentFiles, replaceSourceFiles } from './site-files.js';
import { findSite, type Site } from '../sites/sites.js';
import { inheritedTemplateVersion, nextVersionNumber, publishVersion } from '../sites/versions.js';
import { stepsWith } from '../sites/deployment.js';
import { templates } from '../sites/templates.js';

type Build = typeof builds.$inferSelect;
type Stage = NonNullable<Build['failureStage']>;

/** The advisory source may be unreachable this long before builds fail with DEPENDENCY_CHECK_UNAVAILABLE. */
const ADVISORY_GRACE_MS = 30 * 60_000;
const ADVISORY_RETRY_MS = 60_000;
/** Builds one process runs at once (each is a pnpm install and two esbuild runs). */
const MAX_RUNNING = 2;
const LOG_TAIL_CHARS = 8_000;

/** A stage's failure: the build ends FAILED with this stage and code. */
class BuildFailure extends Error {
  constructor(
    readonly stage: Stage,
    readonly code: string,
    message: string,
    readonly dependencies?: { rejected: DependencyFinding[]; warnings: DependencyFinding[] },
  ) {
    super(message);
  }
}
/** The advisory source is down but still within its grace period: the build goes back to the queue. */
class TryLater extends Error {}

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
async function runStages(services: Services, build: Build, log: (line: string) => void): Promise<string> {
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

function within(parent: string, path: string): boolean {
  const rel = relative(parent, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * The project's `public` folder, published as is: a relative path inside the project (the config schema
 * already refuses `..` and absolute paths) that really lies inside it, walked without following links — a
 * symlink in it is left out with a log line — and every file's real path checked to lie inside the project.
 * Capped by file count and size before anything is read.
 */
function publicFiles(dir: string, folder: string, log: (line: string) => void): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const root = realpathSync(dir);
  const outside = (path: string) => !within(root, realpathSync(path));
  if (!existsSync(join(dir, folder))) return files;
  // An installed package's folder is reached through pnpm's link, which stays inside the project.
  if (outside(join(dir, folder))) throw new BuildFailure('BUILD', 'BUILD_FAILED', `public 폴더 ${folder}가 프로젝트 밖을 가리킵니다`);
  const top = realpathSync(join(dir, folder));
  // out/ holds the bundler's output, the server bundle among it: never published as static files.
  if (within(join(root, 'out'), top)) throw new BuildFailure('BUILD', 'BUILD_FAILED', `public 폴더 ${folder}는 빌드 출력 폴더(out/)라 쓸 수 없습니다`);
  if (!lstatSync(top).isDirectory()) throw new BuildFailure('BUILD', 'BUILD_FAILED', `public 폴더 ${folder}가 폴더가 아닙니다`);
  let bytes = 0;
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const rel = relative(top, path).split('\\').join('/');
      if (entry.isSymbolicLink()) {
        log(`${folder}/${rel}: 링크는 게시하지 않습니다`);
        continue;
      }
      if (entry.isDirectory()) {
        walk(path);
        continue;
      }
      if (!entry.isFile()) continue;
      if (outside(path)) throw new BuildFailure('BUILD', 'BUILD_FAILED', `${folder}/${rel}가 프로젝트 밖을 가리킵니다`);
      const { size } = lstatSync(path);
      if (size > LIMITS.staticFile) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', `${rel}가 25 MiB를 넘습니다`);
      bytes += size;
      if (bytes > LIMITS.staticTotal) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', `정적 파일이 모두 100 MiB를 넘습니다`);
      if (files.size >= SOURCE_LIMITS.files) throw new BuildFailure('BUILD', 'ARTIFACT_TOO_LARGE', `public 폴더의 파일이 ${SOURCE_LIMITS.files}개를 넘습니다`);
      files.set(rel, readFileSync(path));
    }
  };
  walk(top);
  return files;
}

async function storeVersion(
  services: Services,
  build: Build,
  server: { bundle: StoredFile; map: StoredFile | null },
  assets: Record<string, VersionAsset>,
  clientEntries: Record<string, string>,
  staticBytes: number,
): Promise<string> {
  // The uploaded manifest, not the work folder's: seller processes have had that folder since.
  const manifest = JSON.parse(
    readBlob(services, build.files['package.json'].hash)
      .toString('utf8')
      .replace(/^\uFEFF/, ''),
  ) as { sayren?: { templateVersion?: unknown } };
  return transaction(services.db, async () => {
    const site = (await findSite(services.db, build.storeId))!;
    const now = services.clock.now();
    const own = manifest.sayren?.templateVersion;
    const version = {
      id: newId('ver', now),
      storeId: build.storeId,
      siteId: build.siteId,
      number: await nextVersionNumber(services.db, build.siteId),
      templateVersion: own == null ? await inheritedTemplateVersion(services.db, site) : String(own),
      server,
      assets,
      clientEntries,
      staticBytes,
      buildId: build.id,
      createdAt: now,
    };
    await services.db.insert(versions).values(version).run();
    if (build.publish) await publishVersion(services.db, site, version, 'DEPLOYMENT', now);
    return version.id;
  });
}

const running = new WeakMap<Services, Set<string>>();

/** Runs one claimed build to its end and records the outcome (and the deployment's, for its PUBLISH step). */
async function runBuild(services: Services, build: Build) {
  const lines: string[] = [];
  const log = (line: string) => lines.push(`${isoAt(Date.now()).slice(11, 19)} ${line}`);
  const tail = () => lines.join('\n').slice(-LOG_TAIL_CHARS);
  // The lease is renewed while the build runs: another process takes it over only if this one died.
  const heartbeat = setInterval(async () => {
    await services.db
      .update(builds)
      .set({ nextAttemptAt: services.clock.now() + CLAIM_LEASE_MS, logTail: tail() })
      .where(and(eq(builds.id, build.id), eq(builds.status, 'RUNNING')))
      .run();
  }, CLAIM_LEASE_MS / 3);
  heartbeat.unref();
  try {
    const versionId = await runStages(services, build, log);
    log(`버전 준비됨`);
    await finishBuild(services, build, { status: 'SUCCEEDED', failureStage: null, errorCode: null, versionId }, tail());
  } catch (error) {
    if (error instanceof TryLater) {
      await services.db
        .update(builds)
        .set({ status: 'QUEUED', logTail: tail(), nextAttemptAt: services.clock.now() + ADVISORY_RETRY_MS })
        .where(eq(builds.id, build.id))
        .run();
      return;
    }
    const failure = error instanceof BuildFailure ? error : new BuildFailure('BUILD', 'BUILD_FAILED', `예상하지 못한 오류: ${(error as Error).message}`);
    if (!(error instanceof BuildFailure)) console.error(`[svc] storefront build ${build.id} failed:`, error);
    log(`실패 ${failure.stage} ${failure.code}: ${failure.message}`);
    await finishBuild(
      services,
      build,
      {
        status: 'FAILED',
        failureStage: failure.stage,
        errorCode: failure.code,
        versionId: null,
        ...(failure.dependencies ? { dependencies: failure.dependencies } : {}),
      },
      tail(),
    );
  } finally {
    clearInterval(heartbeat);
  }
}

async function finishBuild(
  services: Services,
  build: Build,
  outcome: Pick<Build, 'status' | 'failureStage' | 'errorCode' | 'versionId'> & { dependencies?: Build['dependencies'] },
  logTail: string,
) {
  await transaction(services.db, async () => {
    const now = services.clock.now();
    await services.db
      .update(builds)
      .set({ ...outcome, logTail, nextAttemptAt: null, finishedAt: now })
      .where(eq(builds.id, build.id))
      .run();
    const deployment = await services.db.select().from(deployments).where(eq(deployments.buildId, build.id)).get();
    if (!deployment) return;
    const ok = outcome.status === 'SUCCEEDED';
    await services.db
      .update(deployments)
      .set({
        status: ok ? 'SUCCEEDED' : 'FAILED',
        steps: stepsWith(deployment.steps, 'PUBLISH', ok ? 'SUCCEEDED' : 'FAILED'),
        errorCode: outcome.errorCode,
        log: [...deployment.log, `${isoAt(now)} ${ok ? '첫 버전을 게시했습니다' : `빌드 실패 ${outcome.errorCode}`}`],
        updatedAt: now,
      })
      .where(eq(deployments.siteId, deployment.siteId))
      .run();
  });
}

/** A build of `files` for the site, queued for the job runner (`publish`: the deployment's first build publishes its version). */
export async function queueBuild(db: Db, site: Site, files: Record<string, StoredFile>, publish: boolean, now: number) {
  const build = {
    id: newId('bld', now),
    storeId: site.storeId,
    siteId: site.id,
    status: 'QUEUED' as const,
    failureStage: null,
    errorCode: null,
    logTail: '',
    dependencies: { rejected: [], warnings: [] },
    files,
    versionId: null,
    publish,
    advisoriesUnavailableSince: null,
    nextAttemptAt: now,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
  };
  await db.insert(builds).values(build).run();
  return build;
}

/** Claims due builds (up to MAX_RUNNING in this process) and starts them; they finish in the background. */
export async function startDueBuilds(services: Services): Promise<number> {
  let mine = running.get(services);
  if (!mine) running.set(services, (mine = new Set()));
  const now = services.clock.now();
  if (mine.size >= MAX_RUNNING) return 0;
  let started = 0;
  for await (const build of claimEachDue(services.db, builds, now, { skip: [...mine], limit: MAX_RUNNING - mine.size })) {
    await services.db
      .update(builds)
      .set({ status: 'RUNNING', startedAt: build.startedAt ?? now })
      .where(eq(builds.id, build.id))
      .run();
    mine.add(build.id);
    started++;
    void runBuild(services, { ...build, status: 'RUNNING' })
      .catch((error) => console.error(`[svc] storefront build ${build.id} could not be recorded:`, error))
      .finally(() => mine.delete(build.id));
  }
  return started;
}

/** Waits for this process's running builds (service shutdown). */
export async function settleBuilds(services: Services) {
  while ((running.get(services)?.size ?? 0) > 0) await new Promise((ok) => setTimeout(ok, 50));
}

/** The deployment's UPLOAD step: the template's files become the site's source, and its first build is queued. */
async function advanceDeployments(services: Services, now: number): Promise<number> {
  let handled = 0;
  for await (const deployment of claimEachDue(services.db, deployments, now)) {
    await transaction(services.db, async () => {
      const site = await findSite(services.db, deployment.storeId);
      const template = templates.find((t) => t.templateId === site?.templateId);
      if (!site || !template) return;
      await replaceSourceFiles(services, services.db, site.storeId, projectFiles(template.dir));
      const build = await queueBuild(services.db, site, await currentFiles(services.db, site.storeId), true, now);
      await services.db
        .update(deployments)
        .set({
          steps: stepsWith(stepsWith(deployment.steps, 'UPLOAD', 'SUCCEEDED'), 'PUBLISH', 'RUNNING'),
          buildId: build.id,
          nextAttemptAt: null,
          log: [...deployment.log, `${isoAt(now)} 템플릿 파일을 올렸습니다`, `${isoAt(now)} 빌드 ${build.id}`],
          updatedAt: now,
        })
        .where(eq(deployments.siteId, deployment.siteId))
        .run();
    });
    handled++;
  }
  return handled;
}

/** Deployments, builds: durable work of the job runner (builds then run in the background). */
export const buildJobs: Job[] = [
  { name: 'storefront-deployments', run: (services, now) => advanceDeployments(services, now) },
  { name: 'storefront-builds', run: (services) => startDueBuilds(services) },
];
