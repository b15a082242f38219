import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export type ClaimType = 'CANCEL' | 'RETURN' | 'EXCHANGE';
export type ClaimStatus = 'REQUESTED' | 'APPROVED' | 'PICKUP_COMPLETED' | 'RESHIPPED' | 'COMPLETED' | 'REJECTED' | 'WITHDRAWN';

/**
 * A buyer's cancel, return or exchange of units of one order item. Its amounts are the estimate while it is
 * open and the final figures once COMPLETED; the refund settles it.
 */
export const claims = sqliteTable(
  'claims',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    /** The order number followed by the order's 2-digit claim sequence. */
    claimNo: integer('claim_no').notNull(),
    claimType: text('claim_type').$type<ClaimType>().notNull(),
    status: text('status').$type<ClaimStatus>().notNull(),
    orderId: text('order_id').notNull(),
    orderItemId: text('order_item_id').notNull(),
    quantity: integer('quantity').notNull(),
    reason: text('reason').notNull(),
    detail: text('detail'),
    exchangeOptionId: text('exchange_option_id'),
    images: text('images', { mode: 'json' }).$type<string[]>().notNull(),
    refundAmount: integer('refund_amount'),
    deliveryFeeRefundAmount: integer('delivery_fee_refund_amount').notNull(),
    deliveryFeeChargeAmount: integer('delivery_fee_charge_amount').notNull(),
    deductAmount: integer('deduct_amount').notNull(),
    pointRefundAmount: integer('point_refund_amount').notNull(),
    refundId: text('refund_id'),
    /** Approved by the flow's IMMEDIATE authority or by the seller. */
    approved: integer('approved', { mode: 'boolean' }).notNull(),
    rejectReason: text('reject_reason'),
    reship: text('reship', { mode: 'json' }).$type<{ carrier: string; trackingNo: string } | null>(),
    testPayment: integer('test_payment', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('claims_store_no').on(t.storeId, t.claimNo),
    index('claims_store_created').on(t.storeId, t.createdAt),
    index('claims_item').on(t.orderItemId),
  ],
);
