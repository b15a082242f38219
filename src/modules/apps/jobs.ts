import { and, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import { claimEachDue } from '../../db/claim.js';
import { isoAt } from '../../db/clock.js';
import type { Services } from '../../server/services.js';
import { invokeAndRecord, type InvokeTarget } from './invoke.js';
import { appDeliveries, appExecutions, appInstallations, appSchedules } from './schema.js';
import { findApp, findInstallation, findVersion, type Installation } from './app-records.js';
import { recordIfNotRunnable } from './executions.js';

/** Events one installation receives per minute (spec 02 §8); the excess waits and waiting is no attempt. */
export const EVENTS_PER_MINUTE = 300;
const MINUTE = 60_000;
/** Lifecycle notices are retried after 1 min, 5 min, 30 min and 2 h, then given up. */
const DELIVERY_BACKOFF_MS = [60_000, 300_000, 1_800_000, 7_200_000];

async function target(services: Services, installation: Installation): Promise<InvokeTarget> {
  return { app: (await findApp(services.db, installation.appId))!, installation, version: (await findVersion(services.db, installation.versionId))! };
}

/**
 * Each due schedule runs once, however many intervals passed, for the latest of them; a required setting left
 * empty stops it (needs-setup). Runs stay on the schedule's grid (every interval from its installation), so a
 * late tick does not push the ones after it.
 */
export async function runDueSchedules(services: Services, now: number): Promise<number> {
  const { db } = services;
  const active = db.select({ id: appInstallations.id }).from(appInstallations).where(eq(appInstallations.status, 'ACTIVE'));
  const intervalMs = sql`${appSchedules.intervalSeconds} * 1000`;
  let handled = 0;
  // The claim fixes the next run before this one starts: a crash mid-run does not make it run again at once.
  for await (const schedule of claimEachDue(db, appSchedules, now, {
    due: appSchedules.nextRunAt,
    key: [appSchedules.installationId, appSchedules.name],
    where: inArray(appSchedules.installationId, active),
    set: { nextRunAt: sql`${now} + ${intervalMs} - (${now} - ${appSchedules.nextRunAt}) % (${intervalMs})` },
  })) {
    handled++;
    const t = await target(services, (await findInstallation(db, schedule.installationId))!);
    if (await recordIfNotRunnable(services, t, 'SCHEDULE', schedule.name, now)) continue;
    await invokeAndRecord(services, t, 'schedule', schedule.name, { scheduledAt: isoAt(schedule.nextRunAt - schedule.intervalSeconds * 1000) });
  }
  return handled;
}

/** When the installation may receive its next event, or null when it may now (fewer than 300 in the last minute). */
async function eventWindowFreesAt(services: Services, installationId: string, now: number): Promise<number | null> {
  const recent = await services.db
    .select({ at: appExecutions.createdAt })
    .from(appExecutions)
    .where(and(eq(appExecutions.installationId, installationId), eq(appExecutions.kind, 'EVENT'), gt(appExecutions.createdAt, now - MINUTE)))
    .orderBy(desc(appExecutions.createdAt))
    .limit(EVENTS_PER_MINUTE)
    .all();
  return recent.length < EVENTS_PER_MINUTE ? null : recent[EVENTS_PER_MINUTE - 1].at + MINUTE + 1;
}

/**
 * Lifecycle notices (scopes updated, uninstalled, store-data erase) go to the app's `events/<EVENT>`
 * function when it has one (external runtimes receive them all); failures are retried.
 */
export async function runDueDeliveries(services: Services, now: number): Promise<number> {
  const { db } = services;
  let handled = 0;
  for await (const d of claimEachDue(db, appDeliveries, now, { where: eq(appDeliveries.status, 'PENDING') })) {
    handled++;
    const t = await target(services, (await findInstallation(db, d.installationId))!);
    const external = t.version.manifest.runtime === 'external';
    if (!external && !t.version.bundle.functions.includes(`events/${d.event}`)) {
      await db.update(appDeliveries).set({ status: 'DONE' }).where(eq(appDeliveries.id, d.id)).run();
      continue;
    }
    const freeAt = await eventWindowFreesAt(services, d.installationId, now);
    if (freeAt !== null) {
      await db.update(appDeliveries).set({ nextAttemptAt: freeAt }).where(eq(appDeliveries.id, d.id)).run();
      continue;
    }
    const outcome = await invokeAndRecord(services, t, 'event', d.event, { event: d.event, installationId: d.installationId, ...d.payload });
    const attempts = d.attempts + 1;
    const retryIn = DELIVERY_BACKOFF_MS[attempts - 1];
    await db
      .update(appDeliveries)
      .set(outcome.ok || retryIn === undefined ? { status: 'DONE', attempts } : { attempts, nextAttemptAt: now + retryIn })
      .where(eq(appDeliveries.id, d.id))
      .run();
  }
  return handled;
}
