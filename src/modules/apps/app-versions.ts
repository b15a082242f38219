// Creating an app and uploading its versions; installations follow a version that asks for nothing new.
import { and, eq } from 'drizzle-orm';
import { newId } from '../../db/ids.js';
import { validationFailed, fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { findAppByHandle, findVersion, type App, type AppVersion } from './app-records.js';
import { moveToVersion } from './installations.js';
import { consentWidening, type Manifest } from '../../kernel/app-manifest.js';
import { appInstallations, apps, appVersions, type AppBundle } from './schema.js';

export async function createApp(services: Services, userId: string, manifest: Manifest, now: number): Promise<App> {
  if (await findAppByHandle(services.db, manifest.handle)) throw fail(409, 'APP_HANDLE_TAKEN', { handle: manifest.handle });
  const app: App = {
    id: newId('app', now),
    handle: manifest.handle,
    name: manifest.name,
    ownerUserId: userId,
    visibility: 'DEVELOPMENT',
    latestVersion: 0,
    failingSince: null,
    suspendedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await services.db.insert(apps).values(app).run();
  return app;
}

/**
 * A new version of an app. Installations move to it at once when it asks for nothing new; otherwise
 * they keep running the old version with the new one pending consent (spec 02 §3). A new version also
 * lifts a suspension: the developer shipped a fix.
 */
export async function addVersion(services: Services, app: App, userId: string, manifest: Manifest, bundle: AppBundle, now: number): Promise<AppVersion> {
  const { db } = services;
  if (manifest.handle !== app.handle)
    throw validationFailed([{ field: 'manifest.handle', code: 'HANDLE_MISMATCH', message: `이 앱의 핸들은 ${app.handle}입니다. 핸들은 바꿀 수 없습니다.` }]);
  const version: AppVersion = { id: newId('appv', now), appId: app.id, version: app.latestVersion + 1, manifest, bundle, createdBy: userId, createdAt: now };
  await db.insert(appVersions).values(version).run();
  await db
    .update(apps)
    .set({ name: manifest.name, latestVersion: version.version, failingSince: null, suspendedAt: null, updatedAt: now })
    .where(eq(apps.id, app.id))
    .run();

  const installations = await db
    .select()
    .from(appInstallations)
    .where(and(eq(appInstallations.appId, app.id), eq(appInstallations.status, 'ACTIVE')))
    .all();
  for (const inst of installations) {
    const running = (await findVersion(db, inst.versionId))!;
    if (Object.keys(consentWidening(running.manifest, manifest)).length === 0) await moveToVersion(services, inst, version, now);
    else await db.update(appInstallations).set({ pendingVersionId: version.id, updatedAt: now }).where(eq(appInstallations.id, inst.id)).run();
  }
  return version;
}
