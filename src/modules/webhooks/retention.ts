import { and, inArray, lt } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import type { Job } from '../../server/jobs.js';
import type { Services } from '../../server/services.js';
import { deleteEventsCreatedBefore } from '../events/index.js';
import { webhookDeliveries } from './schema.js';

/** How long delivery records and their events are kept. */

const RECORDS_KEPT_MS = 30 * 86400_000;

/**
 * The sweep runs at most once an hour of the service's clock, not on every tick of the job loop: it reads
 * through every record and event kept (nothing indexes their age), which under a stream of deliveries cost
 * more than the deliveries themselves, and a record an hour past its 30 days is as good as gone.
 */
const SWEEP_EVERY_MS = 3600_000;
const lastSweep = new WeakMap<Services, number>();

/** Records are kept 30 days (spec 01 §8); events a day longer, so a redelivery queued on day 30 still finds its event. */
export const retentionJob: Job = {
  name: 'webhooks.retention',
  async run(services, now) {
    const last = lastSweep.get(services);
    // A clock set back (a manual one) sweeps at once.
    if (last !== undefined && now >= last && now - last < SWEEP_EVERY_MS) return 0;
    const cutoff = now - RECORDS_KEPT_MS;
    const deleted = await transaction(
      services.db,
      async () =>
        (
          await services.db
            .delete(webhookDeliveries)
            .where(and(lt(webhookDeliveries.createdAt, cutoff), inArray(webhookDeliveries.status, ['SUCCESS', 'FAILED'])))
            .run()
        ).changes + (await deleteEventsCreatedBefore(services.db, cutoff - 86400_000)),
    );
    lastSweep.set(services, now);
    return deleted;
  },
};
