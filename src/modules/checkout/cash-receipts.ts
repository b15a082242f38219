// Cash receipts of a payment: who may ask for one, recording the request, following refunds, issuing them.
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { sealSecrets } from '../payments/index.js';
import {
  cancelCashReceipt,
  cashReceiptOf,
  claimDueCashReceipts,
  queueCashReceiptReissue,
  recordCashReceiptFailure,
  recordCashReceiptIssued,
  requestCashReceipt,
} from '../orders/index.js';
import { findPayment, type PaymentRow } from './payment-records.js';
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
  if (left === 0) await cancelCashReceipt(db, paymentId, now);
  else if (receipt.status === 'ISSUED') await queueCashReceiptReissue(db, paymentId, now);
}

/** Sandbox cash receipts are issued at once; live issuance waits for a gateway receipt API (not in the adapters yet). */
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
    } else {
      const attempts = receipt.attempts + 1;
      const failed = attempts >= 5;
      await recordCashReceiptFailure(services.db, receipt.paymentId, now, {
        attempts,
        nextAttemptAt: failed ? null : now + 60_000 * 2 ** attempts,
        failureCode: 'ISSUER_NOT_AVAILABLE',
      });
    }
  }
  return handled;
}
