import { and, count, eq, gt, gte, isNotNull, lte, ne, notExists } from 'drizzle-orm';
import { transaction, type Db } from '../../../db/client.js';
import { newId } from '../../../db/ids.js';
import { fail } from '../../../server/errors.js';
import type { Job } from '../../../server/jobs.js';
import { defineMessages } from '../../../server/messages.js';
import type { Services } from '../../../server/services.js';
import { deleteSiteDomains } from '../domains/domains.js';
import { closeEditing } from '../editing/editing.js';
import { builds, checks, deployments, editing, previewLinks, publications, siteFiles, sites, slugHolds, versions } from '../schema.js';
import { assertSlugAvailable } from './slugs.js';
import { changeSite, countSiteWrite, findSite, siteUrl, type Site } from './sites.js';

defineMessages({
  STOREFRONT_SLUG_CHANGE_LIMIT: '사이트 주소는 30일에 3번까지 바꿀 수 있습니다.',
  STOREFRONT_SLUG_CONFIRM_MISMATCH: '확인으로 입력한 주소가 사이트 주소와 다릅니다.',
});

const DAY = 86_400_000;
/** Spec 02 §8: 3 slug changes per 30 days (counting across disable and re-create), the old slug held 90 days. */
export const SLUG_CHANGE_LIMIT = 3;
export const SLUG_CHANGE_WINDOW_MS = 30 * DAY;
export const OLD_SLUG_HOLD_MS = 90 * DAY;
/** A disabled site shows its closing notice 30 days and keeps its address that long; then it is deleted and the address freed. */
export const CLOSING_MS = 30 * DAY;

const changesInWindow = async (db: Db, storeId: string, now: number) =>
  (await db
    .select({ n: count() })
    .from(slugHolds)
    .where(and(eq(slugHolds.storeId, storeId), eq(slugHolds.reason, 'SLUG_CHANGE'), gte(slugHolds.createdAt, now - SLUG_CHANGE_WINDOW_MS)))
    .get())!.n;

export const slugChangesRemaining = async (db: Db, storeId: string, now: number) => Math.max(0, SLUG_CHANGE_LIMIT - (await changesInWindow(db, storeId, now)));

/** Moves the site to `slug`: the old one is held 90 days for this store and redirects to the new address. */
export async function changeSlug(services: Services, db: Db, site: Site, slug: string, now: number): Promise<Site> {
  if (slug === site.slug) return site;
  await assertSlugAvailable(services, db, site.storeId, slug, now);
  if ((await changesInWindow(db, site.storeId, now)) >= SLUG_CHANGE_LIMIT)
    throw fail(409, 'STOREFRONT_SLUG_CHANGE_LIMIT', { limit: SLUG_CHANGE_LIMIT, windowDays: 30 });
  // Taking back an address this store holds ends that hold (the change still counts).
  await db
    .update(slugHolds)
    .set({ heldUntil: now })
    .where(and(eq(slugHolds.slug, slug), eq(slugHolds.storeId, site.storeId), gt(slugHolds.heldUntil, now)))
    .run();
  await db
    .insert(slugHolds)
    .values({ id: newId('slh', now), slug: site.slug, storeId: site.storeId, reason: 'SLUG_CHANGE', createdAt: now, heldUntil: now + OLD_SLUG_HOLD_MS })
    .run();
  return changeSite(db, site, { slug }, now);
}

/**
 * A visitor at a held old address goes to the site's current one (same path and query); null when the
 * slug is not an old address of a live site.
 */
export async function heldRedirect(services: Services, slug: string, rest: string): Promise<Response | null> {
  const now = services.clock.now();
  const hold = await services.db
    .select({ storeId: slugHolds.storeId })
    .from(slugHolds)
    .where(and(eq(slugHolds.slug, slug), eq(slugHolds.reason, 'SLUG_CHANGE'), gt(slugHolds.heldUntil, now)))
    .get();
  const site = hold && (await findSite(services.db, hold.storeId));
  const address = site && site.status !== 'CLOSED' ? siteUrl(services, site.slug) : null;
  if (!address) return null;
  // 302, not 301: the old address is released after 90 days and browsers keep a 301 for good.
  return new Response(null, { status: 302, headers: { location: `${address}${rest}`, 'cache-control': 'no-store' } });
}

/**
 * Disable (spec 02 §3): the address — and every connected domain — shows a closing notice for 30 days, then
 * the job runner deletes the site with its versions, source files and custom domains, which stay readable
 * until then. What cannot outlive the open site goes now: preview links and the editing environment.
 */
export async function disableSite(db: Db, site: Site, confirmSlug: string, now: number): Promise<Site> {
  if (confirmSlug !== site.slug) throw fail(400, 'STOREFRONT_SLUG_CONFIRM_MISMATCH', { slug: site.slug });
  await db.delete(previewLinks).where(eq(previewLinks.storeId, site.storeId)).run();
  await closeEditing(db, site.storeId, now);
  return changeSite(db, site, { status: 'CLOSED', deleteAt: now + CLOSING_MS, nextAttemptAt: null }, now);
}

/**
 * Deletes sites whose closing period ended, with their versions, builds and custom domains; the address is
 * free from then on. The source files are the store's, so they go only when no next site has taken them over.
 */
async function deleteClosedSites(services: Services, now: number): Promise<number> {
  const due = await services.db
    .select()
    .from(sites)
    .where(and(eq(sites.status, 'CLOSED'), isNotNull(sites.deleteAt), lte(sites.deleteAt, now)))
    .all();
  for (const site of due) {
    await transaction(services.db, async () => {
      const { db } = services;
      countSiteWrite();
      // Another process deleted it first: nothing left to do.
      if (
        (
          await db
            .delete(sites)
            .where(and(eq(sites.id, site.id), eq(sites.status, 'CLOSED')))
            .run()
        ).changes !== 1
      )
        return;
      for (const table of [versions, builds, deployments, publications, checks, editing]) await db.delete(table).where(eq(table.siteId, site.id)).run();
      await deleteSiteDomains(db, [site.id]);
      const liveSite = db
        .select({ id: sites.id })
        .from(sites)
        .where(and(eq(sites.storeId, site.storeId), ne(sites.status, 'CLOSED')));
      await db
        .delete(siteFiles)
        .where(and(eq(siteFiles.storeId, site.storeId), notExists(liveSite)))
        .run();
    });
  }
  return due.length;
}

export const closingJob: Job = { name: 'storefront-closing', run: (services, now) => deleteClosedSites(services, now) };
