import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

import type { ApprovalStatus } from '../../kernel/approval-hold.js';

/** An AI agent's request held for a person's decision (spec 01 §3.7, §5.6), with what is needed to run it once. */
export const approvalRequests = sqliteTable(
  'approval_requests',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    status: text('status').$type<ApprovalStatus>().notNull(),
    operationId: text('operation_id').notNull(),
    operationName: text('operation_name').notNull(),
    reason: text('reason').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    params: text('params', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    query: text('query', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    body: text('body').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    idempotencyKey: text('idempotency_key'),
    fingerprint: text('fingerprint').notNull(),
    requesterKind: text('requester_kind').$type<'login' | 'access'>().notNull(),
    requesterTokenId: text('requester_token_id').notNull(),
    requesterUserId: text('requester_user_id').notNull(),
    requesterName: text('requester_name').notNull(),
    ownerOnly: integer('owner_only', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    decidedAt: integer('decided_at'),
    decidedBy: text('decided_by'),
    notifiedAt: integer('notified_at'),
    result: text('result', { mode: 'json' }).$type<{ statusCode: number; data?: unknown; error?: { code: string; message: string } }>(),
  },
  (t) => [index('approval_requests_store_status').on(t.storeId, t.status), uniqueIndex('approval_requests_token_key').on(t.requesterTokenId, t.idempotencyKey)],
);

/**
 * One-time codes of "confirm in the AI conversation" (spec 01 §5.6): shown on the approval page to the person
 * logged in there, typed by them into the MCP client's form. Only the code's keyed hash is kept, bound to the
 * request, the person's login and their decision; a code is used once and lives 2 minutes.
 */
export const approvalConfirmations = sqliteTable(
  'approval_confirmations',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    approvalId: text('approval_id').notNull(),
    userId: text('user_id').notNull(),
    /** The login session the person had on the approval page: the decision is made as that login. */
    sessionId: text('session_id').notNull(),
    decision: text('decision').$type<'APPROVE' | 'REJECT'>().notNull(),
    codeHash: text('code_hash').notNull(),
    /** Answers given for the request while this code lived: past a few, the code is gone. */
    answers: integer('answers').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('approval_confirmations_approval').on(t.storeId, t.approvalId)],
);
