import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { markStoreMilestone } from '../stores/usage.js';
import type { Db } from '../../db/client.js';
import { isoAt, seoulDateOf } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { instant, won } from '../../server/responses.js';
import { defineMessages } from '../../server/messages.js';
import { requireOwned } from '../../server/tenancy.js';
import { emitEvent } from '../events/outbox.js';
import { insertRow } from '../checkout/statements.js';
import { amountsView, stayView } from '../checkout/pricing.js';
import { flowSummary, itemFlowOf, type ItemFlowRow } from '../flows/item-flows.js';
import { startOrderFlows } from '../flows/item-moves.js';
import { CORE_STATUSES } from '../flows/definition.js';
import {
  cashReceipts, orderItems, orders, orderSequences,
  type FixedRefundPolicy, type OrderAmounts, type OrderPayment, type ShippingAddress, type StayNights,
} from './schema.js';
import type { Fulfillment } from '../catalog/schema.js';
import { fulfillmentView } from '../catalog/product-views.js';
import { EASY_PAY_PROVIDERS, METHODS, PROVIDERS } from '../payments/gateway.js';

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
export async function createOrder(db: Db, now: number, input: NewOrder): Promise<OrderRow> {
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
    fulfillmentSnapshot: item.fulfillment,
    refundPolicy: item.refundPolicy,
    status: 'PAID' as const,
    testPayment: input.testPayment,
    createdAt: now,
    updatedAt: now,
  }));
  for (const item of itemRows) await insertRow(db, orderItems, item);
  await emitEvent(db, now, {
    storeId: input.storeId,
    type: 'ORDER.PAID',
    resource: { type: 'ORDER', id },
    data: { orderId: id, orderNo: input.orderNo, status: 'PAID', testPayment: input.testPayment },
  });
  // After ORDER.PAID: entering the initial state may already notify.
  await startOrderFlows(db, now, row, itemRows);
  // A store's first live paid order ends the agent-approval exemptions for good (spec 01 §5.6).
  if (!input.testPayment) await markStoreMilestone(db, input.storeId, now, 'firstLiveOrderAt');
  return row;
}

export const findOrder = (db: Db, orderId: string) => q(db).orderById.get({ id: orderId });
export const itemsOfOrder = (db: Db, orderId: string) => q(db).itemsOf.all({ orderId });
export const cashReceiptOf = (db: Db, paymentId: string) => q(db).receipt.get({ paymentId });
export const loadOrder = async (db: Db, storeId: string, orderId: string) => requireOwned(await findOrder(db, orderId), storeId, 'ORDER_NOT_FOUND');

export function findOrderByNo(db: Db, storeId: string, orderNo: number) {
  return db.select().from(orders).where(and(eq(orders.storeId, storeId), eq(orders.orderNo, orderNo))).get();
}

export const cashReceiptView = z.object({
  type: z.enum(['INCOME_DEDUCTION', 'EXPENSE_PROOF']),
  identityNumber: z.string().describe('Masked'),
  status: z.enum(['REQUESTED', 'ISSUE_PENDING', 'ISSUED', 'ISSUE_CANCELED', 'ISSUE_FAILED', 'NOT_APPLICABLE']).describe('Spec 01 §3.4'),
  receiptNo: z.string().nullable(),
  issuedAt: instant.nullable(),
  amount: won.nullable().describe('Cash the issued receipt covers; after a partial refund it is reissued for the remainder'),
});

export const presentCashReceipt = (r: CashReceiptRow | undefined): z.output<typeof cashReceiptView> | null =>
  r ? { type: r.type, identityNumber: r.identityMasked, status: r.status, receiptNo: r.receiptNo, issuedAt: r.issuedAt === null ? null : isoAt(r.issuedAt), amount: r.amount } : null;

/** Core statuses of items and orders (spec 01 §6.2; readers tolerate new ones). */
const coreStatus = z.string().describe(`One of ${CORE_STATUSES.join(', ')}; readers tolerate new ones`);
export const orderStatus = coreStatus.describe('The least advanced status among the order\'s non-canceled items');

export const orderItemView = z.object({
  orderItemId: z.string(),
  orderItemNo: z.number().int().describe('orderNo followed by the 2-digit line number'),
  orderId: z.string(),
  orderNo: z.number().int(),
  productId: z.string(),
  productNo: z.number().int(),
  optionId: z.string().describe('The variant ordered (= variantId)'),
  variantId: z.string(),
  productName: z.string(),
  optionValues: z.array(z.string()),
  quantity: z.number().int(),
  unitPrice: won,
  amount: won,
  deliveryFee: won.describe('Shipping fee charged to the item\'s shipping group (on its first item)'),
  pointAllocation: won.describe('Part of the order\'s points spent on this item'),
  couponDiscountAmount: won.describe('Part of the order\'s coupon discounts taken off this item'),
  canceledQuantity: z.number().int().describe('Units canceled (by the seller or by cancel claims)'),
  returnedQuantity: z.number().int().describe('Units returned by completed return claims'),
  status: coreStatus.describe('The core status of the item\'s flow state'),
  flow: z.object({ flowId: z.string(), version: z.number().int(), state: z.string(), coreStatus }).describe('Where the item is in its order flow (fixed at payment)'),
  stay: stayView.nullable(),
  fulfillmentSnapshot: fulfillmentView.describe('The product\'s fulfillment at payment time'),
  fulfillment: z.object({ type: z.enum(['SHIPPING', 'MANUAL']), note: z.string().nullable().describe('What the seller noted on supplying a non-shipped item') }),
  refundPolicy: z.object({
    returnDeliveryFee: won.nullable(),
    exchangeDeliveryFee: won.nullable(),
    preShipmentDeliveryFeeRefund: z.boolean(),
    override: z.object({ returnDeliveryFee: won.optional(), exchangeDeliveryFee: won.optional(), preShipmentDeliveryFeeRefund: z.boolean().optional() }).nullable()
      .describe('The product\'s own items, if any'),
  }).describe('Refund policy fixed at payment time (spec 01 §2.4 rule 5)'),
  testPayment: z.boolean(),
  createdAt: instant,
});


/** The note the seller gave when supplying a no-shipping item (FULFILL input), shown to buyer and seller. */
const supplyNote = (flow: ItemFlowRow) => {
  const note = flow?.inputs.FULFILL?.note;
  return typeof note === 'string' && note !== '' ? note : null;
};

export async function presentOrderItem(db: Db, item: OrderItemRow, order: Pick<OrderRow, 'orderNo'>): Promise<z.output<typeof orderItemView>> {
  const flow = await itemFlowOf(db, item, item.updatedAt);
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
    couponDiscountAmount: item.couponDiscountAmount,
    canceledQuantity: item.canceledQuantity,
    returnedQuantity: item.returnedQuantity,
    status: item.status,
    flow: flowSummary(flow),
    stay: item.stay,
    fulfillmentSnapshot: item.fulfillmentSnapshot,
    fulfillment: { type: item.fulfillmentSnapshot.type, note: supplyNote(flow) },
    refundPolicy: item.refundPolicy,
    testPayment: item.testPayment,
    createdAt: isoAt(item.createdAt),
  };
}

export const shippingAddressView = z.object({
  receiverName: z.string(),
  phone: z.string(),
  zipCode: z.string(),
  address1: z.string(),
  address2: z.string(),
  deliveryMemo: z.string().nullable(),
});
/** A buyer's pending request for another address: sellers apply it with PUT /v1/orders/{orderId}/shipping-address. */
export const addressChangeRequestView = z.object({ shippingAddress: shippingAddressView, requestedAt: instant }).nullable();
export const presentAddressChangeRequest = (order: Pick<OrderRow, 'addressChangeRequest'>) =>
  order.addressChangeRequest && { shippingAddress: order.addressChangeRequest.shippingAddress, requestedAt: isoAt(order.addressChangeRequest.requestedAt) };

/** Payment methods as orders record them: a gateway's, or `POINT` when points covered the whole amount. */
export const approvedMethod = z.enum([...METHODS, 'POINT']);

export const orderView = z.object({
  orderId: z.string(),
  orderNo: z.number().int().describe('14 digits: the Korean date (YYYYMMDD) and a per-store daily sequence'),
  status: orderStatus,
  progressStatus: orderStatus,
  testPayment: z.boolean().describe('True for sandbox payments'),
  buyer: z.object({
    customerId: z.string().nullable().describe('null for a guest'),
    guest: z.boolean(),
    name: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
  }),
  shippingAddress: shippingAddressView.nullable(),
  addressChangeRequest: addressChangeRequestView,
  amounts: amountsView,
  payment: z.object({
    paymentId: z.string(),
    pg: z.enum(PROVIDERS).nullable().describe('null when points paid everything'),
    method: approvedMethod.exclude(['EASY_PAY']).describe('Compatibility value: easy pay shows as CARD'),
    approvedMethod: approvedMethod.describe('The actual method'),
    easyPayProvider: z.enum(EASY_PAY_PROVIDERS).nullable(),
    amount: won,
    pointAmount: won,
    pointRefundedAmount: won,
    cashReceipt: cashReceiptView.nullable(),
    approvedAt: instant,
  }),
  items: z.array(orderItemView),
  orderedAt: instant,
  lastChangedAt: instant,
});

/** The seller's view of an order (spec 01 §2.8). */
export async function presentOrder(db: Db, order: OrderRow, items?: OrderItemRow[]) {
  // One item after another: presenting an item without a flow yet adopts it (a write).
  const itemViews = [];
  for (const item of items ?? await itemsOfOrder(db, order.id)) itemViews.push(await presentOrderItem(db, item, order));
  return {
    orderId: order.id,
    orderNo: order.orderNo,
    status: order.status,
    progressStatus: order.status,
    testPayment: order.testPayment,
    buyer: { customerId: order.customerId, guest: order.guest, ...order.buyer },
    shippingAddress: order.shippingAddress,
    addressChangeRequest: presentAddressChangeRequest(order),
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
      cashReceipt: presentCashReceipt(await cashReceiptOf(db, order.payment.paymentId)),
      approvedAt: isoAt(order.payment.approvedAt),
    },
    items: itemViews,
    orderedAt: isoAt(order.orderedAt),
    lastChangedAt: isoAt(order.lastChangedAt),
  };
}
