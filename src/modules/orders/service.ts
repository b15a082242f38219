import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { markStoreMilestone } from '../stores/usage.js';
import type { Db } from '../../db/client.js';
import { isoAt, seoulDateOf } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { instant } from '../../server/responses.js';
import { defineMessages } from '../../server/messages.js';
import { requireOwned } from '../../server/tenancy.js';
import { emitEvent } from '../events/outbox.js';
import { insertRow } from '../checkout/statements.js';
import {
  cashReceipts, orderItems, orders, orderSequences,
  type FixedRefundPolicy, type OrderAmounts, type OrderPayment, type ShippingAddress, type StayNights,
} from './schema.js';
import type { Fulfillment } from '../catalog/schema.js';

defineMessages({
  ORDER_NOT_FOUND: '주문을 찾을 수 없습니다.',
  ORDER_NO_EXHAUSTED: '오늘 만들 수 있는 주문 번호를 모두 썼습니다.',
});

export type OrderRow = typeof orders.$inferSelect;
export type OrderItemRow = typeof orderItems.$inferSelect;
export type CashReceiptRow = typeof cashReceipts.$inferSelect;

const q = preparedFor((db) => ({
  nextNo: db.insert(orderSequences)
    .values({ storeId: sql.placeholder('storeId'), date: sql.placeholder('date'), last: 1 })
    .onConflictDoUpdate({ target: [orderSequences.storeId, orderSequences.date], set: { last: sql`${orderSequences.last} + 1` } })
    .returning({ last: orderSequences.last })
    .prepare(),
  orderById: db.select().from(orders).where(eq(orders.id, sql.placeholder('id'))).prepare(),
  itemsOf: db.select().from(orderItems).where(eq(orderItems.orderId, sql.placeholder('orderId'))).orderBy(orderItems.orderItemNo).prepare(),
  receipt: db.select().from(cashReceipts).where(eq(cashReceipts.paymentId, sql.placeholder('paymentId'))).prepare(),
}));

/** `orderNo`: the Korean date and a per-store, per-day sequence, 14 digits (YYYYMMDD + 6). */
export function allocateOrderNo(db: Db, storeId: string, now: number): number {
  const date = seoulDateOf(now).replaceAll('-', '');
  const last = q(db).nextNo.get({ storeId, date })!.last;
  if (last > 999_999) throw fail(503, 'ORDER_NO_EXHAUSTED');
  return Number(date) * 1_000_000 + last;
}

export interface NewOrderItem {
  productId: string;
  productNo: number;
  optionId: string;
  productName: string;
  optionValues: string[];
  quantity: number;
  unitPrice: number;
  amount: number;
  deliveryGroup: string | null;
  deliveryFee: number;
  stay: StayNights | null;
  fulfillment: Fulfillment;
  refundPolicy: FixedRefundPolicy;
}

export interface NewOrder {
  storeId: string;
  orderNo: number;
  paymentId: string;
  checkoutId: string;
  customerId: string | null;
  buyer: { name: string | null; phone: string | null; email: string | null };
  guestPasswordHash: string | null;
  testPayment: boolean;
  payment: OrderPayment;
  amounts: OrderAmounts;
  shippingAddress: ShippingAddress | null;
  items: NewOrderItem[];
}

/** Points spread over items in proportion to their amounts; the remainder goes to the last item. */
function allocatePoints(items: NewOrderItem[], points: number): number[] {
  const total = items.reduce((n, i) => n + i.amount, 0);
  if (points === 0 || total === 0) return items.map(() => 0);
  const shares = items.map((i) => Math.floor((points * i.amount) / total));
  shares[shares.length - 1] += points - shares.reduce((n, s) => n + s, 0);
  return shares;
}

/**
 * Writes a paid order and its items and emits `ORDER.PAID`, all in the caller's transaction (the one that
 * also took the stock and closed the payment), so an order never exists without its event or its stock.
 */
export function createOrder(db: Db, now: number, input: NewOrder): OrderRow {
  const id = newId('ord', now);
  const search = [String(input.orderNo), input.buyer.name, input.shippingAddress?.receiverName, ...input.items.map((i) => i.productName)]
    .filter(Boolean).join('\n').toLowerCase();
  const row: OrderRow = {
    id,
    storeId: input.storeId,
    orderNo: input.orderNo,
    paymentId: input.paymentId,
    checkoutId: input.checkoutId,
    customerId: input.customerId,
    buyer: input.buyer,
    guest: input.customerId === null,
    guestPasswordHash: input.guestPasswordHash,
    status: 'PAID',
    testPayment: input.testPayment,
    payment: input.payment,
    amounts: input.amounts,
    shippingAddress: input.shippingAddress,
    searchText: search,
    orderedAt: now,
    lastChangedAt: now,
  };
  insertRow(db, orders, row);
  const points = allocatePoints(input.items, input.amounts.pointAmount);
  input.items.forEach((item, i) => insertRow(db, orderItems, {
    id: newId('oi', now),
    storeId: input.storeId,
    orderId: id,
    orderItemNo: input.orderNo * 100 + i + 1,
    productId: item.productId,
    productNo: item.productNo,
    optionId: item.optionId,
    productName: item.productName,
    optionValues: item.optionValues,
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    amount: item.amount,
    deliveryGroup: item.deliveryGroup,
    deliveryFee: item.deliveryFee,
    pointAllocation: points[i],
    stay: item.stay,
    fulfillmentSnapshot: item.fulfillment,
    refundPolicy: item.refundPolicy,
    status: 'PAID' as const,
    testPayment: input.testPayment,
    createdAt: now,
    updatedAt: now,
  }));
  emitEvent(db, now, {
    storeId: input.storeId,
    type: 'ORDER.PAID',
    resource: { type: 'ORDER', id },
    data: { orderId: id, orderNo: input.orderNo, status: 'PAID', testPayment: input.testPayment },
  });
  // A store's first live paid order ends the agent-approval exemptions for good (spec 01 §5.6).
  if (!input.testPayment) markStoreMilestone(db, input.storeId, now, 'firstLiveOrderAt');
  return row;
}

export const findOrder = (db: Db, orderId: string) => q(db).orderById.get({ id: orderId });
export const itemsOfOrder = (db: Db, orderId: string) => q(db).itemsOf.all({ orderId });
export const cashReceiptOf = (db: Db, paymentId: string) => q(db).receipt.get({ paymentId });
export const loadOrder = (db: Db, storeId: string, orderId: string) => requireOwned(findOrder(db, orderId), storeId, 'ORDER_NOT_FOUND');

export function findOrderByNo(db: Db, storeId: string, orderNo: number) {
  return db.select().from(orders).where(and(eq(orders.storeId, storeId), eq(orders.orderNo, orderNo))).get();
}

export const cashReceiptView = z.object({
  type: z.enum(['INCOME_DEDUCTION', 'EXPENSE_PROOF']),
  identityNumber: z.string().describe('Masked'),
  status: z.enum(['REQUESTED', 'ISSUE_PENDING', 'ISSUED', 'ISSUE_CANCELED', 'ISSUE_FAILED', 'NOT_APPLICABLE']).describe('Spec 01 §3.4'),
  receiptNo: z.string().nullable(),
  issuedAt: instant.nullable(),
});

export const presentCashReceipt = (r: CashReceiptRow | undefined): z.output<typeof cashReceiptView> | null =>
  r ? { type: r.type, identityNumber: r.identityMasked, status: r.status, receiptNo: r.receiptNo, issuedAt: r.issuedAt === null ? null : isoAt(r.issuedAt) } : null;

export function presentOrderItem(item: OrderItemRow, order: Pick<OrderRow, 'orderNo'>) {
  return {
    orderItemId: item.id,
    orderItemNo: item.orderItemNo,
    orderId: item.orderId,
    orderNo: order.orderNo,
    productId: item.productId,
    productNo: item.productNo,
    optionId: item.optionId,
    variantId: item.optionId,
    productName: item.productName,
    optionValues: item.optionValues,
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    amount: item.amount,
    deliveryFee: item.deliveryFee,
    pointAllocation: item.pointAllocation,
    status: item.status,
    stay: item.stay,
    fulfillmentSnapshot: item.fulfillmentSnapshot,
    fulfillment: { type: item.fulfillmentSnapshot.type, note: null },
    refundPolicy: item.refundPolicy,
    testPayment: item.testPayment,
    createdAt: isoAt(item.createdAt),
  };
}

/** The seller's view of an order (spec 01 §2.8). */
export function presentOrder(db: Db, order: OrderRow, items = itemsOfOrder(db, order.id)) {
  return {
    orderId: order.id,
    orderNo: order.orderNo,
    status: order.status,
    progressStatus: order.status,
    testPayment: order.testPayment,
    buyer: { customerId: order.customerId, guest: order.guest, ...order.buyer },
    shippingAddress: order.shippingAddress,
    amounts: order.amounts,
    payment: {
      paymentId: order.payment.paymentId,
      pg: order.payment.pg,
      method: order.payment.method,
      approvedMethod: order.payment.approvedMethod,
      easyPayProvider: order.payment.easyPayProvider,
      amount: order.payment.amount,
      pointAmount: order.payment.pointAmount,
      pointRefundedAmount: order.payment.pointRefundedAmount,
      cashReceipt: presentCashReceipt(cashReceiptOf(db, order.payment.paymentId)),
      approvedAt: isoAt(order.payment.approvedAt),
    },
    items: items.map((i) => presentOrderItem(i, order)),
    orderedAt: isoAt(order.orderedAt),
    lastChangedAt: isoAt(order.lastChangedAt),
  };
}
