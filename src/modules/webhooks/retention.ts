import { and, inArray, lt } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import type { Job } from '../../server/jobs.js';
import { deleteEventsCreatedBefore } from '../events/index.js';
import { webhookDeliveries } from './schema.js';

/** How long delivery records and their events are kept. */

const RECORDS_KEPT_MS = 30 * 86400_000;

/** Records are kept 30 days (spec 01 §8); events a day longer, so a redelivery queued on day 30 still finds its event. */
export const retentionJob: Job = {
  name: 'webhooks.retention',
  run(services, now) {
    const cutoff = now - RECORDS_KEPT_MS;
    return transaction(
      services.db,
      async () =>
        (
          await services.db
            .delete(webhookDeliveries)
            .where(and(lt(webhookDeliveries.createdAt, cutoff), inArray(webhookDeliveries.status, ['SUCCESS', 'FAILED'])))
            .run()
        ).changes + (await deleteEventsCreatedBefore(services.db, cutoff - 86400_000)),
    );
  },
};
