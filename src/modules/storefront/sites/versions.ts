import { desc, eq, max } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../../db/client.js';
import { isoAt } from '../../../db/clock.js';
import { newId } from '../../../db/ids.js';
import { fail } from '../../../server/errors.js';
import { instant } from '../../../server/responses.js';
import { publications, versions } from '../schema.js';
import { changeSite, type Site } from './sites.js';
import { templates } from './templates.js';

export type Version = typeof versions.$inferSelect;

export const nextVersionNumber = async (db: Db, siteId: string) =>
  ((
    await db
      .select({ n: max(versions.number) })
      .from(versions)
      .where(eq(versions.siteId, siteId))
      .get()
  )?.n ?? 0) + 1;

export const versionSchema = z.object({
  versionId: z.string(),
  number: z.string().describe('v1, v2, …'),
  templateVersion: z.string().nullable(),
  previewable: z.boolean(),
  published: z.boolean(),
  createdAt: instant,
  sizes: z.object({ serverBundle: z.number().int(), static: z.number().int() }),
});

export function presentVersion(v: Version, site: Site): z.output<typeof versionSchema> {
  return {
    versionId: v.id,
    number: `v${v.number}`,
    templateVersion: v.templateVersion,
    previewable: true,
    published: site.publishedVersionId === v.id,
    createdAt: isoAt(v.createdAt),
    sizes: { serverBundle: v.server.bundle.size, static: v.staticBytes },
  };
}

export async function requireVersion(db: Db, storeId: string, versionId: string): Promise<Version> {
  const version = await db.select().from(versions).where(eq(versions.id, versionId)).get();
  if (!version || version.storeId !== storeId) throw fail(404, 'STOREFRONT_VERSION_NOT_FOUND', { versionId });
  return version;
}

/**
 * Makes `version` the published one and queues provisioning (visitors get it once SYNCED). The first
 * published version fixes the site's template version when the project did not name one.
 */
export async function publishVersion(db: Db, site: Site, version: Version, via: 'PUBLISH' | 'ROLLBACK' | 'DEPLOYMENT', now: number): Promise<Site> {
  if (site.publishedVersionId === version.id) return site;
  await db
    .insert(publications)
    .values({ id: newId('pub', now), storeId: site.storeId, siteId: site.id, versionId: version.id, via, publishedAt: now })
    .run();
  return changeSite(db, site, { publishedVersionId: version.id, provisioningStatus: 'PENDING', provisioningFailures: 0, nextAttemptAt: now }, now);
}

/** Rollback's default target: the version published just before the current one (spec 02 §4.2). */
export async function previousPublished(db: Db, site: Site): Promise<string | null> {
  const history = await db
    .select({ versionId: publications.versionId })
    .from(publications)
    .where(eq(publications.siteId, site.id))
    .orderBy(desc(publications.publishedAt), desc(publications.id))
    .all();
  return history.find((h) => h.versionId !== site.publishedVersionId)?.versionId ?? null;
}

/** The template version a new version records: its own `sayren.templateVersion`, else the published version's. */
export async function inheritedTemplateVersion(db: Db, site: Site): Promise<string | null> {
  if (!site.publishedVersionId) return templates.find((t) => t.templateId === site.templateId)?.templateVersion ?? null;
  return (await db.select({ v: versions.templateVersion }).from(versions).where(eq(versions.id, site.publishedVersionId)).get())?.v ?? null;
}
