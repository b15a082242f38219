// The cash receipt a buyer asks for on a payment (spec 01 §3.4): requested, issued once the order is placed
// and the method was cash, reissued or canceled as refunds take cash back. Checkout drives it; orders keep it.
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { claimEachDue } from '../../db/claim.js';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { preparedFor } from '../../db/prepared.js';
import { updateById } from '../../db/statements.js';
import { instant, won } from '../../server/responses.js';
import { cashReceipts } from './schema.js';

export type CashReceiptRow = typeof cashReceipts.$inferSelect;

const q = preparedFor((db) => ({
  receipt: db
    .select()
    .from(cashReceipts)
    .where(eq(cashReceipts.paymentId, sql.placeholder('paymentId')))
    .prepare(),
}));

export const cashReceiptOf = (db: Db, paymentId: string) => q(db).receipt.get({ paymentId });

/** A buyer asked for a cash receipt on a payment (before its order exists): recorded, or the earlier request replaced. */
export async function requestCashReceipt(db: Db, receipt: typeof cashReceipts.$inferInsert): Promise<void> {
  await db.insert(cashReceipts).values(receipt).onConflictDoUpdate({ target: cashReceipts.paymentId, set: receipt }).run();
}

/** The payment's order was placed: its requested receipt is due for issuing when the approved method is cash, else NOT_APPLICABLE. */
export async function settleCashReceiptRequest(db: Db, paymentId: string, cash: boolean, now: number): Promise<void> {
  await updateById(
    db,
    cashReceipts,
    paymentId,
    { status: cash ? 'ISSUE_PENDING' : 'NOT_APPLICABLE', nextAttemptAt: cash ? now : null, updatedAt: now },
    'paymentId',
  );
}

/** No cash is left on the payment (refunded): its receipt is canceled. */
export async function cancelCashReceipt(db: Db, paymentId: string, now: number): Promise<void> {
  await db.update(cashReceipts).set({ status: 'ISSUE_CANCELED', nextAttemptAt: null, updatedAt: now }).where(eq(cashReceipts.paymentId, paymentId)).run();
}

/** Part of the cash went back: the issued receipt is due for reissuing for what is left. */
export async function queueCashReceiptReissue(db: Db, paymentId: string, now: number): Promise<void> {
  await db
    .update(cashReceipts)
    .set({ status: 'ISSUE_PENDING', nextAttemptAt: now, failureCode: null, updatedAt: now })
    .where(eq(cashReceipts.paymentId, paymentId))
    .run();
}

/** Receipts due for issuing, earliest first, each claimed only when the issuing job moves on to it. */
export const claimDueCashReceipts = (db: Db, now: number) =>
  claimEachDue(db, cashReceipts, now, { key: [cashReceipts.paymentId], where: eq(cashReceipts.status, 'ISSUE_PENDING') });

/** The receipt was issued: its number and the cash it covers (live: the gateway's key of it and its issue count). */
export async function recordCashReceiptIssued(
  db: Db,
  paymentId: string,
  now: number,
  issued: { receiptNo: string; amount: number; attempts: number; gatewayReceiptKey?: string; issueCount?: number },
): Promise<void> {
  await db
    .update(cashReceipts)
    .set({
      status: 'ISSUED',
      receiptNo: issued.receiptNo,
      amount: issued.amount,
      ...(issued.gatewayReceiptKey === undefined ? {} : { gatewayReceiptKey: issued.gatewayReceiptKey, issueCount: issued.issueCount }),
      issuedAt: now,
      attempts: issued.attempts,
      nextAttemptAt: null,
      updatedAt: now,
    })
    .where(eq(cashReceipts.paymentId, paymentId))
    .run();
}

/**
 * The live gateway canceled the receipt it had issued: nothing there to cancel any more, should the next
 * step (issuing the receipt of what is left, or ending ISSUE_CANCELED) fail and be tried again.
 */
export async function recordGatewayReceiptCanceled(db: Db, paymentId: string, now: number): Promise<void> {
  await db.update(cashReceipts).set({ gatewayReceiptKey: null, updatedAt: now }).where(eq(cashReceipts.paymentId, paymentId)).run();
}

/** Issuing failed: the receipt is tried again at `nextAttemptAt`, or ends ISSUE_FAILED when there is none. */
export async function recordCashReceiptFailure(
  db: Db,
  paymentId: string,
  now: number,
  failed: { attempts: number; nextAttemptAt: number | null; failureCode: string },
): Promise<void> {
  await db
    .update(cashReceipts)
    .set({
      status: failed.nextAttemptAt === null ? 'ISSUE_FAILED' : 'ISSUE_PENDING',
      attempts: failed.attempts,
      nextAttemptAt: failed.nextAttemptAt,
      failureCode: failed.failureCode,
      updatedAt: now,
    })
    .where(eq(cashReceipts.paymentId, paymentId))
    .run();
}

export const cashReceiptView = z.object({
  type: z.enum(['INCOME_DEDUCTION', 'EXPENSE_PROOF']),
  identityNumber: z.string().describe('Masked'),
  status: z.enum(['REQUESTED', 'ISSUE_PENDING', 'ISSUED', 'ISSUE_CANCELED', 'ISSUE_FAILED', 'NOT_APPLICABLE']).describe('Spec 01 §3.4'),
  receiptNo: z.string().nullable(),
  issuedAt: instant.nullable(),
  amount: won.nullable().describe('Cash the issued receipt covers; after a partial refund it is reissued for the remainder'),
});

export const presentCashReceipt = (r: CashReceiptRow | undefined): z.output<typeof cashReceiptView> | null =>
  r
    ? {
        type: r.type,
        identityNumber: r.identityMasked,
        status: r.status,
        receiptNo: r.receiptNo,
        issuedAt: r.issuedAt === null ? null : isoAt(r.issuedAt),
        amount: r.amount,
      }
    : null;
