import { and, eq } from 'drizzle-orm';
import { claimEachDue, CLAIM_LEASE_MS } from '../../../db/claim.js';
import { transaction, type Db } from '../../../db/client.js';
import { isoAt } from '../../../db/clock.js';
import { newId } from '../../../db/ids.js';
import type { Job } from '../../../server/jobs.js';
import type { Services } from '../../../server/services.js';
import { projectFiles } from './source.js';
import { builds, deployments, type StoredFile } from '../schema.js';
import { currentFiles, replaceSourceFiles } from './site-files.js';
import { findSite, type Site } from '../sites/sites.js';
import { stepsWith } from '../sites/deployment.js';
import { templates } from '../sites/templates.js';
import { BuildFailure, TryLater, type Build } from './build-failure.js';
import { runStages } from './build-stages.js';

/** A build waiting for the advisory source goes back to the queue for this long. */
const ADVISORY_RETRY_MS = 60_000;
/** Builds one process runs at once (each is a pnpm install and two esbuild runs). */
const MAX_RUNNING = 2;
const LOG_TAIL_CHARS = 8_000;

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
