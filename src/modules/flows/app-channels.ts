import { and, eq } from 'drizzle-orm';
import { claimEachDue } from '../../db/claim.js';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import type { Services } from '../../server/services.js';
import type { Principal } from '../../kernel/identity.js';
import { invokeAndRecord } from '../apps/index.js';
import { activeInstallation, activeInstallationsOfStore, findApp, findAppByHandle, findInstallation, findVersion } from '../apps/index.js';
import { recordIfNotRunnable } from '../apps/index.js';
import type { AppLookup, InstalledApp } from './check.js';
import { openSecrets } from '../payments/index.js';
import { flowAppNotifications, flowSecrets } from './schema.js';

/**
 * Flows and apps: app notification channels (`app.<handle>.<notification>`, delivered at least once
 * through the apps module's invocation machinery with a stable invocation id) and app events
 * (`app.<handle>.<EVENT>`, accepted only from that app's installation).
 */

/** The store's live installation of the app `handle` with its running version, or null. */
async function runningApp(db: Db, storeId: string, handle: string) {
  const app = await findAppByHandle(db, handle);
  const installation = app ? await activeInstallation(db, storeId, app.id) : undefined;
  if (!app || !installation) return null;
  return { app, installation, version: (await findVersion(db, installation.versionId))! };
}

function asInstalled(version: NonNullable<Awaited<ReturnType<typeof findVersion>>>): InstalledApp {
  const flow = version.manifest.flow;
  return { notifications: flow?.notifications ?? {}, events: Object.keys(flow?.events ?? {}) };
}

/**
 * What the check may use of the store's apps. The check itself is synchronous, so the store's active
 * installations are read up front rather than one handle at a time as it asks.
 */
export async function appLookup(db: Db, storeId: string): Promise<AppLookup> {
  const installed = new Map<string, InstalledApp>();
  for (const installation of await activeInstallationsOfStore(db, storeId)) {
    const app = (await findApp(db, installation.appId))!;
    if (!installed.has(app.handle)) installed.set(app.handle, asInstalled((await findVersion(db, installation.versionId))!));
  }
  return (handle) => installed.get(handle) ?? null;
}

/** The store's installed apps that offer flow notifications or events, as the flow editor lists them. */
export async function flowAppsOf(db: Db, storeId: string) {
  const offers = await Promise.all(
    (await activeInstallationsOfStore(db, storeId)).map(async (installation) => {
      const app = (await findApp(db, installation.appId))!;
      const flow = (await findVersion(db, installation.versionId))?.manifest.flow;
      if (!flow?.notifications && !flow?.events) return [];
      return [
        {
          handle: app.handle,
          notifications: Object.entries(flow.notifications ?? {}).map(([name, n]) => ({
            channel: `app.${app.handle}.${name}`,
            name,
            params: Object.keys(n.params ?? {}),
          })),
          events: Object.keys(flow.events ?? {}).map((name) => ({ event: `app.${app.handle}.${name}`, name })),
        },
      ];
    }),
  );
  return offers.flat();
}

/** Why a notification cannot go to the app now (spec 02 §6: the flow proceeds, the run shows not-sent), or null. */
function notSentReason(found: Awaited<ReturnType<typeof runningApp>>, name: string): string | null {
  if (!found) return 'APP_NOT_INSTALLED';
  return found.version.manifest.flow?.notifications?.[name] ? null : 'NOTIFICATION_NOT_IN_VERSION';
}

/**
 * Queues one app notification in the move's transaction; the row id is the invocation id. An app not
 * installed, or whose running version lacks the notification, is recorded as not sent and not queued.
 */
export async function enqueueAppNotification(
  db: Db,
  now: number,
  storeId: string,
  runId: string,
  handle: string,
  name: string,
  payload: Record<string, unknown>,
) {
  const reason = notSentReason(await runningApp(db, storeId, handle), name);
  if (reason) return { sent: false, reason };
  const id = newId('fan', now);
  await db
    .insert(flowAppNotifications)
    .values({
      id,
      storeId,
      runId,
      handle,
      name,
      payload,
      status: 'PENDING',
      attempts: 0,
      nextAttemptAt: now,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    })
    .run();
  return { sent: true, invocationId: id };
}

/** A secret's value for an app function call; null when it was deleted since. */
async function openSecret(services: Services, storeId: string, name: string): Promise<string | null> {
  const found = await services.db
    .select()
    .from(flowSecrets)
    .where(and(eq(flowSecrets.storeId, storeId), eq(flowSecrets.name, name)))
    .get();
  return found ? openSecrets(services, `${storeId}/${name}`, found.sealed).value : null;
}

/** Opens the flow secrets a payload's params name (`{ secret: NAME }`, see SECRET_PARAM) for this one call. */
async function withSecrets(services: Services, storeId: string, payload: Record<string, unknown>) {
  const params = payload.params as Record<string, unknown>;
  const isRef = (v: unknown): v is { secret: string } => typeof v === 'object' && v !== null && typeof (v as { secret?: unknown }).secret === 'string';
  if (!Object.values(params).some(isRef)) return payload;
  const opened = await Promise.all(Object.entries(params).map(async ([k, v]) => [k, isRef(v) ? await openSecret(services, storeId, v.secret) : v] as const));
  return { ...payload, params: Object.fromEntries(opened) };
}

/** Failed calls are retried after 1 min, 5 min, 30 min, 2 h and 6 h, then given up (FAILED). */
const RETRY_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];

/** The job: calls each due notification's function; the invocation id stays the same on every attempt. */
export async function deliverAppNotifications(services: Services, now: number): Promise<number> {
  const { db } = services;
  let handled = 0;
  for await (const n of claimEachDue(db, flowAppNotifications, now, { where: eq(flowAppNotifications.status, 'PENDING') })) {
    handled++;
    const settle = (set: Partial<typeof flowAppNotifications.$inferInsert>) =>
      db
        .update(flowAppNotifications)
        .set({ ...set, updatedAt: services.clock.now() })
        .where(eq(flowAppNotifications.id, n.id))
        .run();
    // Uninstalled or moved to a version without the notification since the move: not sent.
    const found = await runningApp(db, n.storeId, n.handle);
    const reason = notSentReason(found, n.name);
    if (reason || !found) {
      await settle({ status: 'NOT_SENT', lastError: reason });
      continue;
    }
    const notRunnable = await recordIfNotRunnable(services, found, 'NOTIFICATION', n.name, now);
    if (notRunnable) {
      await settle({ status: 'NOT_SENT', lastError: notRunnable });
      continue;
    }
    const outcome = await invokeAndRecord(services, found, 'notification', n.name, await withSecrets(services, n.storeId, n.payload), undefined, {
      invocationId: n.id,
    });
    const attempts = n.attempts + 1;
    const retryIn = RETRY_MS[attempts - 1];
    if (outcome.ok) await settle({ status: 'DELIVERED', attempts, lastError: null });
    else
      await settle(
        retryIn === undefined
          ? { status: 'FAILED', attempts, lastError: outcome.code }
          : { attempts, nextAttemptAt: services.clock.now() + retryIn, lastError: outcome.code },
      );
  }
  return handled;
}

/**
 * An app event `app.<handle>.<EVENT>` is accepted only from that app's own installation token, and only
 * for an event its running version's manifest declares (spec 02 §4.4); else 403 FLOW_EVENT_APP_FORBIDDEN.
 */
export async function appMaySend(db: Db, principal: Principal, handle: string, event: string): Promise<boolean> {
  if (principal.kind !== 'installation') return false;
  const installation = await findInstallation(db, principal.tokenId);
  const app = installation ? await findApp(db, installation.appId) : undefined;
  if (!installation || installation.status !== 'ACTIVE' || app?.handle !== handle) return false;
  return Boolean((await findVersion(db, installation.versionId))?.manifest.flow?.events?.[event]);
}
