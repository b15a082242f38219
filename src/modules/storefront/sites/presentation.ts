import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../../db/client.js';
import { isoAt } from '../../../db/clock.js';
import { instant } from '../../../server/responses.js';
import type { Services } from '../../../server/services.js';
import { primaryUrl } from '../domains/domains.js';
import { versions } from '../schema.js';
import { slugChangesRemaining } from './lifecycle.js';
import type { Site } from './sites.js';

export const siteSchema = z.object({
  enabled: z.literal(true),
  siteId: z.string(),
  status: z.enum(['ACTIVE', 'SUSPENDED', 'CLOSED']),
  suspension: z.object({ reason: z.string().nullable() }).nullable(),
  /** Disabled: the closing notice shows until `deleteAt`, when the site, its versions and files are deleted. */
  closing: z.object({ deleteAt: instant }).nullable(),
  /** The site's address: its primary custom domain, else `{slug}.{sitesDomain}`; null in svc serve without a sites domain until a custom domain is connected. */
  url: z.string().nullable(),
  visibility: z.enum(['COMING_SOON', 'PUBLIC']),
  slug: z.string(),
  slugChangesRemaining: z.number().int(),
  templateId: z.string(),
  templateVersion: z.string().nullable(),
  publishedVersionId: z.string().nullable(),
  provisioning: z.object({ status: z.enum(['PENDING', 'SYNCED', 'FAILED']), servedVersionId: z.string().nullable() }),
  createdAt: instant,
  updatedAt: instant,
});
/** Before creation: `enabled` says whether a site can be created now (spec 02 §4.2). */
export const noSiteSchema = z.object({ enabled: z.boolean(), siteId: z.null() });

export async function presentSite(services: Services, db: Db, site: Site): Promise<z.output<typeof siteSchema>> {
  const published = site.publishedVersionId
    ? await db.select({ v: versions.templateVersion }).from(versions).where(eq(versions.id, site.publishedVersionId)).get()
    : undefined;
  return {
    enabled: true,
    siteId: site.id,
    status: site.status,
    suspension: site.status === 'SUSPENDED' ? { reason: site.suspensionReason } : null,
    closing: site.status === 'CLOSED' && site.deleteAt !== null ? { deleteAt: isoAt(site.deleteAt) } : null,
    url: await primaryUrl(services, db, site),
    visibility: site.visibility,
    slug: site.slug,
    slugChangesRemaining: await slugChangesRemaining(db, site.storeId, services.clock.now()),
    templateId: site.templateId,
    templateVersion: published?.v ?? null,
    publishedVersionId: site.publishedVersionId,
    provisioning: { status: site.provisioningStatus, servedVersionId: site.servedVersionId },
    createdAt: isoAt(site.createdAt),
    updatedAt: isoAt(site.updatedAt),
  };
}
