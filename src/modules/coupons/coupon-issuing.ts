import { randomBytes } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { couponItems, coupons, type CouponSource } from './schema.js';
import type { CouponItemRow, CouponRow } from './service.js';

/** Issuing coupon items to buyers: the guarded quantity, download refusals, sign-up coupons. */

const DAY_MS = 86_400_000;

const q = preparedFor((db) => ({
  held: db
    .select({ n: count() })
    .from(couponItems)
    .where(and(eq(couponItems.couponId, sql.placeholder('couponId')), eq(couponItems.customerId, sql.placeholder('customerId'))))
    .prepare(),
  // One guarded statement: concurrent issues can never pass totalQuantity.
  takeOne: db
    .update(coupons)
    .set({ issuedCount: sql`${coupons.issuedCount} + 1` })
    .where(and(eq(coupons.id, sql.placeholder('id')), sql`(${coupons.totalQuantity} is null or ${coupons.issuedCount} < ${coupons.totalQuantity})`))
    .prepare(),
}));

/** Item codes are what buyers send at checkout: unguessable, unambiguous letters and digits. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
function itemCode() {
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => ALPHABET[b % ALPHABET.length]).join('');
  return `CP-${chars.slice(0, 5)}-${chars.slice(5)}`;
}

const expiryOf = (coupon: CouponRow, now: number) => coupon.useEnd ?? (coupon.useDays === null ? null : now + coupon.useDays * DAY_MS);

/**
 * Issues one item of `coupon` to a buyer: the total quantity is taken by one guarded statement, so
 * concurrent issues never pass it (409 COUPON_SOLD_OUT). The caller's transaction holds both writes.
 */
export async function issueItem(
  db: Db,
  coupon: CouponRow,
  customerId: string | null,
  source: CouponSource,
  now: number,
  code = itemCode(),
): Promise<CouponItemRow> {
  if ((await q(db).takeOne.run({ id: coupon.id })).changes === 0)
    throw fail(409, 'COUPON_SOLD_OUT', { couponId: coupon.id, totalQuantity: coupon.totalQuantity });
  const item: CouponItemRow = {
    id: newId('cpi', now),
    storeId: coupon.storeId,
    couponId: coupon.id,
    customerId,
    source,
    code,
    expiresAt: expiryOf(coupon, now),
    usedAt: null,
    paymentId: null,
    orderId: null,
    createdAt: now,
  };
  await db.insert(couponItems).values(item).run();
  return item;
}

export const heldCount = async (db: Db, couponId: string, customerId: string) => (await q(db).held.get({ couponId, customerId }))!.n;

/** Why a member cannot download `coupon` now, or null (the order of checks is what the buyer can fix last). */
export async function downloadRefusal(db: Db, coupon: CouponRow, customerId: string | null, now: number): Promise<{ status: number; code: string } | null> {
  if (coupon.issueType !== 'DOWNLOAD') return { status: 409, code: 'COUPON_NOT_DOWNLOADABLE' };
  if (coupon.status !== 'ACTIVE') return { status: 409, code: 'COUPON_NOT_ACTIVE' };
  if (coupon.downloadStart !== null && now < coupon.downloadStart) return { status: 409, code: 'COUPON_NOT_STARTED' };
  if (coupon.downloadEnd !== null && now >= coupon.downloadEnd) return { status: 409, code: 'COUPON_DOWNLOAD_ENDED' };
  if (customerId === null) return { status: 401, code: 'COUPON_MEMBERS_ONLY' };
  if ((await heldCount(db, coupon.id, customerId)) >= coupon.perCustomerLimit) return { status: 409, code: 'COUPON_ALREADY_DOWNLOADED' };
  if (coupon.totalQuantity !== null && coupon.issuedCount >= coupon.totalQuantity) return { status: 409, code: 'COUPON_SOLD_OUT' };
  return null;
}

/** Sign-up coupons: every active SIGNUP coupon of the store, once per new member (inside the sign-up transaction). */
export async function issueSignupCoupons(db: Db, storeId: string, customerId: string, now: number) {
  const active = await db
    .select()
    .from(coupons)
    .where(and(eq(coupons.storeId, storeId), eq(coupons.issueType, 'SIGNUP'), eq(coupons.status, 'ACTIVE')))
    .all();
  for (const coupon of active) {
    if (coupon.totalQuantity !== null && coupon.issuedCount >= coupon.totalQuantity) continue;
    await issueItem(db, coupon, customerId, 'SIGNUP', now);
  }
}
