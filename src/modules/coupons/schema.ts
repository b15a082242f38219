import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export type IssueType = 'MANUAL' | 'DOWNLOAD' | 'SIGNUP' | 'CODE';
export type CouponStatus = 'ACTIVE' | 'SUSPENDED' | 'ENDED';
export interface Benefit {
  method: 'PERCENT' | 'AMOUNT';
  /** Percent (1–100) or won. */
  value: number;
  maxDiscountAmount: number | null;
}
export interface CouponTarget {
  kind: 'ALL' | 'PRODUCTS' | 'CATEGORIES';
  ids: string[];
}

/** A coupon rule of a store: who gets it (issueType), what it takes off, on what, and for how long. */
export const coupons = sqliteTable(
  'coupons',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    name: text('name').notNull(),
    /** The code buyers type, for `CODE` coupons only. */
    code: text('code'),
    issueType: text('issue_type').$type<IssueType>().notNull(),
    benefit: text('benefit', { mode: 'json' }).$type<Benefit>().notNull(),
    minOrderAmount: integer('min_order_amount').notNull(),
    target: text('target', { mode: 'json' }).$type<CouponTarget>().notNull(),
    downloadStart: integer('download_start'),
    downloadEnd: integer('download_end'),
    /** Validity of an issued item: days from issue, or a fixed end (one of the two). */
    useDays: integer('use_days'),
    useEnd: integer('use_end'),
    totalQuantity: integer('total_quantity'),
    perCustomerLimit: integer('per_customer_limit').notNull(),
    stackable: integer('stackable', { mode: 'boolean' }).notNull(),
    status: text('status').$type<CouponStatus>().notNull(),
    issuedCount: integer('issued_count').notNull(),
    usedCount: integer('used_count').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('coupons_store').on(t.storeId, t.id), uniqueIndex('coupons_store_code').on(t.storeId, t.code)],
);

export type CouponSource = 'MANUAL' | 'DOWNLOAD' | 'SIGNUP' | 'CODE';

/**
 * One coupon a buyer holds (or, for `CODE` coupons, used). Held by a payment from its start (`paymentId`,
 * `usedAt`); the order links it when the payment completes; a payment ending unpaid gives it back.
 */
export const couponItems = sqliteTable(
  'coupon_items',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    couponId: text('coupon_id')
      .notNull()
      .references(() => coupons.id),
    customerId: text('customer_id'),
    source: text('source').$type<CouponSource>().notNull(),
    /** What the buyer sends in `coupons[].code` at checkout. */
    code: text('code').notNull(),
    /** Null when the coupon sets no validity. */
    expiresAt: integer('expires_at'),
    usedAt: integer('used_at'),
    paymentId: text('payment_id'),
    orderId: text('order_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('coupon_items_store_code').on(t.storeId, t.code),
    index('coupon_items_customer').on(t.storeId, t.customerId, t.couponId),
    index('coupon_items_payment').on(t.paymentId),
  ],
);
