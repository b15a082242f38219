import { and, eq, inArray, sql } from 'drizzle-orm';
import { markStoreMilestone } from '../stores/index.js';
import type { Db } from '../../db/client.js';
import { seoulDateOf } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { requireOwned } from '../../server/tenancy.js';
import { emitEvent } from '../events/index.js';
import { insertRow, insertRows } from '../../db/statements.js';
import { announce } from '../../server/hooks.js';
import {
  orderItems,
  orders,
  orderSequences,
  type FixedRefundPolicy,
  type OrderAmounts,
  type OrderPayment,
  type ShippingAddress,
  type StayNights,
} from './schema.js';
import type { Fulfillment, ItemOptions } from '../catalog/index.js';

defineMessages({
  ORDER_NOT_FOUND: '주문을 찾을 수 없습니다.',
  ORDER_NO_EXHAUSTED: '오늘 만들 수 있는 주문 번호를 모두 썼습니다.',
});

export type OrderRow = typeof orders.$inferSelect;
export type OrderItemRow = typeof orderItems.$inferSelect;

const q = preparedFor((db) => ({
  nextNo: db
    .insert(orderSequences)
    .values({ storeId: sql.placeholder('storeId'), date: sql.placeholder('date'), last: 1 })
    .onConflictDoUpdate({ target: [orderSequences.storeId, orderSequences.date], set: { last: sql`${orderSequences.last} + 1` } })
    .returning({ last: orderSequences.last })
    .prepare(),
  orderById: db
    .select()
    .from(orders)
    .where(eq(orders.id, sql.placeholder('id')))
    .prepare(),
  itemById: db
    .select()
    .from(orderItems)
    .where(eq(orderItems.id, sql.placeholder('id')))
    .prepare(),
  itemsOf: db
    .select()
    .from(orderItems)
    .where(eq(orderItems.orderId, sql.placeholder('orderId')))
    .orderBy(orderItems.orderItemNo)
    .prepare(),
}));

/** `orderNo`: the Korean date and a per-store, per-day sequence, 14 digits (YYYYMMDD + 6). */
export async function allocateOrderNo(db: Db, storeId: string, now: number): Promise<number> {
  const date = seoulDateOf(now).replaceAll('-', '');
  const last = (await q(db).nextNo.get({ storeId, date }))!.last;
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
  couponDiscountAmount: number;
  pointEarnRateBp: number | null;
  stay: StayNights | null;
  fulfillment: Fulfillment;
  refundPolicy: FixedRefundPolicy;
  options: ItemOptions;
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
 * `itemOptions` of ORDER.PAID (spec 01 §6.2), only when some item has add-on picks or custom inputs: the one
 * place a webhook repeats text a buyer typed (§6.1).
 */
function itemOptionsOf(items: OrderItemRow[]) {
  const chosen = items.filter((i) => i.optionSelections.length > 0 || i.customInputs.length > 0);
  if (chosen.length === 0) return {};
  return { itemOptions: chosen.map((i) => ({ orderItemId: i.id, optionSelections: i.optionSelections, customInputs: i.customInputs })) };
}

/**
 * Writes a paid order and its items and emits `ORDER.PAID`, all in the caller's transaction (the one that
 * also took the stock and closed the payment), so an order never exists without its event or its stock.
 */
export async function createOrder(db: Db, now: number, input: NewOrder): Promise<OrderRow> {
  const id = newId('ord', now);
  const search = [String(input.orderNo), input.buyer.name, input.shippingAddress?.receiverName, ...input.items.map((i) => i.productName)]
    .filter(Boolean)
    .join('\n')
    .toLowerCase();
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
    addressChangeRequest: null,
    searchText: search,
    orderedAt: now,
    lastChangedAt: now,
  };
  await insertRow(db, orders, row);
  const points = allocatePoints(input.items, input.amounts.pointAmount);
  const itemRows = input.items.map((item, i): OrderItemRow => ({
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
    canceledQuantity: 0,
    returnedQuantity: 0,
    couponDiscountAmount: item.couponDiscountAmount,
    pointEarnRateBp: item.pointEarnRateBp,
    stay: item.stay,
    optionSelections: item.options.optionSelections,
    customInputs: item.options.customInputs,
    fulfillmentSnapshot: item.fulfillment,
    refundPolicy: item.refundPolicy,
    status: 'PAID' as const,
    testPayment: input.testPayment,
    createdAt: now,
    updatedAt: now,
  }));
  await insertRows(db, orderItems, itemRows);
  await emitEvent(db, now, {
    storeId: input.storeId,
    type: 'ORDER.PAID',
    resource: { type: 'ORDER', id },
    data: { orderId: id, orderNo: input.orderNo, status: 'PAID', testPayment: input.testPayment, ...itemOptionsOf(itemRows) },
  });
  // After ORDER.PAID: entering the initial state may already notify.
  await announce(db, 'orderPlaced', { order: row, items: itemRows, at: now });
  // A store's first live paid order ends the agent-approval exemptions for good (spec 01 §5.6).
  if (!input.testPayment) await markStoreMilestone(db, input.storeId, now, 'firstLiveOrderAt');
  return row;
}

export const findOrder = (db: Db, orderId: string) => q(db).orderById.get({ id: orderId });
export const findOrderItem = (db: Db, orderItemId: string) => q(db).itemById.get({ id: orderItemId });

/** The orders placed by these payments, by payment id (a payment places at most one order). */
export async function orderIdsOfPayments(db: Db, paymentIds: string[]): Promise<Map<string, string>> {
  if (paymentIds.length === 0) return new Map();
  const rows = await db.select({ id: orders.id, paymentId: orders.paymentId }).from(orders).where(inArray(orders.paymentId, paymentIds)).all();
  return new Map(rows.map((r) => [r.paymentId, r.id]));
}

export const itemsOfOrder = (db: Db, orderId: string) => q(db).itemsOf.all({ orderId });
/** Units a seller cancel or a cancel claim took out of the item: how many are canceled in all now. */
export async function recordCanceledQuantity(db: Db, orderItemId: string, canceledQuantity: number, now: number): Promise<void> {
  await db.update(orderItems).set({ canceledQuantity, updatedAt: now }).where(eq(orderItems.id, orderItemId)).run();
}

/** Units a completed return claim took back: how many are returned in all now. */
export async function recordReturnedQuantity(db: Db, orderItemId: string, returnedQuantity: number, now: number): Promise<void> {
  await db.update(orderItems).set({ returnedQuantity, updatedAt: now }).where(eq(orderItems.id, orderItemId)).run();
}

/** Points went back to the buyer from the order's payment (a cancel or a return): the payment's refunded points grow. */
export async function recordPointsRefunded(db: Db, order: OrderRow, pointAmount: number, now: number): Promise<void> {
  const payment = { ...order.payment, pointRefundedAmount: order.payment.pointRefundedAmount + pointAmount };
  await db.update(orders).set({ payment, lastChangedAt: now }).where(eq(orders.id, order.id)).run();
}

export const loadOrder = async (db: Db, storeId: string, orderId: string) => requireOwned(await findOrder(db, orderId), storeId, 'ORDER_NOT_FOUND');

export function findOrderByNo(db: Db, storeId: string, orderNo: number) {
  return db
    .select()
    .from(orders)
    .where(and(eq(orders.storeId, storeId), eq(orders.orderNo, orderNo)))
    .get();
}
