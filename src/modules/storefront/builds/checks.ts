import { rmSync } from 'node:fs';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../../db/client.js';
import { claimEachDue } from '../../../db/claim.js';
import { isoAt } from '../../../db/clock.js';
import { newId } from '../../../db/ids.js';
import { fail } from '../../../server/errors.js';
import type { Job } from '../../../server/jobs.js';
import { defineMessages } from '../../../server/messages.js';
import { instant } from '../../../server/responses.js';
import type { Services } from '../../../server/services.js';
import { readBlob } from '../serving/blobs.js';
import { touchEditing } from '../editing/editing.js';
import { materialize, pendingSteps, runProjectChecks, verifyProject, WALL_CLOCK_CAP_MS, type CheckStep } from './project-checks.js';
import { checks, type StoredFile } from '../schema.js';
import { sellerSandboxed } from './seller-sandbox.js';
import { currentFiles } from './site-files.js';
import type { Site } from '../sites/sites.js';

defineMessages({
  CHECK_RUNNING: '이 사이트의 다른 검사가 진행 중입니다. 끝난 뒤 다시 시도하세요.',
  STOREFRONT_CHECK_NOT_FOUND: '검사를 찾을 수 없습니다.',
});

type Check = typeof checks.$inferSelect;

/** Spec 02 §8: a check is TIMED_OUT after 150 s (on the service clock here; the process also has a wall-clock cap). */
export const CHECK_TIMEOUT_MS = WALL_CLOCK_CAP_MS;
/** A RUNNING check whose process has not reported this long after its timeout died unreported (UNKNOWN). */
const UNREPORTED_GRACE_MS = 30_000;

const filesOf = (services: Services, files: Record<string, StoredFile>) =>
  new Map(Object.entries(files).map(([path, f]) => [path, readBlob(services, f.hash)]));

/** `…/verify`: the immediate rules on the site's current files. */
export const verifySite = async (services: Services, storeId: string) =>
  verifyProject(filesOf(services, await currentFiles(services.db, storeId)), { denylist: services.config.storefront.denylist });

export async function queueCheck(services: Services, db: Db, site: Site, now: number): Promise<Check> {
  sellerSandboxed(services.config.storefront.sellerSandbox);
  const busy = await db
    .select({ id: checks.id })
    .from(checks)
    .where(and(eq(checks.siteId, site.id), inArray(checks.status, ['QUEUED', 'RUNNING'])))
    .get();
  if (busy) throw fail(409, 'CHECK_RUNNING', { checkId: busy.id });
  const check: Check = {
    id: newId('chk', now),
    storeId: site.storeId,
    siteId: site.id,
    status: 'QUEUED',
    steps: pendingSteps(),
    files: await currentFiles(db, site.storeId),
    nextAttemptAt: now,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
  };
  await db.insert(checks).values(check).run();
  await touchEditing(services, db, site.storeId, now);
  return check;
}

export async function requireCheck(db: Db, storeId: string, checkId: string): Promise<Check> {
  const check = await db.select().from(checks).where(eq(checks.id, checkId)).get();
  if (!check || check.storeId !== storeId) throw fail(404, 'STOREFRONT_CHECK_NOT_FOUND', { checkId });
  return check;
}

/** The checks this process runs, by id: aborting one kills its child process. */
const running = new WeakMap<Services, Map<string, { abort: AbortController; done: Promise<void> }>>();
const runningOf = (services: Services) => {
  let map = running.get(services);
  if (!map) running.set(services, (map = new Map()));
  return map;
};

/** Writes to a check that is still RUNNING (a timed-out one keeps its end). */
async function updateRunning(services: Services, id: string, change: Partial<Check>) {
  await services.db
    .update(checks)
    .set(change)
    .where(and(eq(checks.id, id), eq(checks.status, 'RUNNING')))
    .run();
}

async function runCheck(services: Services, check: Check, signal: AbortSignal) {
  const dir = materialize(filesOf(services, check.files), 'svc-check-');
  // Progress is shown as the steps go, one write after another: on PostgreSQL two writes in flight on two
  // connections could land in either order. A progress write that fails is logged; the outcome comes last.
  let progress = Promise.resolve();
  const onStep = (steps: CheckStep[]) => {
    const change = { steps: steps.map((s) => ({ ...s })) };
    progress = progress
      .then(() => updateRunning(services, check.id, change))
      .catch((error) => console.error(`[svc] check ${check.id} progress not recorded:`, error));
  };
  try {
    const result = await runProjectChecks(dir, { signal, onStep, sandboxed: sellerSandboxed(services.config.storefront.sellerSandbox) });
    await progress;
    await updateRunning(services, check.id, { status: result.status, steps: result.steps, nextAttemptAt: null, finishedAt: services.clock.now() });
  } catch (error) {
    console.error(`[svc] check ${check.id} failed to run:`, error);
    await progress;
    // The database may be what failed: the clock-driven pass then ends the check as UNKNOWN.
    await updateRunning(services, check.id, { status: 'UNKNOWN', nextAttemptAt: null, finishedAt: services.clock.now() }).catch(() => undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts due checks in this process; runs past 150 s (service clock) end TIMED_OUT, unreported ones UNKNOWN. */
export async function advanceChecks(services: Services, now: number): Promise<number> {
  const mine = runningOf(services);
  let handled = 0;
  for (const check of await services.db
    .select()
    .from(checks)
    .where(and(eq(checks.status, 'RUNNING'), isNotNull(checks.startedAt)))
    .all()) {
    const own = mine.get(check.id);
    if (own && now - check.startedAt! >= CHECK_TIMEOUT_MS) {
      const steps: CheckStep[] = check.steps.map((s) => (s.status === 'PENDING' || s.status === 'RUNNING' ? { ...s, status: 'TIMED_OUT' } : s));
      await updateRunning(services, check.id, { status: 'TIMED_OUT', steps, nextAttemptAt: null, finishedAt: now });
      own.abort.abort();
      handled++;
    } else if (!own && check.nextAttemptAt !== null && check.nextAttemptAt <= now) {
      await updateRunning(services, check.id, { status: 'UNKNOWN', nextAttemptAt: null, finishedAt: now });
      handled++;
    }
  }
  for await (const check of claimEachDue(services.db, checks, now, { where: eq(checks.status, 'QUEUED') })) {
    await services.db
      .update(checks)
      .set({ status: 'RUNNING', startedAt: now, nextAttemptAt: now + CHECK_TIMEOUT_MS + UNREPORTED_GRACE_MS })
      .where(eq(checks.id, check.id))
      .run();
    const abort = new AbortController();
    const done = runCheck(services, check, abort.signal).finally(() => mine.delete(check.id));
    mine.set(check.id, { abort, done });
    handled++;
  }
  return handled;
}

export const checkJob: Job = { name: 'storefront-checks', run: (services, now) => advanceChecks(services, now) };

/** On shutdown: running checks are stopped; their rows end UNKNOWN once the lease lapses, or another process reports them. */
export async function stopChecks(services: Services) {
  const mine = runningOf(services);
  for (const { abort } of mine.values()) abort.abort();
  await Promise.all([...mine.values()].map((r) => r.done));
}

// ── presentation ─────────────────────────────────────────────────────────────

const findingSchema = z.object({ code: z.string(), path: z.string().nullable(), message: z.string() });
export const verifySchema = z.object({ ok: z.boolean(), errors: z.array(findingSchema), warnings: z.array(findingSchema) });

export const checkSchema = z.object({
  checkId: z.string(),
  status: z.enum(['QUEUED', 'RUNNING', 'PASSED', 'FAILED', 'TIMED_OUT', 'UNKNOWN']),
  steps: z.array(
    z.object({
      name: z.enum(['typecheck', 'lint', 'test']),
      status: z.enum(['PENDING', 'RUNNING', 'PASSED', 'FAILED', 'SKIPPED', 'TIMED_OUT']),
      durationMs: z.number().int().nullable(),
      output: z.string(),
    }),
  ),
  createdAt: instant,
  startedAt: instant.nullable(),
  finishedAt: instant.nullable(),
});

export const presentCheck = (c: Check): z.output<typeof checkSchema> => ({
  checkId: c.id,
  status: c.status,
  steps: c.steps,
  createdAt: isoAt(c.createdAt),
  startedAt: c.startedAt === null ? null : isoAt(c.startedAt),
  finishedAt: c.finishedAt === null ? null : isoAt(c.finishedAt),
});
