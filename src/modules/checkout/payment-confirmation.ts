// The gateway's answer on an attempt: confirming it, the sandbox decision, the return from a live window, late answers.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { claimEachDue } from '../../db/claim.js';
import { transaction } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { gatewayFor, sandboxDecide } from '../payments/index.js';
import type { ConfirmResult, EasyPayProvider, PaymentMethod, Pg, SandboxOutcome } from '../payments/index.js';
import { settleApproval, type Settled } from './order-placement.js';
import { attemptsOf, failure, findAttempt, lastAttemptOf, loadPayment, type AttemptRow, type PaymentRow } from './payment-records.js';
import { presentPaymentStatus, storefrontResult } from './payment-views.js';
import { runRefund } from './refunds.js';
import { updateById } from '../../db/statements.js';
import { paymentAttempts, payments, type AttemptStatus } from './schema.js';

/**
 * Asks the gateway to approve an attempt the buyer authorised, then settles it: an order, an automatic
 * cancel, a refusal (the payment stays retryable), or CONFIRMING (the confirming job asks again). A caller
 * that just read the attempt and its payment hands them on (the settling transaction reads both again).
 * Answers how it settled.
 */
export async function confirmAttempt(
  services: Services,
  attemptId: string,
  outcome?: SandboxOutcome,
  read?: { attempt: AttemptRow; payment: PaymentRow },
): Promise<Settled | null> {
  const { db } = services;
  const attempt = read?.attempt ?? (await findAttempt(db, attemptId))!;
  const payment = read?.payment ?? (await loadPayment(db, attempt.paymentId));
  const gateway = await gatewayFor(services, attempt.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
  const result = await gateway.confirm({
    pgPaymentKey: attempt.pgPaymentKey!,
    pgOrderId: attempt.pgOrderId,
    amount: payment.amounts.totalAmount,
    method: attempt.method as PaymentMethod,
    provider: (attempt.provider ?? undefined) as EasyPayProvider | undefined,
  });
  return await applyGatewayResult(services, attempt, result, outcome);
}

/** Records the gateway's answer; an approval answers how it settled (null for any other answer). */
async function applyGatewayResult(services: Services, attempt: AttemptRow, result: ConfirmResult, outcome?: SandboxOutcome): Promise<Settled | null> {
  const { db } = services;
  if (result.status === 'APPROVED') {
    const settled = await settleApproval(services, attempt.id, result);
    if (settled.kind === 'CANCEL') await runRefund(services, settled.refundId);
    return settled;
  }
  const now = services.clock.now();
  await transaction(services.db, async () => {
    if (result.status === 'CONFIRMING') {
      await db.update(paymentAttempts).set({ status: 'CONFIRMING', updatedAt: now }).where(eq(paymentAttempts.id, attempt.id)).run();
      await db
        .update(payments)
        .set({ status: 'CONFIRMING', updatedAt: now })
        .where(and(eq(payments.id, attempt.paymentId), eq(payments.status, 'OPEN')))
        .run();
      return;
    }
    const f = failure(result.failure?.code ?? 'REFUSED', result.failure?.message ?? '결제가 거절되었습니다.', result.failure?.optionUnavailable ?? false, now);
    const status: AttemptStatus =
      outcome === 'CANCEL' || f.code === 'PAY_PROCESS_CANCELED'
        ? 'CANCELED'
        : outcome === 'WINDOW_ERROR'
          ? 'WINDOW_ERROR'
          : attempt.status === 'CONFIRMING'
            ? 'FAILED'
            : 'REFUSED';
    await db.update(paymentAttempts).set({ status, failure: f, updatedAt: now }).where(eq(paymentAttempts.id, attempt.id)).run();
    // A refusal does not end the payment (spec 02 §3): the buyer may try again until it expires.
    await db
      .update(payments)
      .set({ status: sql`case when ${payments.status} = 'CONFIRMING' then 'OPEN' else ${payments.status} end`, lastFailure: f, updatedAt: now })
      .where(and(eq(payments.id, attempt.paymentId), inArray(payments.status, ['OPEN', 'CONFIRMING'])))
      .run();
  });
  return null;
}

/**
 * The buyer's decision in the sandbox window (pay page buttons and the dev simulate helper). A caller that
 * just read the payment or its attempts hands them on.
 */
export async function decideSandbox(
  services: Services,
  paymentId: string,
  outcome: SandboxOutcome,
  options: { amount?: number } = {},
  read: { payment?: PaymentRow; attempts?: AttemptRow[] } = {},
) {
  const { db } = services;
  const payment = read.payment ?? (await loadPayment(db, paymentId));
  const now = services.clock.now();
  const open = (read.attempts ?? (await attemptsOf(db, paymentId))).filter((a) => a.status === 'READY' && a.pgPaymentKey).at(-1);
  if (!open) {
    if (payment.status === 'COMPLETED' || payment.status === 'CONFIRMING')
      throw fail(409, 'PAYMENT_IN_PROGRESS', { status: payment.status, orderId: payment.orderId });
    throw fail(409, 'PAYMENT_WINDOW_NOT_OPEN');
  }
  if (payment.status === 'OPEN' && now >= payment.expiresAt) throw fail(409, 'PAYMENT_EXPIRED', { expiresAt: isoAt(payment.expiresAt) });
  await sandboxDecide(services, open.pgPaymentKey!, outcome, options);
  // The sandbox's decision changed only its own ledger: the attempt and payment read above are still current.
  const settled = await confirmAttempt(services, open.id, outcome, { attempt: open, payment });
  // An order's transaction knows the payment and attempt as it committed them; other outcomes read them again.
  const last = settled?.kind === 'ORDER' ? settled.attempt : await lastAttemptOf(db, paymentId);
  const after = settled?.kind === 'ORDER' ? settled.payment : await loadPayment(db, paymentId);
  return { ...(await presentPaymentStatus(services, after, last)), storefrontResult: await storefrontResult(services, after, last) };
}

/**
 * The buyer back from a live gateway window (`/pay/{paymentId}/return`): a failure (`code`, `message`) ends
 * the attempt, success carries the gateway's payment key (pg_one gives it only now) and is confirmed.
 * Returns the storefront address to send the buyer to. A return carrying no payment information (no
 * attempt, or neither a key nor a failure) changes nothing and tells the storefront `INVALID` (spec 02).
 */
export async function returnFromGateway(services: Services, paymentId: string, query: URLSearchParams): Promise<string> {
  const { db } = services;
  const attemptId = query.get('attemptId');
  if (!attemptId) {
    const last = await lastAttemptOf(db, paymentId);
    if (!last) throw fail(404, 'PAYMENT_NOT_FOUND');
    return withResult(last.returnUrl, { status: 'INVALID', paymentId });
  }
  const attempt = await findAttempt(db, attemptId);
  if (!attempt || attempt.paymentId !== paymentId) throw fail(404, 'PAYMENT_NOT_FOUND');
  if (attempt.status === 'READY') {
    const code = query.get('code');
    const key = query.get('paymentKey');
    if (code) {
      await applyGatewayResult(services, attempt, {
        status: 'REFUSED',
        approvedAmount: 0,
        approvedMethod: null,
        pgTransactionId: null,
        failure: { code, message: query.get('message') ?? '', optionUnavailable: false },
      });
    } else if (!attempt.pgPaymentKey && !key) {
      // Nothing to confirm: the window stays open for the gateway's proper return or another try.
      return withResult(attempt.returnUrl, { status: 'INVALID', paymentId });
    } else {
      if (!attempt.pgPaymentKey && key) await updateById(db, paymentAttempts, attempt.id, { pgPaymentKey: key, updatedAt: services.clock.now() });
      await confirmAttempt(services, attempt.id);
    }
  }
  return withResult(attempt.returnUrl, await storefrontResult(services, await loadPayment(db, paymentId)));
}

/** The storefront's return address with the payment result in its query (a hint: storefronts read it again). */
export function withResult(returnUrl: string, result: Record<string, unknown>): string {
  const url = new URL(returnUrl);
  for (const [k, v] of Object.entries(result)) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  return url.toString();
}

/** Between two look-ups of one approval whose result the gateway has not given yet. */
const CONFIRM_RETRY_MS = 5_000;

/** Approvals whose result the gateway had not given: ask again (spec 01 §3.3 "confirming result"). */
export async function resolveConfirming(services: Services, now: number): Promise<number> {
  let handled = 0;
  // Each look is claimed by moving `updatedAt` to now: the next one, by whichever process, comes a retry period later.
  for await (const attempt of claimEachDue(services.db, paymentAttempts, now, {
    due: sql`${paymentAttempts.updatedAt} + ${CONFIRM_RETRY_MS}`,
    where: eq(paymentAttempts.status, 'CONFIRMING'),
    set: { updatedAt: now },
  })) {
    handled++;
    const gateway = await gatewayFor(services, attempt.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
    const view = await gateway.lookup({ pgPaymentKey: attempt.pgPaymentKey!, pgOrderId: attempt.pgOrderId });
    if (view.status === 'APPROVED') {
      await applyGatewayResult(services, attempt, {
        status: 'APPROVED',
        approvedAmount: view.approvedAmount,
        approvedMethod: view.approvedMethod,
        pgTransactionId: view.pgTransactionId,
      });
    } else if (view.status === 'REFUSED' || view.status === 'NOT_FOUND' || view.status === 'CANCELED') {
      await applyGatewayResult(services, attempt, {
        status: 'REFUSED',
        approvedAmount: 0,
        approvedMethod: null,
        pgTransactionId: null,
        failure: { code: `GATEWAY_${view.status}`, message: '결제가 승인되지 않았습니다.', optionUnavailable: false },
      });
    }
  }
  return handled;
}
