import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const auditLogs = sqliteTable(
  'audit_logs',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    kind: text('kind').$type<'REQUEST' | 'DOMAIN'>().notNull(),
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    actorName: text('actor_name').notNull(),
    source: text('source').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    statusCode: integer('status_code').notNull(),
    result: text('result').notNull(),
    errorCode: text('error_code'),
    requestId: text('request_id').notNull(),
    traceId: text('trace_id').notNull(),
    idempotencyKey: text('idempotency_key'),
    approvalId: text('approval_id'),
    changes: text('changes', { mode: 'json' }).$type<unknown>(),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('audit_logs_store_id').on(t.storeId, t.id)],
);

/**
 * The API log (spec 01 §7, §8): one row per administration API request of a store, kept 7 days. Written in
 * batches off the request path (api-log-buffer.ts); never bodies, query strings or tokens.
 */
export const apiLogs = sqliteTable(
  'api_logs',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    operationId: text('operation_id').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: integer('status').notNull(),
    errorCode: text('error_code'),
    durationMs: integer('duration_ms').notNull(),
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    traceId: text('trace_id').notNull(),
    requestId: text('request_id').notNull(),
    idempotencyKey: text('idempotency_key'),
    createdAt: integer('created_at').notNull(),
  },
  // Both indexes grow at their end (ids and times only increase). An index on the random trace id would touch
  // a page of its own per record and double the cost of a batch: a trace is found by scanning the store's
  // week newest first in the first one, which holds the trace id to spare a read of each row.
  (t) => [index('api_logs_store_id').on(t.storeId, t.id, t.traceId), index('api_logs_created_at').on(t.createdAt)],
);
