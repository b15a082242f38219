import { randomInt, timingSafeEqual } from 'node:crypto';
import { and, eq, gte, lte, or, sql } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import { formToken } from '../../server/form-token.js';
import type { StoreCtx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { approvalConfirmations as codes } from './schema.js';
import { effectiveStatus, loadApproval } from './service.js';

/** Spec 01 §5.6: a person confirms in an MCP conversation within 2 minutes, or nothing changes. */
export const CONFIRMATION_WINDOW_MS = 2 * 60_000;
/** Answers one code outlives: guessing 8 letters of 32 gets this many tries before the person must take a new one. */
const ANSWERS_PER_CODE = 5;
/** Read off a screen and typed by a person, so no 0/O or 1/I; 32 letters keep every one uniformly random. */
const CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_LENGTH = 8;

/** Keyed by the service's form key and bound to the request: a copied table reveals no code, and no code fits another request. */
const codeHash = (services: Services, approvalId: string, code: string) => formToken(services, 'approval-confirmation', `${approvalId}\n${code}`);

/**
 * A one-time code for the person logged in on the approval page (`decider`, their own store-platform login),
 * carrying their decision to an MCP conversation: typed into the client's form, it decides as them. The
 * request must still be theirs to decide now, as on the page's buttons.
 */
export async function issueConfirmation(decider: StoreCtx, approvalId: string, decision: 'APPROVE' | 'REJECT'): Promise<{ code: string; expiresAt: number }> {
  const { db, store, principal, now } = decider;
  const code = Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
  const expiresAt = now + CONFIRMATION_WINDOW_MS;
  await transaction(db, async () => {
    const approval = await loadApproval(decider, approvalId);
    const status = effectiveStatus(approval, now);
    if (status === 'EXPIRED') throw fail(409, 'APPROVAL_EXPIRED');
    if (status !== 'PENDING') throw fail(409, 'APPROVAL_NOT_PENDING', { status });
    if (approval.ownerOnly && store.role !== 'OWNER') throw fail(403, 'INSUFFICIENT_ROLE', { requiredRole: ['OWNER'], actualRole: store.role });
    // One code per person and request: a new one replaces theirs.
    await db
      .delete(codes)
      .where(and(eq(codes.storeId, store.id), eq(codes.approvalId, approvalId), eq(codes.userId, principal.userId)))
      .run();
    await db
      .insert(codes)
      .values({
        id: newId('apc', now),
        storeId: store.id,
        approvalId,
        userId: principal.userId,
        sessionId: principal.tokenId,
        decision,
        codeHash: codeHash(decider.services, approvalId, code),
        createdAt: now,
        expiresAt,
      })
      .run();
  });
  return { code, expiresAt };
}

type Redeemed = { decision: 'APPROVE' | 'REJECT'; sessionId: string } | { refused: 'CODE_INVALID' | 'CONFIRMATION_EXPIRED' };

/**
 * An answer typed into an MCP conversation's form for `approvalId` of `storeId`: the live code it matches,
 * used up, or why none. Every answer counts against every code of the request before any is compared, in
 * one transaction, so even answers sent at once get at most ANSWERS_PER_CODE tries at a code.
 */
export async function redeemConfirmation(services: Services, storeId: string, approvalId: string, answer: string): Promise<Redeemed> {
  const { db } = services;
  const now = services.clock.now();
  const presented = Buffer.from(codeHash(services, approvalId, answer.toUpperCase().replace(/[\s-]/g, '')));
  const ofRequest = and(eq(codes.storeId, storeId), eq(codes.approvalId, approvalId));
  return transaction(db, async () => {
    await db
      .update(codes)
      .set({ answers: sql`${codes.answers} + 1` })
      .where(ofRequest)
      .run();
    const candidates = await db.select().from(codes).where(ofRequest).all();
    const match = candidates.find((c) => c.answers <= ANSWERS_PER_CODE && timingSafeEqual(Buffer.from(c.codeHash), presented));
    const live = match !== undefined && match.expiresAt > now;
    // A matched code is used once; a code past its answers is gone too.
    await db
      .delete(codes)
      .where(and(ofRequest, or(live ? eq(codes.id, match.id) : undefined, gte(codes.answers, ANSWERS_PER_CODE))))
      .run();
    if (live) return { decision: match.decision, sessionId: match.sessionId };
    return { refused: match ? 'CONFIRMATION_EXPIRED' : 'CODE_INVALID' };
  });
}

/** Job: codes go 2 minutes after they lapsed — until then a late answer hears CONFIRMATION_EXPIRED rather than CODE_INVALID. */
export async function dropLapsedConfirmations(services: Services, now: number): Promise<number> {
  return (
    await services.db
      .delete(codes)
      .where(lte(codes.expiresAt, now - CONFIRMATION_WINDOW_MS))
      .run()
  ).changes;
}
