import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Fulfillment, ItemOptions, RefundOverride } from '../catalog/index.js';

/** An item's status is its flow state's core status; an order's is its least advanced live item's (flows module). */
export type OrderStatus = string;
export type OrderItemStatus = string;

export interface ShippingAddress {
  receiverName: string;
  phone: string;
  zipCode: string;
  address1: string;
  address2: string;
  deliveryMemo: string | null;
}

export interface StayNights {
  checkIn: string;
  checkOut: string;
  nights: { date: string; price: number }[];
}

/** Refund policy fixed at payment time (spec 01 §2.4 rule 5): the product override over the store default. */
export interface FixedRefundPolicy {
  returnDeliveryFee: number | null;
  exchangeDeliveryFee: number | null;
  preShipmentDeliveryFeeRefund: boolean;
  override: RefundOverride | null;
}

export interface OrderAmounts {
  itemsAmount: number;
  deliveryAmount: number;
  remoteSurcharge: number;
  couponDiscountAmount: number;
  pointAmount: number;
  totalAmount: number;
}

export interface OrderPayment {
  paymentId: string;
  pg: string | null;
  /** Compatibility value: easy-pay shows as CARD (spec 01 §2.8). */
  method: string;
  approvedMethod: string;
  easyPayProvider: string | null;
  amount: number;
  pointAmount: number;
  pointRefundedAmount: number;
  approvedAt: number;
}

/** Per-store, per-Korean-date counter behind the 14-digit `orderNo` (YYYYMMDD + 6 digits). */
export const orderSequences = sqliteTable(
  'order_sequences',
  {
    storeId: text('store_id').notNull(),
    date: text('date').notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.date] })],
);

export const orders = sqliteTable(
  'orders',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    orderNo: integer('order_no').notNull(),
    paymentId: text('payment_id').notNull(),
    checkoutId: text('checkout_id').notNull(),
    customerId: text('customer_id'),
    /** Guest buyers: name, phone, e-mail; members: what the delegation knew. */
    buyer: text('buyer', { mode: 'json' }).$type<{ name: string | null; phone: string | null; email: string | null }>().notNull(),
    guest: integer('guest', { mode: 'boolean' }).notNull(),
    guestPasswordHash: text('guest_password_hash'),
    status: text('status').$type<OrderStatus>().notNull(),
    testPayment: integer('test_payment', { mode: 'boolean' }).notNull(),
    payment: text('payment', { mode: 'json' }).$type<OrderPayment>().notNull(),
    amounts: text('amounts', { mode: 'json' }).$type<OrderAmounts>().notNull(),
    shippingAddress: text('shipping_address', { mode: 'json' }).$type<ShippingAddress | null>(),
    /** The buyer's pending request for another shipping address (ORDER.ADDRESS_CHANGE_REQUESTED); the seller applies or dismisses it. */
    addressChangeRequest: text('address_change_request', { mode: 'json' }).$type<{ shippingAddress: ShippingAddress; requestedAt: number } | null>(),
    /** Lower-cased order number, buyer, receiver and product names: what `keyword` searches. */
    searchText: text('search_text').notNull(),
    orderedAt: integer('ordered_at').notNull(),
    lastChangedAt: integer('last_changed_at').notNull(),
  },
  (t) => [
    uniqueIndex('orders_store_no').on(t.storeId, t.orderNo),
    uniqueIndex('orders_payment').on(t.paymentId),
    index('orders_store_ordered').on(t.storeId, t.orderedAt),
    index('orders_store_changed').on(t.storeId, t.lastChangedAt),
  ],
);

export const orderItems = sqliteTable(
  'order_items',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    orderId: text('order_id')
      .notNull()
      .references(() => orders.id),
    /** `orderNo` followed by the 2-digit line number. */
    orderItemNo: integer('order_item_no').notNull(),
    productId: text('product_id').notNull(),
    productNo: integer('product_no').notNull(),
    /** `variantId` of the catalog (= `optionId` in buyer APIs and orders). */
    optionId: text('option_id').notNull(),
    productName: text('product_name').notNull(),
    optionValues: text('option_values', { mode: 'json' }).$type<string[]>().notNull(),
    quantity: integer('quantity').notNull(),
    unitPrice: integer('unit_price').notNull(),
    amount: integer('amount').notNull(),
    /** Shipping group of spec 01 §2.3 rule 6 and the fee charged to it (on its first item). */
    deliveryGroup: text('delivery_group'),
    deliveryFee: integer('delivery_fee').notNull(),
    pointAllocation: integer('point_allocation').notNull(),
    /** Units a seller cancel took out of the item (all of them: the item is CANCELED). */
    canceledQuantity: integer('canceled_quantity').notNull().default(0),
    /** Units returned by completed return claims. */
    returnedQuantity: integer('returned_quantity').notNull().default(0),
    /** The order's coupon discounts on this item; a claim returns it with the item. */
    couponDiscountAmount: integer('coupon_discount_amount').notNull().default(0),
    /** The product's own earn rate at payment (basis points); null: the point policy's default applies. */
    pointEarnRateBp: integer('point_earn_rate_bp'),
    stay: text('stay', { mode: 'json' }).$type<StayNights | null>(),
    /** Add-on picks (priced in `unitPrice`) and custom input text the buyer gave (issue 30). */
    optionSelections: text('option_selections', { mode: 'json' }).$type<ItemOptions['optionSelections']>().notNull().default([]),
    customInputs: text('custom_inputs', { mode: 'json' }).$type<ItemOptions['customInputs']>().notNull().default([]),
    fulfillmentSnapshot: text('fulfillment_snapshot', { mode: 'json' }).$type<Fulfillment>().notNull(),
    refundPolicy: text('refund_policy', { mode: 'json' }).$type<FixedRefundPolicy>().notNull(),
    status: text('status').$type<OrderItemStatus>().notNull(),
    testPayment: integer('test_payment', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('order_items_order').on(t.orderId), index('order_items_store').on(t.storeId, t.createdAt)],
);

export type CashReceiptStatus = 'REQUESTED' | 'ISSUE_PENDING' | 'ISSUED' | 'ISSUE_CANCELED' | 'ISSUE_FAILED' | 'NOT_APPLICABLE';

/** Cash receipt of a payment (spec 01 §3.4); the identity number is stored sealed, shown only masked. */
export const cashReceipts = sqliteTable(
  'cash_receipts',
  {
    paymentId: text('payment_id').primaryKey(),
    storeId: text('store_id').notNull(),
    type: text('type').$type<'INCOME_DEDUCTION' | 'EXPENSE_PROOF'>().notNull(),
    identitySealed: text('identity_sealed').notNull(),
    identityMasked: text('identity_masked').notNull(),
    status: text('status').$type<CashReceiptStatus>().notNull(),
    receiptNo: text('receipt_no'),
    attempts: integer('attempts').notNull(),
    nextAttemptAt: integer('next_attempt_at'),
    failureCode: text('failure_code'),
    issuedAt: integer('issued_at'),
    /** The cash the issued receipt covers: the payment, less what was refunded when it was (re)issued. */
    amount: integer('amount'),
    /** Live receipts: the gateway's key of the receipt issued now (what cancels it); null when none is. */
    gatewayReceiptKey: text('gateway_receipt_key'),
    /** Receipts issued so far: each (re)issue at a live gateway goes by an id of its own, `<pgOrderId>-R<n>`. */
    issueCount: integer('issue_count').notNull().default(0),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('cash_receipts_due').on(t.status, t.nextAttemptAt)],
);
