// Installations of an app in a store: who may install, consent to a version, schedules, uninstall, erasure, notices to the app.
import { and, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { roleAllows } from '../../kernel/scopes.js';
import { emitEvent } from '../events/index.js';
import type { Role } from '../../kernel/identity.js';
import { latestVersion, type App, type AppVersion, type Installation } from './app-records.js';
import { intervalSeconds, type Manifest } from '../../kernel/app-manifest.js';
import { appDeliveries, appInstallations, appSchedules, appStorage } from './schema.js';

const ERASE_DELAY_MS = 48 * 3600_000;

/** Scopes of `manifest` above `role` (an installer cannot grant more than they hold, spec 02 §2.2). */
export function assertRoleCovers(role: Role, manifest: Manifest) {
  const above = manifest.scopes.filter((s) => !roleAllows(role, s));
  if (above.length) throw fail(403, 'INSUFFICIENT_ROLE', { reason: 'SCOPE_ABOVE_ROLE', role, scopes: above });
}

export async function install(services: Services, app: App, storeId: string, userId: string, now: number): Promise<Installation> {
  const version = await latestVersion(services.db, app);
  const inst: Installation = {
    id: newId('inst', now),
    storeId,
    appId: app.id,
    versionId: version.id,
    pendingVersionId: null,
    grantedScopes: version.manifest.scopes,
    installedBy: userId,
    settings: {},
    status: 'ACTIVE',
    installedAt: now,
    updatedAt: now,
    uninstalledAt: null,
    eraseAt: null,
    erasedAt: null,
  };
  await services.db.insert(appInstallations).values(inst).run();
  await syncSchedules(services.db, inst.id, version.manifest, now);
  return inst;
}

/** Consent given to `version`: it runs from now on with its scopes; the app hears APP.SCOPES_UPDATED when scopes changed. */
export async function consentTo(services: Services, inst: Installation, version: AppVersion, now: number) {
  const before = inst.grantedScopes;
  await moveToVersion(services, inst, version, now);
  await emitEvent(services.db, now, {
    storeId: inst.storeId,
    type: 'APP.SCOPES_UPDATED',
    resource: null,
    data: { installationId: inst.id, appId: inst.appId, version: version.version, previousScopes: before, scopes: version.manifest.scopes },
  });
  await enqueueDelivery(services.db, inst.id, 'APP.SCOPES_UPDATED', { version: version.version, previousScopes: before, scopes: version.manifest.scopes }, now);
}

export async function moveToVersion(services: Services, inst: Installation, version: AppVersion, now: number) {
  await services.db
    .update(appInstallations)
    .set({ versionId: version.id, pendingVersionId: null, grantedScopes: version.manifest.scopes, updatedAt: now })
    .where(eq(appInstallations.id, inst.id))
    .run();
  await syncSchedules(services.db, inst.id, version.manifest, now);
}

/** Schedules follow the running version: new ones start one interval from now, kept ones keep their next run. */
async function syncSchedules(db: Db, installationId: string, manifest: Manifest, now: number) {
  const declared = Object.entries(manifest.schedules ?? {});
  const existing = await db.select().from(appSchedules).where(eq(appSchedules.installationId, installationId)).all();
  const names = declared.map(([n]) => n);
  const gone = existing.filter((s) => !names.includes(s.name)).map((s) => s.name);
  if (gone.length)
    await db
      .delete(appSchedules)
      .where(and(eq(appSchedules.installationId, installationId), inArray(appSchedules.name, gone)))
      .run();
  for (const [name, s] of declared) {
    const intervalS = intervalSeconds(s.interval);
    await db
      .insert(appSchedules)
      .values({ installationId, name, intervalSeconds: intervalS, nextRunAt: now + intervalS * 1000 })
      .onConflictDoUpdate({ target: [appSchedules.installationId, appSchedules.name], set: { intervalSeconds: intervalS } })
      .run();
  }
}

/** Access ends now; settings and storage are erased 48 hours later by the erase job. */
export async function uninstall(services: Services, inst: Installation, now: number) {
  const { db } = services;
  await db
    .update(appInstallations)
    .set({ status: 'UNINSTALLED', pendingVersionId: null, uninstalledAt: now, eraseAt: now + ERASE_DELAY_MS, updatedAt: now })
    .where(eq(appInstallations.id, inst.id))
    .run();
  await db.delete(appSchedules).where(eq(appSchedules.installationId, inst.id)).run();
  await enqueueDelivery(db, inst.id, 'APP.UNINSTALLED', { uninstalledAt: isoAt(now), eraseAt: isoAt(now + ERASE_DELAY_MS) }, now);
}

/**
 * A store-wide notice (APP.CUSTOMER_REDACT) to every running installation of the store that holds one of
 * `scopes`, queued in the caller's transaction and delivered to the app's `events/<EVENT>` function.
 */
export async function notifyStoreApps(db: Db, storeId: string, event: string, payload: Record<string, unknown>, scopes: string[], now: number) {
  const running = await db
    .select()
    .from(appInstallations)
    .where(and(eq(appInstallations.storeId, storeId), eq(appInstallations.status, 'ACTIVE')))
    .all();
  for (const inst of running) if (inst.grantedScopes.some((s) => scopes.includes(s))) await enqueueDelivery(db, inst.id, event, payload, now);
}

async function enqueueDelivery(db: Db, installationId: string, event: string, payload: Record<string, unknown>, now: number) {
  await db
    .insert(appDeliveries)
    .values({ id: newId('appd', now), installationId, event, payload, status: 'PENDING', attempts: 0, nextAttemptAt: now, createdAt: now })
    .run();
}

/** Erase job: 48 hours after uninstall, settings and storage go and the app is told to erase store data. */
export async function eraseUninstalled(services: Services, now: number): Promise<number> {
  const { db } = services;
  const due = await db
    .select()
    .from(appInstallations)
    .where(and(eq(appInstallations.status, 'UNINSTALLED'), lte(appInstallations.eraseAt, now), sql`${appInstallations.erasedAt} is null`))
    .all();
  for (const inst of due) {
    await transaction(services.db, async () => {
      // Of several processes (or a re-run of this transaction after a conflict), the one that marks it erased erases it.
      const claimed =
        (
          await db
            .update(appInstallations)
            .set({ settings: {}, erasedAt: now, updatedAt: now })
            .where(and(eq(appInstallations.id, inst.id), isNull(appInstallations.erasedAt)))
            .run()
        ).changes === 1;
      if (!claimed) return;
      await db.delete(appStorage).where(eq(appStorage.installationId, inst.id)).run();
      await enqueueDelivery(db, inst.id, 'APP.STORE_DATA_ERASE', { storeId: inst.storeId, uninstalledAt: isoAt(inst.uninstalledAt!) }, now);
    });
  }
  return due.length;
}
