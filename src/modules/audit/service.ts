import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import type { RequestResult } from '../../server/module.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { auditLogs } from './schema.js';

/** Actor types of spec 01 §5.9 (`TOKEN` only in old records). */
export const ACTOR_TYPES = ['USER', 'AGENT', 'APP', 'SYSTEM', 'TOKEN'] as const;

export interface AuditEntry {
  storeId: string;
  kind: 'REQUEST' | 'DOMAIN';
  actor: { type: string; id: string; name: string };
  source: string;
  action: string;
  target: { type: string; id: string | null } | null;
  statusCode: number;
  result: RequestResult;
  errorCode: string | null;
  requestId: string;
  traceId: string;
  idempotencyKey: string | null;
  approvalId?: string | null;
  changes?: unknown;
  metadata?: Record<string, unknown> | null;
}

const statements = preparedFor((db) => ({
  insert: db
    .insert(auditLogs)
    .values({
      id: sqlPlaceholder('id'),
      storeId: sqlPlaceholder('storeId'),
      kind: sqlPlaceholder('kind'),
      actorType: sqlPlaceholder('actorType'),
      actorId: sqlPlaceholder('actorId'),
      actorName: sqlPlaceholder('actorName'),
      source: sqlPlaceholder('source'),
      action: sqlPlaceholder('action'),
      targetType: sqlPlaceholder('targetType'),
      targetId: sqlPlaceholder('targetId'),
      statusCode: sqlPlaceholder('statusCode'),
      result: sqlPlaceholder('result'),
      errorCode: sqlPlaceholder('errorCode'),
      requestId: sqlPlaceholder('requestId'),
      traceId: sqlPlaceholder('traceId'),
      idempotencyKey: sqlPlaceholder('idempotencyKey'),
      approvalId: sqlPlaceholder('approvalId'),
      changes: sqlPlaceholder('changes'),
      metadata: sqlPlaceholder('metadata'),
      createdAt: sqlPlaceholder('createdAt'),
    })
    .prepare(),
}));

/** drizzle types placeholders loosely in insert values; the statement is filled at `run`. */
function sqlPlaceholder(name: string) {
  return sql.placeholder(name) as unknown as never;
}

/** Appends one audit record. Request bodies are never stored (spec 01 §5.9). */
export async function writeAudit(services: Services, entry: AuditEntry) {
  const now = services.clock.now();
  await statements(services.db).insert.run({
    id: newId('aud', now),
    storeId: entry.storeId,
    kind: entry.kind,
    actorType: entry.actor.type,
    actorId: entry.actor.id,
    actorName: entry.actor.name,
    source: entry.source,
    action: entry.action,
    targetType: entry.target?.type ?? null,
    targetId: entry.target?.id ?? null,
    statusCode: entry.statusCode,
    result: entry.result,
    errorCode: entry.errorCode,
    requestId: entry.requestId,
    traceId: entry.traceId,
    idempotencyKey: entry.idempotencyKey,
    approvalId: entry.approvalId ?? null,
    changes: entry.changes ?? null,
    metadata: entry.metadata ?? null,
    createdAt: now,
  });
}

/** An audit record as `GET /v1/audit-logs` lists it (presentAudit). */
export const auditLogSchema = z.object({
  auditLogId: z.string(),
  kind: z.enum(['REQUEST', 'DOMAIN']),
  actor: z.object({ type: z.string(), id: z.string(), name: z.string() }),
  source: z.string(),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  outcome: z.object({ statusCode: z.number().int(), result: z.string(), errorCode: z.string().nullable() }),
  requestId: z.string(),
  traceId: z.string(),
  idempotencyKey: z.string().nullable(),
  approvalId: z.string().nullable(),
  /** Domain records: the fields that changed. */
  changes: z.unknown(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: instant,
});

export function presentAudit(row: typeof auditLogs.$inferSelect): z.output<typeof auditLogSchema> {
  return {
    auditLogId: row.id,
    kind: row.kind,
    actor: { type: row.actorType, id: row.actorId, name: row.actorName },
    source: row.source,
    action: row.action,
    target: row.targetType ? { type: row.targetType, id: row.targetId } : null,
    outcome: { statusCode: row.statusCode, result: row.result, errorCode: row.errorCode },
    requestId: row.requestId,
    traceId: row.traceId,
    idempotencyKey: row.idempotencyKey,
    approvalId: row.approvalId,
    changes: row.changes ?? null,
    metadata: row.metadata ?? {},
    createdAt: isoAt(row.createdAt),
  };
}

/**
 * The request record an approved request's execution left (kind REQUEST, the approval's id and its
 * operation as action), if it got that far: how the execution ended.
 */
export async function executionRecordOfApproval(db: Db, approvalId: string, operationId: string): Promise<{ result: string; statusCode: number } | undefined> {
  return db
    .select({ result: auditLogs.result, statusCode: auditLogs.statusCode })
    .from(auditLogs)
    .where(and(eq(auditLogs.approvalId, approvalId), eq(auditLogs.kind, 'REQUEST'), eq(auditLogs.action, operationId)))
    .get();
}
