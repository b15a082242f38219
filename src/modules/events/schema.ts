import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export type ResourceType = 'ORDER' | 'CLAIM' | 'PRODUCT' | 'REVIEW' | 'INQUIRY';

/** The outbox: every domain event, written in the transaction of the change that caused it. */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    type: text('type').notNull(),
    resourceType: text('resource_type').$type<ResourceType>(),
    resourceId: text('resource_id'),
    /** Per-resource order (spec 01 §6.1); null when the event has no resource. */
    sequence: integer('sequence'),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    // (store_id, rowid) implicitly: the event stream reads a store's events after a rowid cursor.
    index('events_store').on(t.storeId),
    index('events_created').on(t.createdAt),
  ],
);

/** Last `sequence` handed out per resource; grows for every event, subscribed or not. */
export const eventSequences = sqliteTable(
  'event_sequences',
  {
    storeId: text('store_id').notNull(),
    resourceType: text('resource_type').$type<ResourceType>().notNull(),
    resourceId: text('resource_id').notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.resourceType, t.resourceId] })],
);

/**
 * Every id an event is about: the ids in its `data` plus related ids the emitter names (an order's id on
 * the stock event its payment caused), so the `resourceId` filter of delivery records is one indexed lookup.
 */
export const eventRefs = sqliteTable(
  'event_refs',
  {
    eventId: text('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    refId: text('ref_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.refId, t.eventId] })],
);
