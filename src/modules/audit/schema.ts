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
