import { and, eq, isNull, lte, notExists, or } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import type { Services } from '../../server/services.js';
import { applyCoupons, holdCoupons, linkCouponsToOrder, releaseCoupons, type AppliedCoupons, type CouponLine } from '../coupons/index.js';
import { assertPointUse, returnPaymentPoints, spend } from '../points/index.js';
import { storeSettings } from '../stores/index.js';
import { priceSheet } from './pricing.js';
import { paymentAttempts, payments, type SheetItem } from './schema.js';

/**
 * Coupons and points on a sheet (spec 02 §2.4): what the price preview shows and the payment start holds.
 * Coupons come off the items first, points off what is left to pay.
 */

/** Errors of `priceWithDiscounts` beyond 400 VALIDATION_FAILED (refused coupons, point amounts). */
export const DISCOUNT_ERRORS = { 409: ['POINTS_UNAVAILABLE'] };

export interface DiscountRequest {
  coupons: { code: string }[];
  pointAmount: number;
}

/** Checks the buyer's coupons and points against the sheet and prices it with them. */
export async function priceWithDiscounts(
  db: Db,
  sheet: { storeId: string; items: SheetItem[] },
  customerId: string | null,
  request: DiscountRequest,
  zipCode: string | null,
  now: number,
) {
  const settings = await storeSettings(db, sheet.storeId);
  const coupons = await applyCoupons(db, sheet.storeId, customerId, sheet.items, request.coupons, now);
  const priced = priceSheet(sheet.items, settings, zipCode, { couponDiscountAmount: coupons.discountAmount, pointAmount: request.pointAmount });
  // Points are checked against what is left to pay after the coupons, before the points themselves.
  await assertPointUse(db, sheet.storeId, customerId, request.pointAmount, priced.amounts.totalAmount + request.pointAmount, now);
  return { coupons, priced };
}

/**
 * Takes what a starting payment uses, inside its transaction: the coupon items (guarded, so one of two
 * concurrent payments with the same coupon wins) and the points (never below zero).
 */
export async function holdDiscounts(
  db: Db,
  now: number,
  payment: { id: string; storeId: string; customerId: string | null; amounts: { pointAmount: number } },
  coupons: AppliedCoupons,
): Promise<CouponLine[]> {
  const lines = await holdCoupons(db, payment.id, payment.customerId, coupons, now);
  if (payment.amounts.pointAmount > 0) {
    await spend(
      db,
      now,
      { storeId: payment.storeId, customerId: payment.customerId!, reason: '주문 결제에 사용', paymentId: payment.id },
      'USE',
      payment.amounts.pointAmount,
    );
  }
  return lines;
}

const settle = async (db: Db, now: number, paymentId: string) =>
  (
    await db
      .update(payments)
      .set({ holdsSettledAt: now })
      .where(and(eq(payments.id, paymentId), isNull(payments.holdsSettledAt)))
      .run()
  ).changes === 1;

/**
 * The order made from the payment owns what it held. `payment` as the caller's transaction read it: one that
 * held nothing was settled when it started, and needs no statement here.
 */
export async function linkDiscountsToOrder(db: Db, now: number, payment: Pick<typeof payments.$inferSelect, 'id' | 'holdsSettledAt'>, orderId: string) {
  if (payment.holdsSettledAt !== null || !(await settle(db, now, payment.id))) return;
  await linkCouponsToOrder(db, payment.id, orderId);
}

/** A payment that ended unpaid gives its coupons and points back, once. */
export async function releaseDiscounts(db: Db, now: number, paymentId: string) {
  if (!(await settle(db, now, paymentId))) return;
  await releaseCoupons(db, paymentId);
  await returnPaymentPoints(db, now, paymentId);
}

/**
 * The job: payments past their 10 minutes with no order and no approval being confirmed end unpaid, so
 * their holds go back (an approval arriving later is canceled automatically, spec 02 §3).
 */
export async function releaseExpiredHolds(services: Services, now: number): Promise<number> {
  const { db } = services;
  const confirming = db
    .select({ id: paymentAttempts.id })
    .from(paymentAttempts)
    .where(and(eq(paymentAttempts.paymentId, payments.id), or(eq(paymentAttempts.status, 'CONFIRMING'), eq(paymentAttempts.status, 'APPROVED'))));
  const due = await db
    .select({ id: payments.id })
    .from(payments)
    .where(and(isNull(payments.holdsSettledAt), isNull(payments.orderId), lte(payments.expiresAt, now), notExists(confirming)))
    .limit(200)
    .all();
  for (const { id } of due) await transaction(services.db, () => releaseDiscounts(db, now, id));
  return due.length;
}
