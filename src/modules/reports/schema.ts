import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The sales report's read model: per store, Korean date, gateway, actual method and test flag, the approvals
 * and completed cash refunds of that day. Written in the same transaction as the approval or the refund's
 * completion, so a report over 92 days reads at most a few hundred rows.
 */
export const salesDays = sqliteTable(
  'sales_days',
  {
    storeId: text('store_id').notNull(),
    date: text('date').notNull(),
    pg: text('pg').notNull(),
    method: text('method').notNull(),
    testPayment: integer('test_payment', { mode: 'boolean' }).notNull(),
    paymentCount: integer('payment_count').notNull(),
    paymentAmount: integer('payment_amount').notNull(),
    refundCount: integer('refund_count').notNull(),
    refundAmount: integer('refund_amount').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.date, t.pg, t.method, t.testPayment] })],
);
