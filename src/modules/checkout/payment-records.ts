// Payment and attempt rows: their lookups, their failure record and the error vocabulary of buyer payments.
import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { checkoutSheets, paymentAttempts, payments, type Failure } from './schema.js';

defineMessages({
  PAYMENT_NOT_FOUND: '결제를 찾을 수 없습니다.',
  PAYMENT_NOT_CONFIGURED: '이 상점은 아직 결제를 받을 수 없습니다.',
  PAYMENT_OPTION_UNAVAILABLE: '사용할 수 없는 결제 수단입니다. 다른 결제 수단을 고르세요.',
  RETURN_URL_NOT_ALLOWED: '허용되지 않은 결제 복귀 주소입니다. https 주소이고 상점의 결제 도메인이어야 합니다.',
  SHIPPING_ADDRESS_REQUIRED: '배송지가 필요합니다.',
  PAYMENT_EXPIRED: '결제 유효 시간(10분)이 지났습니다. 주문서에서 다시 시작하세요.',
  PAYMENT_IN_PROGRESS: '이미 승인되었거나 결과를 확인 중인 결제입니다.',
  PAYMENT_ENDED: '이미 끝난 결제입니다. 주문서에서 다시 시작하세요.',
  PAYMENT_WINDOW_NOT_OPEN: '열려 있는 결제창이 없습니다.',
  ALREADY_PROCESSED: '이미 처리된 결제입니다.',
  CASH_RECEIPT_NOT_AVAILABLE: '현금영수증은 계좌이체·가상계좌·간편결제에서만, 결제 금액이 있을 때만 신청할 수 있습니다.',
});

export type PaymentRow = typeof payments.$inferSelect;
export type AttemptRow = typeof paymentAttempts.$inferSelect;

const q = preparedFor((db) => ({
  payment: db
    .select()
    .from(payments)
    .where(eq(payments.id, sql.placeholder('id')))
    .prepare(),
  attempt: db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.id, sql.placeholder('id')))
    .prepare(),
  attemptsOf: db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.paymentId, sql.placeholder('paymentId')))
    .orderBy(paymentAttempts.seq)
    .prepare(),
  // The settling transaction's one read: the attempt, its payment and the payment's sheet.
  settling: db
    .select({ attempt: paymentAttempts, payment: payments, sheet: checkoutSheets })
    .from(paymentAttempts)
    .innerJoin(payments, eq(payments.id, paymentAttempts.paymentId))
    .innerJoin(checkoutSheets, eq(checkoutSheets.id, payments.checkoutId))
    .where(eq(paymentAttempts.id, sql.placeholder('id')))
    .prepare(),
  lastAttempt: db
    .select()
    .from(paymentAttempts)
    .where(eq(paymentAttempts.paymentId, sql.placeholder('paymentId')))
    .orderBy(desc(paymentAttempts.seq))
    .limit(1)
    .prepare(),
}));

export const findPayment = (db: Db, id: string) => q(db).payment.get({ id });
export const attemptsOf = (db: Db, paymentId: string) => q(db).attemptsOf.all({ paymentId });
export const findAttempt = (db: Db, id: string) => q(db).attempt.get({ id });
export const lastAttemptOf = (db: Db, paymentId: string) => q(db).lastAttempt.get({ paymentId });
/** An attempt with its payment and sheet, in one read (undefined when the attempt is unknown). */
export const findSettling = (db: Db, attemptId: string) => q(db).settling.get({ id: attemptId });

/** The id of the payment's approving attempt (the one whose money a refund gives back), if any. */
export const approvedAttemptIdOf = async (db: Db, paymentId: string) =>
  (
    await db
      .select({ id: paymentAttempts.id })
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.paymentId, paymentId), eq(paymentAttempts.status, 'APPROVED')))
      .get()
  )?.id;

/**
 * The store's payments created in [from, before), test ones only when asked: each one's status and expiry,
 * and the status and failure of its last attempt (null when it opened none).
 */
export function paymentsWithLastAttempt(db: Db, storeId: string, from: number, before: number, includeTest: boolean) {
  const lastAttempt = sql`(SELECT MAX(a2.seq) FROM payment_attempts a2 WHERE a2.payment_id = ${payments.id})`;
  return db
    .select({ status: payments.status, expiresAt: payments.expiresAt, attempt: paymentAttempts.status, failure: paymentAttempts.failure })
    .from(payments)
    .leftJoin(paymentAttempts, and(eq(paymentAttempts.paymentId, payments.id), eq(paymentAttempts.seq, lastAttempt)))
    .where(
      and(
        eq(payments.storeId, storeId),
        gte(payments.createdAt, from),
        lt(payments.createdAt, before),
        includeTest ? undefined : eq(payments.testPayment, false),
      ),
    )
    .all();
}

export async function loadPayment(db: Db, id: string): Promise<PaymentRow> {
  const payment = await findPayment(db, id);
  if (!payment) throw fail(404, 'PAYMENT_NOT_FOUND');
  return payment;
}

export const failure = (code: string, message: string, optionUnavailable: boolean, at: number): Failure => ({ code, message, optionUnavailable, at });
