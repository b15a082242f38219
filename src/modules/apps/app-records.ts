// App, version and installation rows: their lookups and the developer's own app.
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { appInstallations, apps, appVersions } from './schema.js';

export type App = typeof apps.$inferSelect;
export type AppVersion = typeof appVersions.$inferSelect;
export type Installation = typeof appInstallations.$inferSelect;

export const findApp = (db: Db, appId: string) => db.select().from(apps).where(eq(apps.id, appId)).get();
export const findAppByHandle = (db: Db, handle: string) => db.select().from(apps).where(eq(apps.handle, handle)).get();
export const findVersion = (db: Db, versionId: string) => db.select().from(appVersions).where(eq(appVersions.id, versionId)).get();
export const findInstallation = (db: Db, installationId: string) => db.select().from(appInstallations).where(eq(appInstallations.id, installationId)).get();
export const activeInstallation = (db: Db, storeId: string, appId: string) =>
  db
    .select()
    .from(appInstallations)
    .where(and(eq(appInstallations.storeId, storeId), eq(appInstallations.appId, appId), eq(appInstallations.status, 'ACTIVE')))
    .get();
/** The store's active installations, of every app. */
export const activeInstallationsOfStore = (db: Db, storeId: string) =>
  db
    .select()
    .from(appInstallations)
    .where(and(eq(appInstallations.storeId, storeId), eq(appInstallations.status, 'ACTIVE')))
    .all();

/** The app of a developer; another developer's app is 404 (apps are not listed across accounts). */
export async function ownApp(db: Db, appId: string, userId: string): Promise<App> {
  const app = await findApp(db, appId);
  if (!app || app.ownerUserId !== userId) throw fail(404, 'APP_NOT_FOUND');
  return app;
}

export async function latestVersion(db: Db, app: App): Promise<AppVersion> {
  const v = await db
    .select()
    .from(appVersions)
    .where(and(eq(appVersions.appId, app.id), eq(appVersions.version, app.latestVersion)))
    .get();
  if (!v) throw fail(409, 'APP_NO_VERSION');
  return v;
}
