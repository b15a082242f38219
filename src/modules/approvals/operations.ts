import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, type StoreCtx } from '../../server/registry.js';
import { APPROVAL_STATUSES } from '../../kernel/approval-hold.js';
import { approvalRequests } from './schema.js';
import { approvalSchema, decideApproval, loadApproval, presentApprovalWithPreview } from './service.js';

const tag = 'Approvals';
const params = z.object({ approvalId: z.string() });
/** Naming an approval request of another store is 403, a missing one 404. */
const approvalLookup = { 403: ['TENANT_MISMATCH'], 404: ['APPROVAL_NOT_FOUND'] };

/** Deciding is for people on the store platform, OWNER or ADMIN; agents may never decide (spec 01 §5.6). */
const decision = (operationId: string, path: string, summary: string, choice: 'APPROVE' | 'REJECT') =>
  defineOperation({
    operationId,
    method: 'POST',
    path,
    summary,
    tag,
    auth: 'store',
    roles: ['OWNER', 'ADMIN'],
    callers: ['storePlatform'],
    agent: 'denied',
    idempotent: false,
    params,
    target: (ctx) => ({ type: 'APPROVAL_REQUEST', id: ctx.params.approvalId }),
    response: approvalSchema,
    errors: { ...approvalLookup, 409: ['APPROVAL_NOT_PENDING', 'APPROVAL_EXPIRED'] },
    async: true,
    handler: (ctx) => decideApproval(ctx, ctx.params.approvalId, choice),
  });

export const approvalOperations = [
  defineOperation({
    operationId: 'listApprovalRequests',
    method: 'GET',
    path: '/v1/approval-requests',
    summary: 'Approval requests of AI agents, newest first (default: pending), each pending one with its dry-run preview',
    tag,
    auth: 'store',
    roles: ['OWNER', 'ADMIN'],
    query: z.object({ status: z.enum(APPROVAL_STATUSES).default('PENDING'), ...pageQuery(100) }).strict(),
    response: pageOf(approvalSchema),
    handler: async (ctx) => {
      // Pending ones past 24 hours read as expired even before the expiry job ran.
      const where = and(eq(approvalRequests.storeId, ctx.store.id), eq(approvalRequests.status, ctx.query.status));
      const rows = await ctx.db
        .select()
        .from(approvalRequests)
        .where(where)
        .orderBy(desc(approvalRequests.id))
        .limit(ctx.query.size)
        .offset((ctx.query.page - 1) * ctx.query.size)
        .all();
      const shown = [];
      // One after another: each preview reads the store as it is now.
      for (const r of rows) shown.push(await presentApprovalWithPreview(ctx, r));
      return paginated(shown, ctx.query.page, ctx.query.size, await countRows(ctx.db, approvalRequests, where));
    },
  }),
  defineOperation({
    operationId: 'getApprovalRequest',
    method: 'GET',
    path: '/v1/approval-requests/{approvalId}',
    summary: 'One approval request with its status, result and (while pending) its dry-run preview; the requesting token can read its own',
    tag,
    auth: 'store',
    params,
    response: approvalSchema,
    errors: approvalLookup,
    handler: async (ctx: StoreCtx<undefined, unknown, { approvalId: string }>) => {
      const row = await loadApproval(ctx, ctx.params.approvalId);
      const approver = ctx.store.role === 'OWNER' || ctx.store.role === 'ADMIN';
      if (!approver && row.requesterTokenId !== ctx.principal.tokenId)
        throw fail(403, 'INSUFFICIENT_ROLE', { requiredRole: ['OWNER', 'ADMIN'], actualRole: ctx.store.role });
      return presentApprovalWithPreview(ctx, row.status === 'PENDING' && row.expiresAt <= ctx.now ? { ...row, status: 'EXPIRED' } : row);
    },
  }),
  decision('approveApprovalRequest', '/v1/approval-requests/{approvalId}/approve', 'Approve: runs the original request once', 'APPROVE'),
  decision('rejectApprovalRequest', '/v1/approval-requests/{approvalId}/reject', 'Reject: the request is never run', 'REJECT'),
];
