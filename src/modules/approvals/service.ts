import { and, asc, eq, inArray, isNull, lt, max } from 'drizzle-orm';
import { z } from 'zod';
import { transaction } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { successOutgoing, toApiError, type Outgoing } from '../../server/envelope.js';
import { fail } from '../../server/errors.js';
import { queueMail } from '../../server/mail.js';
import type { HeldRequest } from '../../server/module.js';
import { authorize } from '../../server/access.js';
import { buildCtx, execute } from '../../server/pipeline.js';
import type { Preview, StoreCtx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { instant } from '../../server/responses.js';
import { requireOwned } from '../../server/tenancy.js';
import { principalOfRecord } from '../accounts/index.js';
import { executionRecordOfApproval, writeAudit } from '../audit/index.js';
import { membersInRoles, resolveStore } from '../stores/index.js';
import { countAiAction } from '../stores/index.js';
import { APPROVAL_STATUSES, heldRequestAnswerSchema, type ApprovalStatus } from '../../kernel/approval-hold.js';
import { approvalRequests } from './schema.js';

const HOUR = 3600_000;
export const APPROVAL_TTL_MS = 24 * HOUR;
const NOTICE_BATCH_MS = 10 * 60_000;
/** An execution still marked EXECUTING after this long was cut off (the process died mid-way). */
const EXECUTION_STALE_MS = 5 * 60_000;

type ApprovalRow = typeof approvalRequests.$inferSelect;

/**
 * What a pending request would change, in the names of the dry-run `preview` (spec 01 §5.6): computed when
 * read, with the reader's view, so `before` is the value now. Null once the request is no longer pending.
 */
export const approvalPreviewSchema = z.object({
  operationId: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  changes: z.array(z.object({ field: z.string(), before: z.unknown(), after: z.unknown() })),
  facts: z.record(z.string(), z.unknown()),
  targetName: z.string().nullable(),
});

/** An approval request as the API shows it (presentApproval). */
export const approvalSchema = z.object({
  approvalId: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  operationId: z.string(),
  operationName: z.string(),
  reason: z.string(),
  request: z.object({ method: z.string(), path: z.string() }),
  target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  requestedBy: z.object({ type: z.literal('AGENT'), id: z.string(), name: z.string() }),
  createdAt: instant,
  expiresAt: instant,
  decidedAt: instant.nullable(),
  decidedBy: z.string().nullable(),
  approvalUrl: z.url(),
  /** The held request's answer once it ran: its status and `data`, or its error. */
  result: z
    .object({
      statusCode: z.number().int(),
      data: z.unknown().optional(),
      error: z.object({ code: z.string(), message: z.string() }).optional(),
    })
    .nullable(),
  /** The dry-run preview of the held request while it is pending (approvalPreviewSchema); null otherwise. */
  preview: approvalPreviewSchema.nullable(),
});

/** The approval page (page.ts): where a person logs in and approves or rejects. */
export const approvalPageUrl = (services: Services, approvalId: string) => `${services.config.origin}/approvals/${approvalId}`;

export function presentApproval(services: Services, row: ApprovalRow): z.output<typeof approvalSchema> {
  return {
    approvalId: row.id,
    status: row.status,
    operationId: row.operationId,
    operationName: row.operationName,
    reason: row.reason,
    request: { method: row.method, path: row.path },
    target: row.targetType ? { type: row.targetType, id: row.targetId } : null,
    requestedBy: { type: 'AGENT', id: row.requesterUserId, name: row.requesterName },
    createdAt: isoAt(row.createdAt),
    expiresAt: isoAt(row.expiresAt),
    decidedAt: row.decidedAt === null ? null : isoAt(row.decidedAt),
    decidedBy: row.decidedBy,
    approvalUrl: approvalPageUrl(services, row.id),
    result: row.result ?? null,
    preview: null,
  };
}

/** An approval request as read through the API: with the held request's preview while it is pending. */
export async function presentApprovalWithPreview(reader: StoreCtx, row: ApprovalRow): Promise<z.output<typeof approvalSchema>> {
  const shown = presentApproval(reader.services, row);
  if (row.status !== 'PENDING') return shown;
  const preview = await previewOfRow(reader, row);
  return {
    ...shown,
    preview: {
      operationId: row.operationId,
      target: shown.target,
      changes: preview.changes,
      facts: preview.facts ?? {},
      targetName: preview.targetName ?? null,
    },
  };
}

/** A pending request past its 24 hours is expired, whether or not the expiry job ran yet. */
export const effectiveStatus = (row: ApprovalRow, now: number): ApprovalStatus => (row.status === 'PENDING' && row.expiresAt <= now ? 'EXPIRED' : row.status);

/**
 * Holds an agent's request for approval: 202 APPROVAL_REQUIRED. The same token and Idempotency-Key
 * return the first request again, or 200 APPROVAL_ALREADY_DECIDED once it was decided.
 */
export async function requestApproval(services: Services, input: HeldRequest): Promise<Outgoing & { approvalId: string }> {
  const { op, ctx } = input;
  const principal = ctx.principal;
  const requesterKind = principal.kind;
  if (requesterKind !== 'login' && requesterKind !== 'access') throw fail(403, 'AGENT_OPERATION_DENIED');
  return transaction(services.db, async () => {
    if (input.idempotencyKey) {
      const first = await services.db
        .select()
        .from(approvalRequests)
        .where(and(eq(approvalRequests.requesterTokenId, principal.tokenId), eq(approvalRequests.idempotencyKey, input.idempotencyKey)))
        .get();
      if (first) {
        if (first.fingerprint !== input.fingerprint) throw fail(409, 'IDEMPOTENCY_KEY_REUSED');
        const status = effectiveStatus(first, ctx.now);
        if (status === 'PENDING') return { ...pendingOutgoing(services, first), approvalId: first.id };
        return { ...successOutgoing(200, presentApproval(services, { ...first, status }), 'APPROVAL_ALREADY_DECIDED'), approvalId: first.id };
      }
    }
    const row: ApprovalRow = {
      id: newId('apr', ctx.now),
      storeId: ctx.store.id,
      status: 'PENDING',
      operationId: op.operationId,
      operationName: op.title ?? op.summary,
      reason: input.reason,
      method: op.method,
      path: ctx.event.url.pathname,
      params: input.raw.params,
      query: input.raw.query,
      body: input.raw.body,
      targetType: input.target?.type ?? null,
      targetId: input.target?.id ?? null,
      idempotencyKey: input.idempotencyKey,
      fingerprint: input.fingerprint,
      requesterKind,
      requesterTokenId: principal.tokenId,
      requesterUserId: principal.userId,
      requesterName: principal.userName,
      ownerOnly: op.ownerApprovalOnly ?? false,
      createdAt: ctx.now,
      expiresAt: ctx.now + APPROVAL_TTL_MS,
      decidedAt: null,
      decidedBy: null,
      notifiedAt: null,
      result: null,
    };
    await services.db.insert(approvalRequests).values(row).run();
    return { ...pendingOutgoing(services, row), approvalId: row.id };
  });
}

function pendingOutgoing(services: Services, row: ApprovalRow): Outgoing {
  const { approvalId, status, operationId, reason, expiresAt, approvalUrl } = presentApproval(services, row);
  const answer: z.input<typeof heldRequestAnswerSchema> = { approvalId, status, operationId, reason, expiresAt, approvalUrl };
  return successOutgoing(202, answer, 'APPROVAL_REQUIRED');
}

export async function loadApproval(ctx: StoreCtx, approvalId: string) {
  return requireOwned(await ctx.db.select().from(approvalRequests).where(eq(approvalRequests.id, approvalId)).get(), ctx.store.id, 'APPROVAL_NOT_FOUND');
}

/**
 * Where a person decided, always as their own login: the approval API, the approval page, or an MCP
 * conversation's form answered with the one-time code the page showed them (confirmations.ts). An agent never decides.
 */
export type DecisionChannel = { via: 'API' | 'APPROVAL_PAGE' | 'MCP_ELICITATION' };

/**
 * A person's decision. Moving out of PENDING happens in one transaction, so simultaneous decisions
 * execute once; approving runs the original request with the permission both the requesting token and
 * the approver have, and records its result.
 */
export async function decideApproval(ctx: StoreCtx, approvalId: string, decision: 'APPROVE' | 'REJECT', via: DecisionChannel = { via: 'API' }) {
  // Every way in refuses agents before this; here the rule holds for any future one too (spec 01 §5.6).
  if (ctx.principal.agent) throw fail(403, 'AGENT_OPERATION_DENIED');
  const { services } = ctx;
  const row = await transaction(ctx.db, async () => {
    const current = await loadApproval(ctx, approvalId);
    if (effectiveStatus(current, ctx.now) === 'EXPIRED') {
      await ctx.db.update(approvalRequests).set({ status: 'EXPIRED' }).where(eq(approvalRequests.id, current.id)).run();
      return { expired: true as const, row: current };
    }
    if (current.status !== 'PENDING') throw fail(409, 'APPROVAL_NOT_PENDING', { status: current.status });
    if (current.ownerOnly && ctx.store.role !== 'OWNER') throw fail(403, 'INSUFFICIENT_ROLE', { requiredRole: ['OWNER'], actualRole: ctx.store.role });
    const status: ApprovalStatus = decision === 'APPROVE' ? 'EXECUTING' : 'REJECTED';
    await ctx.db.update(approvalRequests).set({ status, decidedAt: ctx.now, decidedBy: ctx.principal.userId }).where(eq(approvalRequests.id, current.id)).run();
    await writeAudit(services, {
      storeId: ctx.store.id,
      kind: 'DOMAIN',
      actor: { type: ctx.principal.actorType, id: ctx.principal.userId, name: ctx.principal.userName },
      source: ctx.principal.source,
      action: 'APPROVAL_DECIDED',
      target: { type: 'APPROVAL_REQUEST', id: current.id },
      statusCode: 200,
      result: 'SUCCEEDED',
      errorCode: null,
      requestId: ctx.requestId,
      traceId: ctx.traceId,
      idempotencyKey: null,
      approvalId: current.id,
      changes: [{ field: 'status', before: 'PENDING', after: status }],
      metadata: { decision, ...via },
    });
    return { expired: false as const, row: { ...current, status, decidedAt: ctx.now, decidedBy: ctx.principal.userId } };
  });
  if (row.expired) throw fail(409, 'APPROVAL_EXPIRED');
  if (decision === 'REJECT') return presentApproval(services, row.row);
  const outcome = await runApproved(ctx, row.row);
  await ctx.db.update(approvalRequests).set(outcome).where(eq(approvalRequests.id, row.row.id)).run();
  return presentApproval(services, { ...row.row, ...outcome });
}

/**
 * What the held request would change, shown to the person deciding (the approval page): its
 * operation's dry-run preview, computed now with the decider's view. A request that no longer validates shows none.
 */
export async function heldRequestPreview(decider: StoreCtx, approvalId: string): Promise<Preview> {
  return previewOfRow(decider, await loadApproval(decider, approvalId));
}

async function previewOfRow(decider: StoreCtx, row: ApprovalRow): Promise<Preview> {
  const op = decider.services.operations.find((o) => o.operationId === row.operationId);
  if (!op?.preview) return { changes: [] };
  try {
    const { principal, store, requestId, traceId, event } = decider;
    return await op.preview(
      buildCtx(decider.services, op, { params: row.params, query: row.query, body: row.body }, { principal, store, requestId, traceId, event }),
    );
  } catch {
    return { changes: [] };
  }
}

async function runApproved(approver: StoreCtx, row: ApprovalRow): Promise<Pick<ApprovalRow, 'status' | 'result'>> {
  const { services } = approver;
  const op = services.operations.find((o) => o.operationId === row.operationId);
  const requestId = newId('req');
  let requesterActor = { type: 'AGENT', id: row.requesterUserId, name: row.requesterName };
  let out: Outgoing;
  try {
    if (!op) throw fail(410, 'OPERATION_RETIRED');
    const requester = await principalOfRecord(services, row.requesterKind, row.requesterTokenId);
    requesterActor = { type: requester.actorType, id: requester.userId, name: requester.userName };
    const requesterStore = await resolveStore(services, requester, row.storeId);
    // Execution permission is the intersection of the requesting token and the approver (spec 01 §5.6).
    authorize(services, op, requester, requesterStore);
    authorize(services, op, approver.principal, approver.store);
    const ctx = buildCtx(
      services,
      op,
      { params: row.params, query: row.query, body: row.body },
      {
        principal: requester,
        store: requesterStore,
        requestId,
        traceId: approver.traceId,
        event: approver.event,
      },
    );
    await op.precheck?.(ctx);
    const result = await execute(services, op, ctx);
    // Only writes are ever held for approval, and writes answer in the envelope.
    if (result instanceof Response) throw fail(500, 'INTERNAL_ERROR');
    out = result;
    await countAiAction(services.db, row.storeId, services.clock.now());
  } catch (error) {
    const err = toApiError(error, approver.traceId);
    out = { status: err.status, body: JSON.stringify({ error: { code: err.code, message: err.message } }) };
  }
  const succeeded = out.status < 400;
  const parsed = JSON.parse(out.body) as { data?: unknown; error?: { code: string; message: string } };
  await writeAudit(services, {
    storeId: row.storeId,
    kind: 'REQUEST',
    actor: requesterActor,
    source: 'API',
    action: row.operationId,
    target: row.targetType ? { type: row.targetType, id: row.targetId } : null,
    statusCode: out.status,
    result: succeeded ? 'SUCCEEDED' : 'FAILED',
    errorCode: parsed.error?.code ?? null,
    requestId,
    traceId: approver.traceId,
    idempotencyKey: row.idempotencyKey,
    approvalId: row.id,
    metadata: { approvedBy: approver.principal.userId },
  });
  return {
    status: succeeded ? 'SUCCEEDED' : 'FAILED',
    result: succeeded ? { statusCode: out.status, data: parsed.data } : { statusCode: out.status, error: parsed.error },
  };
}

/** Job: pending requests past 24 hours expire (never executed). */
export async function expireApprovals(services: Services, now: number): Promise<number> {
  return (
    await services.db
      .update(approvalRequests)
      .set({ status: 'EXPIRED' })
      .where(and(eq(approvalRequests.status, 'PENDING'), lt(approvalRequests.expiresAt, now + 1)))
      .run()
  ).changes;
}

/**
 * Job: an execution the process did not live to record is settled from the audit log when it holds the
 * execution, else becomes UNKNOWN with result.statusCode 0; it is never run again (spec 01 §3.7).
 */
export async function settleInterruptedExecutions(services: Services, now: number): Promise<number> {
  const stale = await services.db
    .select()
    .from(approvalRequests)
    .where(and(eq(approvalRequests.status, 'EXECUTING'), lt(approvalRequests.decidedAt, now - EXECUTION_STALE_MS)))
    .all();
  for (const row of stale) {
    const executed = await executionRecordOfApproval(services.db, row.id, row.operationId);
    const settled: Pick<ApprovalRow, 'status' | 'result'> = executed
      ? { status: executed.result === 'SUCCEEDED' ? 'SUCCEEDED' : 'FAILED', result: { statusCode: executed.statusCode } }
      : { status: 'UNKNOWN', result: { statusCode: 0 } };
    await services.db
      .update(approvalRequests)
      .set(settled)
      .where(and(eq(approvalRequests.id, row.id), eq(approvalRequests.status, 'EXECUTING')))
      .run();
  }
  return stale.length;
}

/**
 * Job: approvers are mailed at most once per 10 minutes per store, one digest of the new requests;
 * owner-only requests go to owners only.
 */
export async function notifyApprovers(services: Services, now: number): Promise<number> {
  const waiting = await services.db
    .select()
    .from(approvalRequests)
    .where(and(eq(approvalRequests.status, 'PENDING'), isNull(approvalRequests.notifiedAt)))
    .orderBy(asc(approvalRequests.id))
    .all();
  let sent = 0;
  for (const storeId of new Set(waiting.map((r) => r.storeId))) {
    const last =
      (
        await services.db
          .select({ at: max(approvalRequests.notifiedAt) })
          .from(approvalRequests)
          .where(eq(approvalRequests.storeId, storeId))
          .get()
      )?.at ?? 0;
    if (last > now - NOTICE_BATCH_MS) continue;
    sent += await transaction(services.db, async () => {
      // Claimed with the mails that announce them: of several processes, one mails each request.
      const batch = (
        await services.db
          .update(approvalRequests)
          .set({ notifiedAt: now })
          .where(
            and(
              inArray(
                approvalRequests.id,
                waiting.filter((r) => r.storeId === storeId).map((r) => r.id),
              ),
              isNull(approvalRequests.notifiedAt),
            ),
          )
          .returning()
          .all()
      ).sort((a, b) => (a.id < b.id ? -1 : 1));
      const approvers = await membersInRoles(services.db, storeId, ['OWNER', 'ADMIN']);
      let mailed = 0;
      for (const approver of approvers) {
        const mine = batch.filter((r) => !r.ownerOnly || approver.role === 'OWNER');
        if (mine.length === 0) continue;
        mailed++;
        await queueMail(services.db, now, {
          to: approver.email,
          subject: `[svc] 승인 대기 중인 AI 작업 ${mine.length}건`,
          body: mine
            .map((r) => `- ${r.operationName} (${r.operationId}) 요청: ${r.requesterName}, 만료 ${isoAt(r.expiresAt)}\n  ${approvalPageUrl(services, r.id)}`)
            .join('\n'),
        });
      }
      return mailed;
    });
  }
  return sent;
}
