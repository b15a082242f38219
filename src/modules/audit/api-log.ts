import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import type { Job } from '../../server/module.js';
import { cursorPageOf } from '../../server/paging.js';
import { defineOperation } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import { flushApiLog } from './api-log-buffer.js';
import { cursorPage, periodAndCursor, periodQuery } from './listing.js';
import { apiLogs } from './schema.js';

/** Spec 01 §8: administration API requests are kept 7 days. */
const KEPT_MS = 7 * 24 * 3600 * 1000;

/** One request as `GET /v1/api-logs` lists it. */
export const apiLogSchema = z.object({
  apiLogId: z.string(),
  operationId: z.string(),
  method: z.string(),
  /** The path alone: query strings are not kept. */
  path: z.string(),
  status: z.number().int(),
  errorCode: z.string().nullable(),
  durationMs: z.number().int(),
  /** Who called, named as the audit log names actors (`USER`, `AGENT`, `APP`, `SYSTEM`). */
  actor: z.object({ type: z.string(), id: z.string() }),
  traceId: z.string(),
  requestId: z.string(),
  idempotencyKey: z.string().nullable(),
  createdAt: instant,
});

const presentApiLog = (row: typeof apiLogs.$inferSelect): z.output<typeof apiLogSchema> => ({
  apiLogId: row.id,
  operationId: row.operationId,
  method: row.method,
  path: row.path,
  status: row.status,
  errorCode: row.errorCode,
  durationMs: row.durationMs,
  actor: { type: row.actorType, id: row.actorId },
  traceId: row.traceId,
  requestId: row.requestId,
  idempotencyKey: row.idempotencyKey,
  createdAt: isoAt(row.createdAt),
});

export const listApiLogs = defineOperation({
  operationId: 'listApiLogs',
  method: 'GET',
  path: '/v1/api-logs',
  summary: "The store's API requests of the last 7 days, newest first, with cursor paging (find an error's traceId here)",
  tag: 'Audit',
  auth: 'store',
  scope: 'audit:r',
  roles: ['OWNER', 'ADMIN'],
  query: z
    .object({
      traceId: z.string().optional(),
      operationId: z.string().optional(),
      status: z.coerce.number().int().min(100).max(599).optional(),
      ...periodQuery,
    })
    .strict(),
  response: cursorPageOf(apiLogSchema),
  errors: { 400: ['INVALID_PARAMETER'] },
  handler: async (ctx) => {
    const q = ctx.query;
    const where: (SQL | undefined)[] = [eq(apiLogs.storeId, ctx.store.id), ...periodAndCursor(apiLogs, q)];
    if (q.traceId) where.push(eq(apiLogs.traceId, q.traceId));
    if (q.operationId) where.push(eq(apiLogs.operationId, q.operationId));
    if (q.status !== undefined) where.push(eq(apiLogs.status, q.status));
    const rows = await ctx.db
      .select()
      .from(apiLogs)
      .where(and(...where))
      .orderBy(desc(apiLogs.id))
      // A trace id names one request: the scan (no index on the random id, see schema.ts) stops at it.
      .limit(q.traceId ? 1 : q.limit + 1)
      .all();
    return cursorPage(rows, q.limit, presentApiLog);
  },
});

export const apiLogJobs: Job[] = [
  // The buffer is written by its own timer too; as a job it is written before `/_dev/v1/jobs/run` answers.
  { name: 'audit.flush-api-log', run: (services) => flushApiLog(services) },
  {
    name: 'audit.expire-api-log',
    run: async (services, now) =>
      (
        await services.db
          .delete(apiLogs)
          .where(lt(apiLogs.createdAt, now - KEPT_MS))
          .run()
      ).changes,
  },
];
