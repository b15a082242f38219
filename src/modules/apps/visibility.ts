// Who may install an app (spec 02 §2.2 `visibility`): its developer's stores while in development, the stores
// the developer names once published privately, every store once public.
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { fail, fieldError, validationFailed } from '../../server/errors.js';
import { findMembership, storeNamedBy } from '../stores/index.js';
import type { App } from './app-records.js';
import { appView, presentApp } from './app-views.js';
import { appAllowedStores, apps } from './schema.js';

/** An app as its developer sees it, with the stores a private app installs in. */
export const publishedAppView = appView.extend({
  allowedStoreIds: z.array(z.string()).describe('Stores a PRIVATE app installs in besides its developer’s own; empty otherwise.'),
});

/** The publish request: `PRIVATE` names its stores (ids or codes), `PUBLIC` names none. */
export const publishBody = z.discriminatedUnion('visibility', [
  z.object({ visibility: z.literal('PRIVATE'), stores: z.array(z.string().min(1)).min(1).max(100) }).strict(),
  z.object({ visibility: z.literal('PUBLIC') }).strict(),
]);

const allowedStoreIds = async (db: Db, appId: string) =>
  (await db.select({ storeId: appAllowedStores.storeId }).from(appAllowedStores).where(eq(appAllowedStores.appId, appId)).all()).map((r) => r.storeId).sort();

export async function presentPublishedApp(db: Db, app: App): Promise<z.output<typeof publishedAppView>> {
  return { ...presentApp(app), allowedStoreIds: app.visibility === 'PRIVATE' ? await allowedStoreIds(db, app.id) : [] };
}

/**
 * Moves an app out of development. Public is for good: stores that installed it are never cut off by a
 * narrower audience. Installations already made stay; the audience decides new installs only.
 */
export async function publishApp(db: Db, app: App, input: z.output<typeof publishBody>, now: number): Promise<App> {
  if (app.latestVersion === 0) throw fail(409, 'APP_NO_VERSION');
  if (app.visibility === 'PUBLIC' && input.visibility === 'PRIVATE') throw fail(409, 'APP_ALREADY_PUBLIC');
  const storeIds: string[] = [];
  if (input.visibility === 'PRIVATE') {
    const found = [];
    for (const name of input.stores) found.push(await storeNamedBy(db, name));
    const missing = found.flatMap((store, i) => (store ? [] : [fieldError(`stores.${i}`, 'STORE_NOT_FOUND', `상점을 찾을 수 없습니다: ${input.stores[i]}`)]));
    if (missing.length) throw validationFailed(missing);
    storeIds.push(...new Set(found.map((s) => s!.id)));
  }
  await db.delete(appAllowedStores).where(eq(appAllowedStores.appId, app.id)).run();
  for (const storeId of storeIds) await db.insert(appAllowedStores).values({ appId: app.id, storeId, createdAt: now }).run();
  await db.update(apps).set({ visibility: input.visibility, updatedAt: now }).where(eq(apps.id, app.id)).run();
  return { ...app, visibility: input.visibility, updatedAt: now };
}

/** Refuses installing `app` in a store outside its audience: 403 APP_NOT_INSTALLABLE. */
export async function assertInstallable(db: Db, app: App, storeId: string) {
  if (app.visibility === 'PUBLIC') return;
  if (await findMembership(db, storeId, app.ownerUserId)) return;
  if (app.visibility === 'PRIVATE') {
    const named = await db
      .select({ storeId: appAllowedStores.storeId })
      .from(appAllowedStores)
      .where(and(eq(appAllowedStores.appId, app.id), eq(appAllowedStores.storeId, storeId)))
      .get();
    if (named) return;
  }
  throw fail(403, 'APP_NOT_INSTALLABLE', { visibility: app.visibility });
}
