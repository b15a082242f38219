import { randomBytes } from 'node:crypto';
import { and, asc, count, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { ApiError, fail, validationFailed, type FieldError } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { instant, won } from '../../server/responses.js';
import { findCategory, findProduct } from '../catalog/index.js';
import { couponItems, coupons, type CouponSource } from './schema.js';

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

const DAY_MS = 86_400_000;
export type CouponRow = typeof coupons.$inferSelect;
export type CouponItemRow = typeof couponItems.$inferSelect;

const q = preparedFor((db) => ({
  coupon: db
    .select()
    .from(coupons)
    .where(eq(coupons.id, sql.placeholder('id')))
    .prepare(),
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

export const findCoupon = (db: Db, id: string) => q(db).coupon.get({ id });

// ---------------------------------------------------------------------------------------------------
// Views

export const benefitSchema = z.object({
  method: z.enum(['PERCENT', 'AMOUNT']),
  value: z.number().int().describe('Percent (1–100) for PERCENT, won for AMOUNT'),
  maxDiscountAmount: won.nullable().describe('Cap of a PERCENT discount; null for none'),
});
export const targetSchema = z.object({ kind: z.enum(['ALL', 'PRODUCTS', 'CATEGORIES']), ids: z.array(z.string()) });

export const couponSchema = z.object({
  couponId: z.string(),
  name: z.string(),
  code: z.string().nullable().describe('What buyers type, for CODE coupons'),
  issueType: z.enum(['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE']),
  benefit: benefitSchema,
  minOrderAmount: won,
  target: targetSchema,
  downloadStart: instant.nullable(),
  downloadEnd: instant.nullable(),
  useDays: z.number().int().nullable(),
  useEnd: instant.nullable(),
  totalQuantity: z.number().int().nullable(),
  perCustomerLimit: z.number().int(),
  stackable: z.boolean(),
  status: z.enum(['ACTIVE', 'SUSPENDED', 'ENDED']),
  issuedCount: z.number().int(),
  usedCount: z.number().int(),
  createdAt: instant,
  updatedAt: instant,
});

const at = (ms: number | null) => (ms === null ? null : isoAt(ms));

export const presentCoupon = (c: CouponRow): z.output<typeof couponSchema> => ({
  couponId: c.id,
  name: c.name,
  code: c.code,
  issueType: c.issueType,
  benefit: c.benefit,
  minOrderAmount: c.minOrderAmount,
  target: c.target,
  downloadStart: at(c.downloadStart),
  downloadEnd: at(c.downloadEnd),
  useDays: c.useDays,
  useEnd: at(c.useEnd),
  totalQuantity: c.totalQuantity,
  perCustomerLimit: c.perCustomerLimit,
  stackable: c.stackable,
  status: c.status,
  issuedCount: c.issuedCount,
  usedCount: c.usedCount,
  createdAt: isoAt(c.createdAt),
  updatedAt: isoAt(c.updatedAt),
});

export const couponItemSchema = z.object({
  couponItemId: z.string(),
  couponId: z.string(),
  source: z.enum(['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE']),
  code: z.string().describe('Send it in coupons[].code at checkout'),
  expiresAt: instant.nullable(),
  usedAt: instant.nullable(),
  orderId: z.string().nullable(),
});

export const presentCouponItem = (i: CouponItemRow): z.output<typeof couponItemSchema> => ({
  couponItemId: i.id,
  couponId: i.couponId,
  source: i.source,
  code: i.code,
  expiresAt: at(i.expiresAt),
  usedAt: at(i.usedAt),
  orderId: i.orderId,
});

// ---------------------------------------------------------------------------------------------------
// Issuing

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

// ---------------------------------------------------------------------------------------------------
// Applying at checkout

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

async function targets(db: Db, coupon: CouponRow, item: PricedItem) {
  const ids = new Set(coupon.target.ids);
  switch (coupon.target.kind) {
    case 'ALL':
      return true;
    case 'PRODUCTS':
      return ids.has(item.productId);
    case 'CATEGORIES':
      return inCategories(db, (await findProduct(db, item.productId))?.categoryId ?? null, ids);
  }
}

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
    const held = await q(db).itemByCode.get({ storeId, code });
    const coupon = held ? await findCoupon(db, held.couponId) : await q(db).couponByCode.get({ storeId, code });
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
    const eligible = await Promise.all(items.map(async (item, k) => ((await targets(db, coupon, item)) ? left[k] : 0)));
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
