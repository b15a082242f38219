import { EventEmitter } from 'node:events';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { afterCommit, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { instant } from '../../server/responses.js';
import { webhookDeliveries, webhooks } from '../webhooks/schema.js';
import { eventRefs, events, eventSequences, type ResourceType } from './schema.js';

export interface NewEvent {
  storeId: string;
  /** One of spec 01 §6.2, e.g. `ORDER.PAID`. */
  type: string;
  resource: { type: ResourceType; id: string } | null;
  data: Record<string, unknown>;
  /** Ids the event concerns beyond those in `data` (the order whose payment emptied a variant), for record search. */
  relatedIds?: string[];
}

const statements = preparedFor((db) => ({
  nextSequence: db
    .insert(eventSequences)
    .values({ storeId: sql.placeholder('storeId'), resourceType: sql.placeholder('resourceType'), resourceId: sql.placeholder('resourceId'), last: 1 })
    .onConflictDoUpdate({ target: [eventSequences.storeId, eventSequences.resourceType, eventSequences.resourceId], set: { last: sql`${eventSequences.last} + 1` } })
    .returning({ last: eventSequences.last })
    .prepare(),
  // Inserts are prepared too: emitting sits on checkout's hot path.
  insertEvent: db.insert(events).values({
    id: sql.placeholder('id'), storeId: sql.placeholder('storeId'), type: sql.placeholder('type'), resourceType: sql.placeholder('resourceType'),
    resourceId: sql.placeholder('resourceId'), sequence: sql.placeholder('sequence'), data: sql.placeholder('data'), createdAt: sql.placeholder('createdAt'),
  }).prepare(),
  insertRef: db.insert(eventRefs).values({ eventId: sql.placeholder('eventId'), refId: sql.placeholder('refId') }).prepare(),
  insertDelivery: db.insert(webhookDeliveries).values({
    id: sql.placeholder('id'), storeId: sql.placeholder('storeId'), webhookId: sql.placeholder('webhookId'), eventId: sql.placeholder('eventId'),
    eventType: sql.placeholder('eventType'), resourceType: sql.placeholder('resourceType'), resourceId: sql.placeholder('resourceId'),
    status: 'PENDING', attemptCount: 0, nextAttemptAt: sql.placeholder('now'), createdAt: sql.placeholder('now'), updatedAt: sql.placeholder('now'),
  }).prepare(),
  activeWebhooks: db
    .select({ id: webhooks.id, eventTypes: webhooks.eventTypes })
    .from(webhooks)
    .where(and(eq(webhooks.storeId, sql.placeholder('storeId')), eq(webhooks.status, 'ACTIVE')))
    .prepare(),
}));

/** Every id-valued field (`…Id`, `…Ids`) anywhere in `data`. */
function idsIn(value: unknown, into: Set<string>, key = '') {
  if (typeof value === 'string') {
    if (/(^id|Id|Ids)$/.test(key)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) idsIn(v, into, key);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) idsIn(v, into, k);
  }
}

const buses = new WeakMap<Db, EventEmitter>();
function busOf(db: Db) {
  let bus = buses.get(db);
  if (!bus) buses.set(db, (bus = new EventEmitter().setMaxListeners(0)));
  return bus;
}

/**
 * Emits `event` (a store id) once the emitting transaction committed, once per store however many events it
 * wrote, so the delivery worker and event streams react at once instead of on the next clock tick.
 */
export const eventBus = (db: Db): EventEmitter => busOf(db);

function notify(db: Db, storeId: string) {
  afterCommit(db, () => busOf(db).emit('event', storeId), `event ${storeId}`);
}

/**
 * Records a domain event in the caller's transaction and fixes its receivers: one PENDING delivery per
 * ACTIVE subscription of the store listening to the type (spec 01 §6.1: the set is fixed when prepared).
 */
export async function emitEvent(db: Db, now: number, event: NewEvent): Promise<{ eventId: string; sequence: number | null }> {
  const q = statements(db);
  const id = newId('evt', now);
  const sequence = event.resource
    ? (await q.nextSequence.get({ storeId: event.storeId, resourceType: event.resource.type, resourceId: event.resource.id }))!.last
    : null;
  const resourceType = event.resource?.type ?? null;
  const resourceId = event.resource?.id ?? null;
  await q.insertEvent.run({ id, storeId: event.storeId, type: event.type, resourceType, resourceId, sequence, data: event.data, createdAt: now });

  const refs = new Set(event.relatedIds ?? []);
  if (resourceId) refs.add(resourceId);
  idsIn(event.data, refs);
  for (const refId of refs) await q.insertRef.run({ eventId: id, refId });

  for (const w of await q.activeWebhooks.all({ storeId: event.storeId })) {
    if (!w.eventTypes.includes(event.type)) continue;
    await q.insertDelivery.run({ id: newId('whd', now), storeId: event.storeId, webhookId: w.id, eventId: id, eventType: event.type, resourceType, resourceId, now });
  }
  notify(db, event.storeId);
  return { eventId: id, sequence };
}

/** Whether an active subscription of the store takes `type` (features that only make sense with a listener). */
export const subscribed = async (db: Db, storeId: string, type: string) => (await statements(db).activeWebhooks.all({ storeId })).some((w) => w.eventTypes.includes(type));

/** An event as receivers get it (eventPayload): a webhook's body, a stream message's `data`. */
export const eventPayloadSchema = z.object({
  id: z.string(),
  /** One of spec 01 §6.2 (`ORDER.PAID`, …); receivers must tolerate types added later. */
  type: z.string(),
  createdAt: instant,
  storeId: z.string(),
  /** Order of the events of one resource; absent when the event has no resource. */
  sequence: z.number().int().optional(),
  data: z.record(z.string(), z.unknown()),
});

/** An event as receivers get it (spec 01 §6.1 body); `sequence` is absent when the event has no resource. */
export function eventPayload(e: Pick<typeof events.$inferSelect, 'id' | 'type' | 'createdAt' | 'storeId' | 'sequence'> & { dataJson: string }): string {
  const head = JSON.stringify({
    id: e.id,
    type: e.type,
    createdAt: isoAt(e.createdAt),
    storeId: e.storeId,
    ...(e.sequence === null ? {} : { sequence: e.sequence }),
  });
  // `data` is spliced in as stored: every send would otherwise parse and re-serialise it.
  return `${head.slice(0, -1)},"data":${e.dataJson}}`;
}

/** The stored `data` column as JSON text, for eventPayload. */
export const eventDataJson = sql<string>`${events.data}`;
