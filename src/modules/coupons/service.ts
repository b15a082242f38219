import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { defineMessages } from '../../server/messages.js';
import { couponItems, coupons } from './schema.js';

/** Coupon records: the module's messages, a coupon by id, a member's items, the job that ends expired coupons. */

defineMessages({
  COUPON_NOT_FOUND: '쿠폰을 찾을 수 없습니다.',
  COUPON_ALREADY_DOWNLOADED: '이미 받은 쿠폰입니다.',
  COUPON_SOLD_OUT: '쿠폰이 모두 소진되었습니다.',
  COUPON_NOT_STARTED: '아직 쿠폰을 받을 수 있는 기간이 아닙니다.',
  COUPON_DOWNLOAD_ENDED: '쿠폰을 받을 수 있는 기간이 끝났습니다.',
  COUPON_NOT_DOWNLOADABLE: '내려받는 쿠폰이 아닙니다.',
  COUPON_NOT_ACTIVE: '지금은 쓸 수 없는 쿠폰입니다 (중지 또는 종료).',
  COUPON_MEMBERS_ONLY: '회원만 받을 수 있는 쿠폰입니다. 로그인하세요.',
  COUPON_STATUS_CONFLICT: '쿠폰 상태 때문에 할 수 없는 작업입니다.',
});

export type CouponRow = typeof coupons.$inferSelect;
export type CouponItemRow = typeof couponItems.$inferSelect;

const q = preparedFor((db) => ({
  coupon: db
    .select()
    .from(coupons)
    .where(eq(coupons.id, sql.placeholder('id')))
    .prepare(),
}));

export const findCoupon = (db: Db, id: string) => q(db).coupon.get({ id });

/** A member's coupons, newest first (unused and used). */
export const memberItems = (db: Db, storeId: string, customerId: string) =>
  db
    .select()
    .from(couponItems)
    .where(and(eq(couponItems.storeId, storeId), eq(couponItems.customerId, customerId)))
    .orderBy(asc(couponItems.createdAt))
    .all();

/** Coupons whose use ended (`useEnd` passed) are ENDED; run by the job loop. */
export async function endExpiredCoupons(db: Db, now: number) {
  return (
    await db
      .update(coupons)
      .set({ status: 'ENDED', updatedAt: now })
      .where(and(inArray(coupons.status, ['ACTIVE', 'SUSPENDED']), lte(coupons.useEnd, now)))
      .run()
  ).changes;
}
