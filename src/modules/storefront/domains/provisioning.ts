import { eq } from 'drizzle-orm';
import { claimEachDue } from '../../../db/claim.js';
import { transaction } from '../../../db/client.js';
import type { Job } from '../../../server/jobs.js';
import type { Services } from '../../../server/services.js';
import { readBlob } from '../serving/blobs.js';
import { sites, versions } from '../schema.js';
import { changeSite } from '../sites/sites.js';

/** Failed applications before provisioning shows FAILED (it keeps being retried). */
const FAILURES_BEFORE_FAILED = 3;
const retryDelay = (failures: number) => Math.min(60_000 * 2 ** failures, 30 * 60_000);

/**
 * Provisioning (spec 02 §3): the published version reaches visitors once its artifacts are in place on
 * this deployment's blob store — then `servedVersionId` moves to it and the status is SYNCED.
 */
async function applyPublished(services: Services, now: number): Promise<number> {
  let handled = 0;
  for await (const site of claimEachDue(services.db, sites, now)) {
    handled++;
    const version = site.publishedVersionId ? await services.db.select().from(versions).where(eq(versions.id, site.publishedVersionId)).get() : undefined;
    let failure: string | null = null;
    try {
      if (!version) throw new Error('published version missing');
      for (const file of [version.server.bundle, ...Object.values(version.assets)]) readBlob(services, file.hash);
    } catch (error) {
      failure = (error as Error).message;
    }
    await transaction(services.db, async () => {
      const current = await services.db.select().from(sites).where(eq(sites.id, site.id)).get();
      // Published again while this ran: the newer publish has its own attempt queued.
      if (!current || current.publishedVersionId !== site.publishedVersionId) return;
      if (failure === null) {
        await changeSite(
          services.db,
          current,
          { servedVersionId: current.publishedVersionId, provisioningStatus: 'SYNCED', provisioningFailures: 0, nextAttemptAt: null },
          now,
        );
      } else {
        const failures = current.provisioningFailures + 1;
        console.error(`[svc] provisioning of site ${current.slug} failed (${failures}): ${failure}`);
        await changeSite(
          services.db,
          current,
          {
            provisioningFailures: failures,
            provisioningStatus: failures >= FAILURES_BEFORE_FAILED ? 'FAILED' : 'PENDING',
            nextAttemptAt: now + retryDelay(failures),
          },
          now,
        );
      }
    });
  }
  return handled;
}

export const provisioningJob: Job = { name: 'storefront-provisioning', run: (services, now) => applyPublished(services, now) };
