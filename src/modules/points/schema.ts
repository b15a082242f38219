import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** A store's point rules; a store without a row has the defaults (points off). */
export const pointPolicies = sqliteTable('point_policies', {
  storeId: text('store_id').primaryKey(),
  earnEnabled: integer('earn_enabled', { mode: 'boolean' }).notNull(),
  defaultEarnRateBp: integer('default_earn_rate_bp').notNull(),
  validityDays: integer('validity_days'),
  useEnabled: integer('use_enabled', { mode: 'boolean' }).notNull(),
  minUseAmount: integer('min_use_amount').notNull(),
  maxUseRateBp: integer('max_use_rate_bp').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

export type PointEntryKind = 'GRANT' | 'DEDUCT' | 'EARN' | 'USE' | 'RETURN' | 'EXPIRE';

/**
 * Points a buyer received in one go, with what is left of them and when they lapse: spending takes the
 * oldest-expiring lots first, expiry zeroes what is left. The balance is the sum of `remaining`.
 */
export const pointLots = sqliteTable(
  'point_lots',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    customerId: text('customer_id').notNull(),
    amount: integer('amount').notNull(),
    remaining: integer('remaining').notNull(),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('point_lots_customer').on(t.storeId, t.customerId, t.expiresAt), index('point_lots_expiry').on(t.expiresAt)],
);

/** The ledger: append-only, one row per change of a buyer's balance (signed `amount`). */
export const pointEntries = sqliteTable(
  'point_entries',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    customerId: text('customer_id').notNull(),
    kind: text('kind').$type<PointEntryKind>().notNull(),
    amount: integer('amount').notNull(),
    balanceAfter: integer('balance_after').notNull(),
    reason: text('reason'),
    /** For grants and earnings: when these points lapse. */
    expiresAt: integer('expires_at'),
    paymentId: text('payment_id'),
    orderId: text('order_id'),
    orderItemId: text('order_item_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('point_entries_customer').on(t.storeId, t.customerId, t.createdAt), index('point_entries_payment').on(t.paymentId)],
);

/** Which lots a spending entry (USE, DEDUCT) took from, so a RETURN restores exactly those lots. */
export const pointLotUses = sqliteTable(
  'point_lot_uses',
  {
    entryId: text('entry_id').notNull(),
    lotId: text('lot_id').notNull(),
    amount: integer('amount').notNull(),
  },
  (t) => [index('point_lot_uses_entry').on(t.entryId)],
);
