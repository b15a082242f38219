import { EventEmitter } from 'node:events';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
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
/**
 * Told (after the emitting transaction, on the next turn) that a store has new events, so the delivery
 * worker and event streams react at once instead of on the next clock tick. Durable state is the tables;
 * a notice for an event whose transaction rolled back just finds nothing.
 */
export function eventBus(db: Db): EventEmitter {
  let bus = buses.get(db);
  if (!bus) {
    bus = new EventEmitter();
    bus.setMaxListeners(0);
    buses.set(db, bus);
  }
  return bus;
}

/**
 * Records a domain event in the caller's transaction and fixes its receivers: one PENDING delivery per
 * ACTIVE subscription of the store listening to the type (spec 01 §6.1: the set is fixed when prepared).
 */
export function emitEvent(db: Db, now: number, event: NewEvent): { eventId: string; sequence: number | null } {
  const q = statements(db);
  const id = newId('evt', now);
  const sequence = event.resource
    ? q.nextSequence.get({ storeId: event.storeId, resourceType: event.resource.type, resourceId: event.resource.id })!.last
    : null;
  db.insert(events).values({
    id,
    storeId: event.storeId,
    type: event.type,
    resourceType: event.resource?.type ?? null,
    resourceId: event.resource?.id ?? null,
    sequence,
    data: event.data,
    createdAt: now,
  }).run();

  const refs = new Set(event.relatedIds ?? []);
  if (event.resource) refs.add(event.resource.id);
  idsIn(event.data, refs);
  if (refs.size) db.insert(eventRefs).values([...refs].map((refId) => ({ eventId: id, refId }))).run();

  const receivers = q.activeWebhooks.all({ storeId: event.storeId }).filter((w) => w.eventTypes.includes(event.type));
  if (receivers.length) {
    db.insert(webhookDeliveries).values(receivers.map((w) => ({
      id: newId('whd', now),
      storeId: event.storeId,
      webhookId: w.id,
      eventId: id,
      eventType: event.type,
      resourceType: event.resource?.type ?? null,
      resourceId: event.resource?.id ?? null,
      status: 'PENDING' as const,
      attemptCount: 0,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    }))).run();
  }
  const bus = eventBus(db);
  setImmediate(() => bus.emit('event', event.storeId));
  return { eventId: id, sequence };
}

/** An event as receivers get it (spec 01 §6.1 body); `sequence` is absent when the event has no resource. */
export function eventPayload(e: Pick<typeof events.$inferSelect, 'id' | 'type' | 'createdAt' | 'storeId' | 'sequence' | 'data'>): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    createdAt: isoAt(e.createdAt),
    storeId: e.storeId,
    ...(e.sequence === null ? {} : { sequence: e.sequence }),
    data: e.data,
  });
}
