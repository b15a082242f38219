import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { CouponLine } from '../coupons/index.js';
import type { Fulfillment } from '../catalog/index.js';
import type { AddonSelection, ItemOptions, Stay } from '../catalog/index.js';
import type { FixedRefundPolicy, OrderAmounts, ShippingAddress, StayNights } from '../orders/index.js';

/** A cart: a member's (by customer) or a guest's (by the `x-svc-cart` id handed out on the first add). */
export const carts = sqliteTable(
  'carts',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    customerId: text('customer_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('carts_store_customer').on(t.storeId, t.customerId)],
);

export const cartItems = sqliteTable(
  'cart_items',
  {
    id: text('id').primaryKey(),
    cartId: text('cart_id')
      .notNull()
      .references(() => carts.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    productId: text('product_id').notNull(),
    optionId: text('option_id').notNull(),
    quantity: integer('quantity').notNull(),
    stay: text('stay', { mode: 'json' }).$type<Stay | null>(),
    /** The buyer's add-on picks and custom input text, as sent; checked again when the sheet is made. */
    addonSelections: text('addon_selections', { mode: 'json' }).$type<AddonSelection[] | null>(),
    customInputs: text('custom_inputs', { mode: 'json' }).$type<Record<string, string> | null>(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('cart_items_cart').on(t.cartId)],
);

/** One line of a checkout sheet, priced and snapshotted when the sheet was made. */
export interface SheetItem {
  productId: string;
  productNo: number;
  optionId: string;
  name: string;
  optionValues: string[];
  quantity: number;
  unitPrice: number;
  amount: number;
  stay: StayNights | null;
  thumbnailUrl: string | null;
  fulfillment: Fulfillment;
  refundPolicy: FixedRefundPolicy;
  /** The product's `typeChangedVersion`: a later type change makes the sheet stale (409 CHECKOUT_STALE). */
  typeVersion: number;
  cartItemId: string | null;
  /** Add-on picks (their prices are in `unitPrice`) and custom inputs; absent on sheets made before issue 30. */
  optionSelections?: ItemOptions['optionSelections'];
  customInputs?: ItemOptions['customInputs'];
}

export type SheetStatus = 'OPEN' | 'COMPLETED';

export const checkoutSheets = sqliteTable('checkout_sheets', {
  id: text('id').primaryKey(),
  storeId: text('store_id').notNull(),
  customerId: text('customer_id'),
  cartId: text('cart_id'),
  items: text('items', { mode: 'json' }).$type<SheetItem[]>().notNull(),
  requiresShipping: integer('requires_shipping', { mode: 'boolean' }).notNull(),
  zipCode: text('zip_code'),
  testPayment: integer('test_payment', { mode: 'boolean' }).notNull(),
  status: text('status').$type<SheetStatus>().notNull(),
  orderId: text('order_id'),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
});

export interface PaymentOptionRef {
  pg: string;
  method: string;
  provider: string | null;
}

export interface Failure {
  code: string;
  message: string;
  optionUnavailable: boolean;
  at: number;
}

/** OPEN: windows may be opened; CONFIRMING: an approval awaits the gateway's final word; the rest are ends. */
export type PaymentStatus = 'OPEN' | 'CONFIRMING' | 'COMPLETED' | 'FAILED';

export const payments = sqliteTable(
  'payments',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    checkoutId: text('checkout_id').notNull(),
    customerId: text('customer_id'),
    /** Given out at start: `pgOrderId` = `<orderNo>-<2-digit attempt>`, and the order keeps it. */
    orderNo: integer('order_no').notNull(),
    status: text('status').$type<PaymentStatus>().notNull(),
    /** Gateway, method and transaction of the approving attempt, else of the last one (spec 01 §4.3 list items). */
    pg: text('pg'),
    method: text('method'),
    pgTransactionId: text('pg_transaction_id'),
    amounts: text('amounts', { mode: 'json' }).$type<OrderAmounts>().notNull(),
    shippingAddress: text('shipping_address', { mode: 'json' }).$type<ShippingAddress | null>(),
    guest: text('guest', { mode: 'json' }).$type<{ name: string; phone: string; email: string } | null>(),
    guestPasswordHash: text('guest_password_hash'),
    testPayment: integer('test_payment', { mode: 'boolean' }).notNull(),
    orderId: text('order_id'),
    /** The coupons held from the start: each line's item, discount and share per sheet item. */
    coupons: text('coupons', { mode: 'json' }).$type<CouponLine[]>().notNull().default([]),
    /**
     * When the coupons and points the payment holds were settled: at once when it holds none, when the order
     * took them, or when they were given back because the payment ended unpaid. Null while they are held.
     */
    holdsSettledAt: integer('holds_settled_at'),
    lastFailure: text('last_failure', { mode: 'json' }).$type<Failure | null>(),
    /** Lower-cased buyer name, for the admin search. */
    buyerName: text('buyer_name'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('payments_store_created').on(t.storeId, t.createdAt)],
);

/**
 * READY: window prepared; CONFIRMING: approved by the buyer, result being confirmed; APPROVED: money taken;
 * REFUSED / CANCELED (window closed) / WINDOW_ERROR / FAILED: ended without money; AUTO_CANCELED: approved,
 * then given back because the order could not be made.
 */
export type AttemptStatus = 'READY' | 'CONFIRMING' | 'APPROVED' | 'REFUSED' | 'CANCELED' | 'WINDOW_ERROR' | 'FAILED' | 'AUTO_CANCELED';

export const paymentAttempts = sqliteTable(
  'payment_attempts',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    paymentId: text('payment_id')
      .notNull()
      .references(() => payments.id),
    seq: integer('seq').notNull(),
    pg: text('pg').notNull(),
    method: text('method').notNull(),
    provider: text('provider'),
    pgOrderId: text('pg_order_id').notNull(),
    /** The gateway's key of this window (sandbox or live). */
    pgPaymentKey: text('pg_payment_key'),
    /** The gateway key set the window was prepared with; confirm, cancel and look-up use it again. */
    credentialId: text('credential_id'),
    /** Live windows: the public parameters the gateway's browser SDK opens the window with (never a secret). */
    windowParams: text('window_params', { mode: 'json' }).$type<Record<string, string> | null>(),
    pgTransactionId: text('pg_transaction_id'),
    approvedMethod: text('approved_method'),
    approvedAmount: integer('approved_amount'),
    status: text('status').$type<AttemptStatus>().notNull(),
    returnUrl: text('return_url').notNull(),
    failure: text('failure', { mode: 'json' }).$type<Failure | null>(),
    testPayment: integer('test_payment', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    approvedAt: integer('approved_at'),
  },
  (t) => [
    uniqueIndex('payment_attempts_payment_seq').on(t.paymentId, t.seq),
    // The confirming job looks for CONFIRMING attempts every tick; partial, so ordinary attempts never touch it.
    index('payment_attempts_confirming')
      .on(t.updatedAt)
      .where(sql`status = 'CONFIRMING'`),
  ],
);

/** Money given back: automatic cancels of approvals that could not become an order, seller cancels and claims. */
export const paymentRefunds = sqliteTable(
  'payment_refunds',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    paymentId: text('payment_id')
      .notNull()
      .references(() => payments.id),
    /** The approving attempt whose money goes back (empty for a refund wholly in points). */
    attemptId: text('attempt_id').notNull(),
    /** The claim the refund settles; null for automatic and seller cancels. */
    claimId: text('claim_id'),
    orderItemIds: text('order_item_ids', { mode: 'json' }).$type<string[]>().notNull().default([]),
    amount: integer('amount').notNull(),
    pointRefundAmount: integer('point_refund_amount').notNull(),
    reason: text('reason').notNull(),
    status: text('status').$type<'REQUESTED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'HELD'>().notNull(),
    /** Why a HELD refund waits (the gateway's answer); `POST /v1/payments/refunds/{refundId}/process` retries it. */
    heldReason: text('held_reason'),
    failure: text('failure', { mode: 'json' }).$type<Failure | null>(),
    createdAt: integer('created_at').notNull(),
    completedAt: integer('completed_at'),
    /**
     * While PROCESSING: until when the gateway call under way holds it, which is also when the refunds job
     * tries it again; null before its first call (the job takes it a minute after creation).
     */
    nextAttemptAt: integer('next_attempt_at'),
  },
  (t) => [index('payment_refunds_payment').on(t.paymentId), index('payment_refunds_status').on(t.status)],
);
