import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { ApiError, validationFailed, type FieldError } from '../../server/errors.js';
import { findCategory, findProduct } from '../catalog/index.js';
import { cachedPerStoreVersion } from '../stores/index.js';
import { couponItems, coupons } from './schema.js';
import { findCoupon, type CouponRow } from './service.js';
import { heldCount, issueItem } from './coupon-issuing.js';

/** Applying coupons at checkout: pricing them on a sheet, holding them for a payment, giving them back. */

const q = preparedFor((db) => ({
  itemByCode: db
    .select()
    .from(couponItems)
    .where(and(eq(couponItems.storeId, sql.placeholder('storeId')), eq(couponItems.code, sql.placeholder('code'))))
    .prepare(),
  couponByCode: db
    .select()
    .from(coupons)
    .where(and(eq(coupons.storeId, sql.placeholder('storeId')), eq(coupons.code, sql.placeholder('code'))))
    .prepare(),
}));

/**
 * What a code names: the buyer's issued item and its coupon, or a CODE coupon (no item until a payment
 * holds it). Read on every price preview, so remembered per coupons version of the store (store-cache.ts;
 * the triggers of coupons and coupon items grow it): shared, never mutate it.
 */
const codeNamed = cachedPerStoreVersion(
  'coupons',
  (db: Db) => db,
  async (db, storeId, code: string) => {
    const held = (await q(db).itemByCode.get({ storeId, code })) ?? null;
    const coupon = (held ? await findCoupon(db, held.couponId) : await q(db).couponByCode.get({ storeId, code })) ?? null;
    return { held, coupon };
  },
);

/** What a coupon line needs of a sheet item. */
export interface PricedItem {
  productId: string;
  amount: number;
}

export interface CouponLine {
  couponId: string;
  /** The held item; null until a CODE coupon's item is made when the payment starts. */
  couponItemId: string | null;
  code: string;
  discountAmount: number;
  /** The discount on each sheet item, by index. */
  itemDiscounts: number[];
}

export interface AppliedCoupons {
  lines: CouponLine[];
  discountAmount: number;
  itemDiscounts: number[];
}

export const NO_COUPONS: AppliedCoupons = { lines: [], discountAmount: 0, itemDiscounts: [] };

/** Whether a category or one of its ancestors is among `ids`. */
async function inCategories(db: Db, categoryId: string | null, ids: Set<string>) {
  for (let id = categoryId, depth = 0; id && depth < 10; id = (await findCategory(db, id))?.parentId ?? null, depth++) {
    if (ids.has(id)) return true;
  }
  return false;
}

/** Whether a coupon's target takes in an item: answered at once but for categories, which read the product and its category's ancestors. */
function targets(db: Db, coupon: CouponRow, item: PricedItem): boolean | Promise<boolean> {
  switch (coupon.target.kind) {
    case 'ALL':
      return true;
    case 'PRODUCTS':
      return coupon.target.ids.includes(item.productId);
    case 'CATEGORIES':
      return inProductCategories(db, item.productId, new Set(coupon.target.ids));
  }
}

const inProductCategories = async (db: Db, productId: string, ids: Set<string>) =>
  inCategories(db, (await findProduct(db, productId))?.categoryId ?? null, ids);

/** A coupon's discount on its target items: percent (capped) or a fixed amount, never more than they cost. */
function discountOf(coupon: CouponRow, base: number) {
  const { method, value, maxDiscountAmount } = coupon.benefit;
  const raw = method === 'PERCENT' ? Math.floor((base * value) / 100) : value;
  return Math.min(raw, maxDiscountAmount ?? Infinity, base);
}

/** Spreads `amount` over items in proportion to `bases`; the rounding remainder goes to the last item with a base. */
function spread(amount: number, bases: number[]) {
  const total = bases.reduce((n, b) => n + b, 0);
  const shares = bases.map((b) => (total === 0 ? 0 : Math.floor((amount * b) / total)));
  const last = bases.findLastIndex((b) => b > 0);
  if (last >= 0) shares[last] += amount - shares.reduce((n, s) => n + s, 0);
  return shares;
}

/**
 * The buyer's coupons on a sheet (spec 02 §2.4 `coupons[]`), each checked — held by this buyer, unused,
 * unexpired, active, minimum order reached, some item targeted, stacking and per-buyer limits — and priced
 * on what earlier coupons left of each item. Any refused code is 400 VALIDATION_FAILED naming why.
 */
export async function applyCoupons(
  db: Db,
  storeId: string,
  customerId: string | null,
  items: PricedItem[],
  codes: { code: string }[],
  now: number,
): Promise<AppliedCoupons> {
  if (codes.length === 0) return NO_COUPONS;
  const errors: FieldError[] = [];
  const refuse = (i: number, code: string, message: string) => errors.push({ field: `coupons.${i}.code`, code, message });
  const itemsAmount = items.reduce((n, i) => n + i.amount, 0);
  const left = items.map((i) => i.amount);
  const lines: CouponLine[] = [];
  const seen = new Set<string>();
  const picked: { coupon: CouponRow; index: number }[] = [];

  // One code after another: each is priced on what the codes before it left.
  const apply = async (code: string, i: number) => {
    const { held, coupon } = await codeNamed(db, storeId, code);
    if (!coupon || (!held && coupon.issueType !== 'CODE')) return refuse(i, 'COUPON_NOT_FOUND', `쿠폰 ${code}을(를) 찾을 수 없습니다.`);
    if (seen.has(held?.id ?? coupon.id)) return refuse(i, 'COUPON_DUPLICATE', '같은 쿠폰을 두 번 쓸 수 없습니다.');
    seen.add(held?.id ?? coupon.id);
    if (held) {
      if (held.customerId !== customerId) return refuse(i, 'COUPON_NOT_OWNED', '이 구매자의 쿠폰이 아닙니다.');
      if (held.usedAt !== null) return refuse(i, 'COUPON_ALREADY_USED', '이미 쓴 쿠폰입니다.');
      if (held.expiresAt !== null && now >= held.expiresAt) return refuse(i, 'COUPON_EXPIRED', '사용 기간이 지난 쿠폰입니다.');
    } else {
      if (coupon.useEnd !== null && now >= coupon.useEnd) return refuse(i, 'COUPON_EXPIRED', '사용 기간이 지난 쿠폰입니다.');
      if (coupon.totalQuantity !== null && coupon.issuedCount >= coupon.totalQuantity) return refuse(i, 'COUPON_SOLD_OUT', '쿠폰이 모두 소진되었습니다.');
      if (customerId !== null && (await heldCount(db, coupon.id, customerId)) >= coupon.perCustomerLimit)
        return refuse(i, 'COUPON_LIMIT_REACHED', `한 사람이 ${coupon.perCustomerLimit}번까지 쓸 수 있는 쿠폰입니다.`);
    }
    if (coupon.status !== 'ACTIVE') return refuse(i, 'COUPON_NOT_ACTIVE', '중지되었거나 끝난 쿠폰입니다.');
    if (itemsAmount < coupon.minOrderAmount) return refuse(i, 'COUPON_MIN_ORDER_AMOUNT', `상품 금액이 ${coupon.minOrderAmount}원 이상이어야 합니다.`);
    const eligible: number[] = [];
    for (const [k, item] of items.entries()) eligible.push((await targets(db, coupon, item)) ? left[k] : 0);
    const base = eligible.reduce((n, b) => n + b, 0);
    if (base === 0) return refuse(i, 'COUPON_NOT_APPLICABLE', '이 주문에는 쿠폰을 쓸 수 있는 상품이 없습니다.');
    picked.push({ coupon, index: i });
    const discountAmount = discountOf(coupon, base);
    const itemDiscounts = spread(discountAmount, eligible);
    itemDiscounts.forEach((d, k) => (left[k] -= d));
    lines.push({ couponId: coupon.id, couponItemId: held?.id ?? null, code, discountAmount, itemDiscounts });
  };
  for (const [i, { code }] of codes.entries()) await apply(code, i);
  if (picked.length > 1) {
    for (const { coupon, index } of picked) if (!coupon.stackable) refuse(index, 'COUPON_NOT_STACKABLE', '다른 쿠폰과 함께 쓸 수 없는 쿠폰입니다.');
  }
  if (errors.length) throw validationFailed(errors);
  const itemDiscounts = items.map((_, k) => lines.reduce((n, l) => n + l.itemDiscounts[k], 0));
  return { lines, discountAmount: lines.reduce((n, l) => n + l.discountAmount, 0), itemDiscounts };
}

/**
 * Holds the coupons for a starting payment, inside its transaction: each held item is marked used by a
 * guarded update (of two concurrent payments with the same item one wins; the other is refused); a CODE
 * coupon gets its item now. Answers the lines with their item ids.
 */
export async function holdCoupons(db: Db, paymentId: string, customerId: string | null, applied: AppliedCoupons, now: number): Promise<CouponLine[]> {
  const held: CouponLine[] = [];
  for (const [i, line] of applied.lines.entries()) {
    let itemId = line.couponItemId;
    if (itemId === null) {
      const coupon = (await findCoupon(db, line.couponId))!;
      try {
        itemId = (await issueItem(db, coupon, customerId, 'CODE', now)).id;
      } catch (error) {
        // Only the sold-out refusal: a database failure (on PostgreSQL, a transaction to re-run) goes on as it is.
        if (!(error instanceof ApiError) || error.code !== 'COUPON_SOLD_OUT') throw error;
        throw validationFailed([{ field: `coupons.${i}.code`, code: 'COUPON_SOLD_OUT', message: '쿠폰이 모두 소진되었습니다.' }]);
      }
    }
    const taken = (
      await db
        .update(couponItems)
        .set({ usedAt: now, paymentId })
        .where(and(eq(couponItems.id, itemId), isNull(couponItems.usedAt)))
        .run()
    ).changes;
    if (taken === 0) throw validationFailed([{ field: `coupons.${i}.code`, code: 'COUPON_ALREADY_USED', message: '이미 쓴 쿠폰입니다.' }]);
    await db
      .update(coupons)
      .set({ usedCount: sql`${coupons.usedCount} + 1` })
      .where(eq(coupons.id, line.couponId))
      .run();
    held.push({ ...line, couponItemId: itemId });
  }
  return held;
}

/** The order made from the payment owns its coupon items. */
export async function linkCouponsToOrder(db: Db, paymentId: string, orderId: string) {
  await db.update(couponItems).set({ orderId }).where(eq(couponItems.paymentId, paymentId)).run();
}

/**
 * A payment that ended unpaid, or an order canceled whole before dispatch, gives its coupons back: typed
 * items are free again, a CODE coupon's item made for the payment is removed and its quantity returned.
 */
export async function releaseCoupons(db: Db, paymentId: string) {
  const held = await db.select().from(couponItems).where(eq(couponItems.paymentId, paymentId)).all();
  for (const item of held) {
    await db
      .update(coupons)
      .set({ usedCount: sql`${coupons.usedCount} - 1` })
      .where(eq(coupons.id, item.couponId))
      .run();
    if (item.source === 'CODE') {
      await db.delete(couponItems).where(eq(couponItems.id, item.id)).run();
      await db
        .update(coupons)
        .set({ issuedCount: sql`${coupons.issuedCount} - 1` })
        .where(eq(coupons.id, item.couponId))
        .run();
    } else {
      await db.update(couponItems).set({ usedAt: null, paymentId: null, orderId: null }).where(eq(couponItems.id, item.id)).run();
    }
  }
}
