import { PgConnectError } from '../db/pg/errors.js';
import type { Job, Services } from './module.js';

export type { Job };

const lastRun = new WeakMap<Services, Promise<unknown>>();

/**
 * Runs every job once, after any run already under way in this process (the clock loop's or another
 * caller's): /_dev/v1/jobs/run and a clock advance answer only when the work due by then is done, even if
 * the loop had started on it a moment before.
 */
export function runDueJobs(services: Services): Promise<Record<string, number>> {
  const run = (lastRun.get(services) ?? Promise.resolve()).catch(() => {}).then(() => runEachJob(services));
  lastRun.set(services, run);
  return run;
}

/** Services whose PostgreSQL was unreachable at their last run: said once, not by every job every second. */
const databaseAway = new WeakSet<Services>();

async function runEachJob(services: Services): Promise<Record<string, number>> {
  const handled: Record<string, number> = {};
  const now = services.clock.now();
  for (const job of services.modules.flatMap((m) => m.jobs ?? [])) {
    try {
      handled[job.name] = await job.run(services, now);
    } catch (error) {
      handled[job.name] = -1;
      if (error instanceof PgConnectError) {
        if (!databaseAway.has(services)) console.error(`[svc] PostgreSQL is unreachable (${error.message.split('\n')[0]}): jobs wait for it`);
        databaseAway.add(services);
        return handled;
      }
      console.error(`[svc] job ${job.name} failed:`, error);
    }
  }
  if (databaseAway.delete(services)) console.error('[svc] PostgreSQL is back: jobs resume');
  return handled;
}

/** Starts the clock loop; the function it returns stops it and settles once a run under way has ended. */
export function startJobLoop(services: Services, intervalMs = 1000): () => Promise<void> {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await runDueJobs(services);
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    // A run under way may still start work (a check, a build) that the modules' onClose must then stop.
    await lastRun.get(services)?.catch(() => {});
  };
}
