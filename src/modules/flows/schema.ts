import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Definition, FlowKind } from './definition.js';
import type { Actor } from './engine.js';

export interface Graph {
  nodes: { id: string; x: number; y: number }[];
}

/** A store's order flow; the two defaults (`isDefault`) are seeded per store, one per kind. */
export const flows = sqliteTable(
  'flows',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    name: text('name').notNull(),
    kind: text('kind').$type<FlowKind>().notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
    progression: text('progression').$type<'ITEM' | 'ORDER'>().notNull(),
    publishedVersion: integer('published_version'),
    draft: text('draft', { mode: 'json' }).$type<Definition | null>(),
    draftGraph: text('draft_graph', { mode: 'json' }).$type<Graph | null>(),
    /** Set on default flows only: one default per store and kind. */
    defaultKey: text('default_key'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('flows_store').on(t.storeId), uniqueIndex('flows_store_default').on(t.storeId, t.defaultKey)],
);

/** A published, immutable version of a flow. */
export const flowVersions = sqliteTable(
  'flow_versions',
  {
    flowId: text('flow_id')
      .notNull()
      .references(() => flows.id),
    version: integer('version').notNull(),
    storeId: text('store_id').notNull(),
    definition: text('definition', { mode: 'json' }).$type<Definition>().notNull(),
    graph: text('graph', { mode: 'json' }).$type<Graph | null>(),
    publishedAt: integer('published_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.flowId, t.version] })],
);

/**
 * Where each order item stands in its flow (fixed at payment). `groupId` joins the items of one order
 * that move together under `progression: ORDER`; `claimHold` is set while a claim is open on the item.
 */
export const orderItemFlows = sqliteTable(
  'order_item_flows',
  {
    orderItemId: text('order_item_id').primaryKey(),
    storeId: text('store_id').notNull(),
    orderId: text('order_id').notNull(),
    flowId: text('flow_id').notNull(),
    version: integer('version').notNull(),
    state: text('state').notNull(),
    coreStatus: text('core_status').notNull(),
    groupId: text('group_id'),
    claimHold: integer('claim_hold', { mode: 'boolean' }).notNull(),
    /** Every action's last input by action key (`flow.inputs` in expressions; the FULFILL note). */
    inputs: text('inputs', { mode: 'json' }).$type<Record<string, Record<string, unknown>>>().notNull(),
    enteredAt: integer('entered_at').notNull(),
    /** When the item was first delivered or supplied (`fulfilledAt` of ORDER.FULFILLED / PURCHASE_DECIDED). */
    fulfilledAt: integer('fulfilled_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('order_item_flows_order').on(t.orderId), index('order_item_flows_group').on(t.groupId)],
);

export type TimerStatus = 'PENDING' | 'PAUSED' | 'FIRED' | 'CLEARED';

/**
 * Durable flow timers. `after` timers pause while a claim is open (`remainingMs` kept, `dueAt` null) and
 * resume after; `at` timers keep running (spec 02 §4.4). The timer job claims due ones with a guarded update.
 */
export const flowTimers = sqliteTable(
  'flow_timers',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    orderItemId: text('order_item_id').notNull(),
    /** The state the timer belongs to (a timer of a state already left never fires). */
    state: text('state').notNull(),
    transition: integer('transition').notNull(),
    kind: text('kind').$type<'after' | 'at'>().notNull(),
    to: text('to_state').notNull(),
    status: text('status').$type<TimerStatus>().notNull(),
    dueAt: integer('due_at'),
    remainingMs: integer('remaining_ms'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('flow_timers_due').on(t.status, t.dueAt), index('flow_timers_item').on(t.orderItemId, t.status)],
);

export type RunTrigger =
  | { kind: 'start' }
  | { kind: 'action'; key: string }
  | { kind: 'event'; name: string }
  | { kind: 'timer'; timerId: string; after?: string; at?: string }
  | { kind: 'move'; to: string; reason: string }
  /** Moved onto another version of its flow by the seller (`…/versions/{v}/migrate`). */
  | { kind: 'migration'; fromVersion: number; toVersion: number };

/** Who ran a trigger: a seller, a buyer, an app (by its installation), the timer job, or the service. */
export type RunActor = { type: Actor | 'APP' | 'TIMER' | 'SYSTEM'; id: string | null };

/** A notification as the run records it: `sent` false with `reason` when it was not (and will not be) delivered. */
export interface RunNotification {
  channel: string;
  params: Record<string, unknown>;
  sent: boolean;
  /** App channels: the delivery's stable invocation id (the same on every retry). */
  invocationId?: string;
  reason?: string;
}

/** The history of an item in its flow: one run per trigger that moved it (and its start at payment). */
export const flowRuns = sqliteTable(
  'flow_runs',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    orderId: text('order_id').notNull(),
    orderItemId: text('order_item_id').notNull(),
    flowId: text('flow_id').notNull(),
    version: integer('version').notNull(),
    trigger: text('trigger', { mode: 'json' }).$type<RunTrigger>().notNull(),
    actor: text('actor', { mode: 'json' }).$type<RunActor>().notNull(),
    input: text('input', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    from: text('from_state'),
    to: text('to_state').notNull(),
    coreStatus: text('core_status').notNull(),
    notifications: text('notifications', { mode: 'json' }).$type<RunNotification[]>().notNull(),
    timers: text('timers', { mode: 'json' }).$type<{ transition: number; kind: string; dueAt: string; to: string }[]>().notNull(),
    eventIds: text('event_ids', { mode: 'json' }).$type<string[]>().notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('flow_runs_item').on(t.orderItemId, t.at)],
);

export type AppNotificationStatus = 'PENDING' | 'DELIVERED' | 'NOT_SENT' | 'FAILED';

/**
 * Durable queue of app notification calls (`app.<handle>.<notification>` channels), written in the move's
 * transaction. The row id is the invocation id the app sees on every attempt (delivered at least once).
 */
export const flowAppNotifications = sqliteTable(
  'flow_app_notifications',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    runId: text('run_id').notNull(),
    handle: text('handle').notNull(),
    name: text('name').notNull(),
    /** The payload of spec 02 §2.4: name, orderId, orderItemIds, flowId, flowVersion, state, params. */
    payload: text('payload', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<AppNotificationStatus>().notNull(),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('flow_app_notifications_due').on(t.status, t.nextAttemptAt), index('flow_app_notifications_run').on(t.runId)],
);

/** Flow secrets by name (for channels that need credentials); the value is sealed and never answered. */
export const flowSecrets = sqliteTable(
  'flow_secrets',
  {
    storeId: text('store_id').notNull(),
    name: text('name').notNull(),
    sealed: text('sealed').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.name] })],
);
