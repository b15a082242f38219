// The webhook deliveries of a recorded event: fixed in the event's own transaction (spec 01 §6.1).
import { and, eq, sql } from 'drizzle-orm';
import { afterCommit, type Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import type { Services } from '../../server/services.js';
import type { RecordedEvent } from '../events/index.js';
import { webhookDeliveries, webhooks } from './schema.js';
import { deliveryWorker } from './worker.js';

// Prepared: every event of checkout's hot path passes here.
const statements = preparedFor((db) => ({
  insertDelivery: db
    .insert(webhookDeliveries)
    .values({
      id: sql.placeholder('id'),
      storeId: sql.placeholder('storeId'),
      webhookId: sql.placeholder('webhookId'),
      eventId: sql.placeholder('eventId'),
      eventType: sql.placeholder('eventType'),
      resourceType: sql.placeholder('resourceType'),
      resourceId: sql.placeholder('resourceId'),
      status: 'PENDING',
      attemptCount: 0,
      nextAttemptAt: sql.placeholder('now'),
      createdAt: sql.placeholder('now'),
      updatedAt: sql.placeholder('now'),
    })
    .prepare(),
  activeWebhooks: db
    .select({ id: webhooks.id, eventTypes: webhooks.eventTypes })
    .from(webhooks)
    .where(and(eq(webhooks.storeId, sql.placeholder('storeId')), eq(webhooks.status, 'ACTIVE')))
    .prepare(),
}));

/**
 * One PENDING delivery per ACTIVE subscription of the store that listens to the event's type. The worker
 * is woken for those subscriptions once the transaction committed (before, it would find nothing): events
 * nobody listens to wake nothing.
 */
export async function queueDeliveries(services: Services, event: RecordedEvent) {
  const { db } = services;
  const q = statements(db);
  for (const w of await q.activeWebhooks.all({ storeId: event.storeId })) {
    if (!w.eventTypes.includes(event.type)) continue;
    await q.insertDelivery.run({
      id: newId('whd', event.at),
      storeId: event.storeId,
      webhookId: w.id,
      eventId: event.eventId,
      eventType: event.type,
      resourceType: event.resourceType,
      resourceId: event.resourceId,
      now: event.at,
    });
    afterCommit(db, () => deliveryWorker(services).wake(w.id), `webhook ${w.id}`);
  }
}

/** Whether an active subscription of the store takes `type` (features that only make sense with a listener). */
export const subscribed = async (db: Db, storeId: string, type: string) =>
  (await statements(db).activeWebhooks.all({ storeId })).some((w) => w.eventTypes.includes(type));
