// Refunds at the gateway: each claimed for one call at a time, never sent twice, retried until done.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { claimEachDue, claimNextDue } from '../../db/claim.js';
import { transaction, type Db } from '../../db/client.js';
import { announce } from '../../server/hooks.js';
import type { Services } from '../../server/services.js';
import { gatewayFor } from '../payments/index.js';
import type { Pg } from '../payments/index.js';
import { followCashReceipt } from './cash-receipts.js';
import { failure, findAttempt } from './payment-records.js';
import { paymentRefunds } from './schema.js';

/** How long a refund's gateway call holds it, and the least wait before a refusal or silence is tried again. */
const REFUND_RETRY_MS = 60_000;
/** A refund the gateway keeps refusing is held for the seller once it has waited this long. */
const REFUND_HOLD_AFTER_MS = 24 * 3600_000;

/**
 * After a refusal or silence: the next try waits as long as the refund has waited so far (at least a minute),
 * so tries come at 1, 2, 4, 8 … minutes, not every minute; after a day the refund is held for the seller.
 */
const retryPlan = (refund: { createdAt: number }, now: number) =>
  now - refund.createdAt >= REFUND_HOLD_AFTER_MS
    ? { hold: true as const }
    : { hold: false as const, at: now + Math.max(REFUND_RETRY_MS, now - refund.createdAt) };

/**
 * The claim of a PROCESSING refund for one gateway call, due from `firstTry` until its first call took a
 * lease (which is also when it is tried again).
 */
const refundClaim = (now: number, firstTry: SQL, where?: SQL) => ({
  due: sql`coalesce(${paymentRefunds.nextAttemptAt}, ${firstTry})`,
  where: and(eq(paymentRefunds.status, 'PROCESSING'), where),
  set: { nextAttemptAt: now + REFUND_RETRY_MS },
});

/**
 * Gives a refund's money back at the gateway (automatic cancels, seller cancels, claims); a refusal or
 * silence is retried by the refunds job. The refund is first taken for this call (of the request and the
 * refunds jobs of every process, one at a time), and the gateway is asked what it already canceled on the
 * attempt: beyond the refunds completed so far, that is this refund's money (an answer lost earlier), so a
 * cancel is never sent twice.
 */
export async function runRefund(services: Services, refundId: string) {
  const now = services.clock.now();
  // The request's own refund is due at once.
  const refund = await claimNextDue(services.db, paymentRefunds, now, refundClaim(now, sql`0`, eq(paymentRefunds.id, refundId)));
  if (refund) await refundAtGateway(services, refund);
}

async function refundAtGateway(services: Services, refund: typeof paymentRefunds.$inferSelect) {
  const { db } = services;
  const attempt = (await findAttempt(db, refund.attemptId))!;
  const gateway = await gatewayFor(services, refund.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
  const view = await gateway.lookup({ pgPaymentKey: attempt.pgPaymentKey!, pgOrderId: attempt.pgOrderId });
  const completed = (
    await db
      .select({ amount: paymentRefunds.amount })
      .from(paymentRefunds)
      .where(and(eq(paymentRefunds.attemptId, attempt.id), eq(paymentRefunds.status, 'COMPLETED')))
      .all()
  ).reduce((n, r) => n + r.amount, 0);
  const result =
    view.canceledAmount >= completed + refund.amount
      ? { status: 'CANCELED' as const, canceledAmount: refund.amount }
      : await gateway.cancel({ pgTransactionId: attempt.pgTransactionId!, amount: refund.amount, reason: refund.reason });
  const now = services.clock.now();
  if (result.status === 'CANCELED') {
    await transaction(services.db, async () => {
      await db
        .update(paymentRefunds)
        .set({ status: 'COMPLETED', completedAt: now, failure: null, heldReason: null, nextAttemptAt: null })
        .where(eq(paymentRefunds.id, refund.id))
        .run();
      await announce(db, 'refundCompleted', {
        storeId: refund.storeId,
        at: now,
        pg: attempt.pg,
        method: attempt.approvedMethod ?? attempt.method,
        testPayment: attempt.testPayment,
        amount: refund.amount,
      });
      if (attempt.status === 'APPROVED') await followCashReceipt(db, now, refund.paymentId);
    });
  } else if (result.status !== 'PENDING') {
    const failed = result.failure ? failure(result.failure.code, result.failure.message, result.failure.optionUnavailable, now) : null;
    const plan = result.status === 'HELD' ? { hold: true as const } : retryPlan(refund, now);
    // Held until someone processes it again, which then takes it at once; else tried again by the refunds job.
    await db
      .update(paymentRefunds)
      .set(
        plan.hold
          ? { status: 'HELD', heldReason: result.failure?.message ?? 'REFUND_HELD', failure: failed, nextAttemptAt: null }
          : { failure: failed, nextAttemptAt: plan.at },
      )
      .where(and(eq(paymentRefunds.id, refund.id), eq(paymentRefunds.status, 'PROCESSING')))
      .run();
  }
}

export type RefundRow = typeof paymentRefunds.$inferSelect;

export const findRefund = (db: Db, refundId: string) => db.select().from(paymentRefunds).where(eq(paymentRefunds.id, refundId)).get();

/** Money to give back (a seller cancel, a claim): PROCESSING when cash goes out through the gateway (`runRefund`), else COMPLETED at once. */
export async function recordRefund(db: Db, refund: typeof paymentRefunds.$inferInsert): Promise<void> {
  await db.insert(paymentRefunds).values(refund).run();
}

/** A HELD refund is taken up again (PROCESSING), unless it is no longer HELD; `runRefund` then sends it. */
export async function resumeHeldRefund(db: Db, refundId: string): Promise<void> {
  await db
    .update(paymentRefunds)
    .set({ status: 'PROCESSING' })
    .where(and(eq(paymentRefunds.id, refundId), eq(paymentRefunds.status, 'HELD')))
    .run();
}

/** Refunds the gateway has not finished yet (refused or unanswered): retried with backoff (`retryPlan`), each by one process. */
export async function retryRefunds(services: Services, now: number): Promise<number> {
  let handled = 0;
  // A refund no call took yet is left to its request for a minute.
  for await (const refund of claimEachDue(services.db, paymentRefunds, now, refundClaim(now, sql`${paymentRefunds.createdAt} + ${REFUND_RETRY_MS}`))) {
    await refundAtGateway(services, refund);
    handled++;
  }
  return handled;
}
