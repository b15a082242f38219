// Cash receipts of a payment: who may ask for one, recording the request, following refunds, issuing them.
import { and, eq } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { gatewayFor, openSecrets, sealSecrets, type Pg } from '../payments/index.js';
import {
  cancelCashReceipt,
  cashReceiptOf,
  claimDueCashReceipts,
  queueCashReceiptReissue,
  recordCashReceiptFailure,
  recordCashReceiptIssued,
  recordGatewayReceiptCanceled,
  requestCashReceipt,
  type CashReceiptRow,
} from '../orders/index.js';
import { approvedAttemptIdOf, findAttempt, findPayment, type PaymentRow } from './payment-records.js';
import { paymentAttempts, paymentRefunds } from './schema.js';

/** Final methods that issue a cash receipt (spec 01 §3.4 "not applicable" otherwise). */
export const CASH_METHODS = new Set(['BANK_TRANSFER', 'VIRTUAL_ACCOUNT']);
/** Requested methods a cash receipt may be asked for: easy pay may end up funded by a bank account. */
const CASH_REQUEST_METHODS = new Set(['BANK_TRANSFER', 'VIRTUAL_ACCOUNT', 'EASY_PAY']);

export function assertCashReceiptAllowed(method: string | null, totalAmount: number) {
  if (totalAmount === 0 || method === null || !CASH_REQUEST_METHODS.has(method)) throw fail(400, 'CASH_RECEIPT_NOT_AVAILABLE', { method, totalAmount });
}

export async function writeCashReceipt(
  services: Services,
  paymentId: string,
  storeId: string,
  now: number,
  receipt: { type: 'INCOME_DEDUCTION' | 'EXPENSE_PROOF'; digits: string },
) {
  const row = {
    paymentId,
    storeId,
    type: receipt.type,
    identitySealed: sealSecrets(services, paymentId, { identityNumber: receipt.digits }),
    identityMasked: `${receipt.digits.slice(0, 3)}${'*'.repeat(Math.max(receipt.digits.length - 7, 1))}${receipt.digits.slice(-4)}`,
    status: 'REQUESTED' as const,
    receiptNo: null,
    attempts: 0,
    nextAttemptAt: null,
    failureCode: null,
    issuedAt: null,
    updatedAt: now,
  };
  await requestCashReceipt(services.db, row);
}

/** The cash a payment kept: its approved amount less the cash refunds the gateway completed. */
async function cashLeft(db: Db, payment: PaymentRow) {
  const refunded = (
    await db
      .select({ amount: paymentRefunds.amount })
      .from(paymentRefunds)
      .innerJoin(paymentAttempts, eq(paymentAttempts.id, paymentRefunds.attemptId))
      .where(and(eq(paymentRefunds.paymentId, payment.id), eq(paymentRefunds.status, 'COMPLETED'), eq(paymentAttempts.status, 'APPROVED')))
      .all()
  ).reduce((n, r) => n + r.amount, 0);
  return payment.amounts.totalAmount - refunded;
}

/**
 * A cash refund completed (spec 01 §3.4): an issued receipt is reissued for what is left, or canceled when
 * nothing is; one not issued yet is canceled when nothing is left.
 */
export async function followCashReceipt(db: Db, now: number, paymentId: string) {
  const receipt = await cashReceiptOf(db, paymentId);
  if (!receipt || !['ISSUED', 'ISSUE_PENDING', 'REQUESTED'].includes(receipt.status)) return;
  const left = await cashLeft(db, (await findPayment(db, paymentId))!);
  // A receipt a live gateway issued is canceled there first, by the issuing job.
  if (left === 0 && receipt.gatewayReceiptKey === null) await cancelCashReceipt(db, paymentId, now);
  else if (left === 0 || receipt.status === 'ISSUED') await queueCashReceiptReissue(db, paymentId, now);
}

/** Tries of a live receipt the gateway does not answer, before it ends ISSUE_FAILED (reissue starts again). */
const LIVE_RECEIPT_TRIES = 5;

/**
 * A live receipt at its payment's gateway: one that covers other cash than is left is canceled first; then
 * the receipt of what is left is issued under an id of its own (`<pgOrderId>-R<n>`, the same on every try,
 * so a lost answer never issues two). A refusal ends ISSUE_FAILED at once; silence is tried again with
 * backoff, ISSUE_FAILED after `LIVE_RECEIPT_TRIES`.
 */
async function issueAtGateway(services: Services, receipt: CashReceiptRow, payment: PaymentRow, now: number) {
  const { db } = services;
  const attempts = receipt.attempts + 1;
  const failed = (code: string, refused: boolean) =>
    recordCashReceiptFailure(db, receipt.paymentId, now, {
      attempts,
      nextAttemptAt: refused || attempts >= LIVE_RECEIPT_TRIES ? null : now + 60_000 * 2 ** attempts,
      failureCode: code,
    });
  const attempt = (await findAttempt(db, (await approvedAttemptIdOf(db, payment.id))!))!;
  const gateway = await gatewayFor(services, payment.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
  const left = await cashLeft(db, payment);
  if (receipt.gatewayReceiptKey !== null) {
    if (receipt.amount === left) return recordCashReceiptIssued(db, receipt.paymentId, now, { receiptNo: receipt.receiptNo!, amount: left, attempts });
    const canceled = await gateway.cancelCashReceipt!({ receiptKey: receipt.gatewayReceiptKey });
    if (canceled.status !== 'CANCELED') return failed(canceled.failure?.code ?? 'CASH_RECEIPT_CANCEL_PENDING', canceled.status === 'REFUSED');
    await recordGatewayReceiptCanceled(db, receipt.paymentId, now);
  }
  if (left === 0) return cancelCashReceipt(db, receipt.paymentId, now);
  const issued = await gateway.issueCashReceipt!({
    receiptId: `${attempt.pgOrderId}-R${receipt.issueCount + 1}`,
    orderName: attempt.windowParams?.orderName ?? `주문 ${payment.orderNo}`,
    amount: left,
    type: receipt.type,
    identityNumber: openSecrets(services, receipt.paymentId, receipt.identitySealed).identityNumber,
  });
  if (issued.status !== 'ISSUED') return failed(issued.failure?.code ?? 'CASH_RECEIPT_PENDING', issued.status === 'REFUSED');
  await transaction(db, async () => {
    await recordCashReceiptIssued(db, receipt.paymentId, now, {
      receiptNo: issued.issueNumber ?? issued.receiptKey!,
      amount: left,
      attempts,
      gatewayReceiptKey: issued.receiptKey!,
      issueCount: receipt.issueCount + 1,
    });
    // A refund completed while the gateway was issuing: this receipt covers too much, so it goes round again.
    if ((await cashLeft(db, payment)) !== left) await queueCashReceiptReissue(db, receipt.paymentId, now);
  });
}

/** Due receipts: sandbox ones are issued here at once, live ones at their payment's gateway (`issueAtGateway`). */
export async function issueCashReceipts(services: Services, now: number): Promise<number> {
  let handled = 0;
  for await (const receipt of claimDueCashReceipts(services.db, now)) {
    handled++;
    const payment = (await findPayment(services.db, receipt.paymentId))!;
    if (payment.testPayment) {
      // A reissue after a partial refund gets a number of its own.
      const receiptNo = receipt.receiptNo === null ? `SBX${payment.orderNo}` : `SBX${payment.orderNo}-${receipt.attempts + 1}`;
      await recordCashReceiptIssued(services.db, receipt.paymentId, now, {
        receiptNo,
        amount: await cashLeft(services.db, payment),
        attempts: receipt.attempts + 1,
      });
    } else await issueAtGateway(services, receipt, payment, now);
  }
  return handled;
}
