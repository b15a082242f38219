import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { commaList } from '../../server/formats.js';
import { cursorPageOf } from '../../server/paging.js';
import { defineOperation } from '../../server/registry.js';
import { cursorPage, periodAndCursor, periodQuery } from './listing.js';
import { auditLogs } from './schema.js';
import { ACTOR_TYPES, auditLogSchema, presentAudit } from './service.js';

export const auditOperations = [
  defineOperation({
    operationId: 'listAuditLogs',
    method: 'GET',
    path: '/v1/audit-logs',
    summary: 'Audit records, newest first, with cursor paging',
    tag: 'Audit',
    auth: 'store',
    scope: 'audit:r',
    roles: ['OWNER', 'ADMIN'],
    query: z
      .object({
        actorType: commaList(z.enum(ACTOR_TYPES)).optional(),
        actorId: z.string().optional(),
        action: z.string().optional(),
        targetType: z.string().optional(),
        targetId: z.string().optional(),
        source: z.string().optional(),
        outcome: z.string().optional(),
        requestId: z.string().optional(),
        approvalId: z.string().optional(),
        kind: z.enum(['REQUEST', 'DOMAIN']).optional(),
        ...periodQuery,
      })
      .strict(),
    response: cursorPageOf(auditLogSchema),
    errors: { 400: ['INVALID_PARAMETER'] },
    handler: async (ctx) => {
      const q = ctx.query;
      const where: (SQL | undefined)[] = [eq(auditLogs.storeId, ctx.store.id)];
      if (q.actorType) where.push(inArray(auditLogs.actorType, q.actorType));
      if (q.actorId) where.push(eq(auditLogs.actorId, q.actorId));
      if (q.action) where.push(eq(auditLogs.action, q.action));
      if (q.targetType) where.push(eq(auditLogs.targetType, q.targetType));
      if (q.targetId) where.push(eq(auditLogs.targetId, q.targetId));
      if (q.source) where.push(eq(auditLogs.source, q.source));
      // `outcome` matches the result (SUCCEEDED, DENIED, …), the error code or the status code.
      if (q.outcome) {
        const status = /^\d{3}$/.test(q.outcome) ? Number(q.outcome) : null;
        where.push(or(eq(auditLogs.result, q.outcome), eq(auditLogs.errorCode, q.outcome), status === null ? undefined : eq(auditLogs.statusCode, status)));
      }
      if (q.requestId) where.push(eq(auditLogs.requestId, q.requestId));
      if (q.approvalId) where.push(eq(auditLogs.approvalId, q.approvalId));
      if (q.kind) where.push(eq(auditLogs.kind, q.kind));
      where.push(...periodAndCursor(auditLogs, q));
      const rows = await ctx.db
        .select()
        .from(auditLogs)
        .where(and(...where))
        .orderBy(desc(auditLogs.id))
        .limit(q.limit + 1)
        .all();
      return cursorPage(rows, q.limit, presentAudit);
    },
  }),
];
