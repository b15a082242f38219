import { EventEmitter } from 'node:events';
import { eq, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { afterCommit, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { announce } from '../../server/hooks.js';
import { instant } from '../../server/responses.js';
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
    .onConflictDoUpdate({
      target: [eventSequences.storeId, eventSequences.resourceType, eventSequences.resourceId],
      set: { last: sql`${eventSequences.last} + 1` },
    })
    .returning({ last: eventSequences.last })
    .prepare(),
  // Inserts are prepared too: emitting sits on checkout's hot path.
  insertEvent: db
    .insert(events)
    .values({
      id: sql.placeholder('id'),
      storeId: sql.placeholder('storeId'),
      type: sql.placeholder('type'),
      resourceType: sql.placeholder('resourceType'),
      resourceId: sql.placeholder('resourceId'),
      sequence: sql.placeholder('sequence'),
      data: sql.placeholder('data'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
  insertRef: db
    .insert(eventRefs)
    .values({ eventId: sql.placeholder('eventId'), refId: sql.placeholder('refId') })
    .prepare(),
  // Read for every webhook send the delivery worker starts.
  forDelivery: db
    .select({ eventId: events.id, type: events.type, createdAt: events.createdAt, storeId: events.storeId, sequence: events.sequence, dataJson: eventDataJson })
    .from(events)
    .where(eq(events.id, sql.placeholder('id')))
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
 * Records a domain event in the caller's transaction and announces it (`eventRecorded`), so its receivers
 * are fixed in the same transaction (webhooks: spec 01 §6.1, the set is fixed when prepared).
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

  await announce(db, 'eventRecorded', { eventId: id, storeId: event.storeId, type: event.type, resourceType, resourceId, at: now });
  notify(db, event.storeId);
  return { eventId: id, sequence };
}

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

/** What a delivery of the event needs (its eventPayload fields, `data` as stored JSON text), if it is still kept. */
export const eventForDelivery = (db: Db, eventId: string) => statements(db).forDelivery.get({ id: eventId });

/**
 * The ids of the events about `refId` (an id in their `data` or named by the emitter), as a subquery for
 * the caller's `inArray(…)`: a resource's records filter (spec 01 §8) stays one indexed query.
 */
export const eventIdsAbout = (db: Db, refId: string) => db.select({ id: eventRefs.eventId }).from(eventRefs).where(eq(eventRefs.refId, refId));

/** Retention: deletes the events created before `before` (their refs go with them); returns how many. */
export async function deleteEventsCreatedBefore(db: Db, before: number): Promise<number> {
  return (await db.delete(events).where(lt(events.createdAt, before)).run()).changes;
}
