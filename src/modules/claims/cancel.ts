import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { StoreCtx } from '../../server/registry.js';
import { won } from '../../server/responses.js';
import { requireOwned } from '../../server/tenancy.js';
import { writeAudit } from '../audit/service.js';
import { restoreStock } from '../catalog/stock.js';
import { paymentAttempts, paymentRefunds } from '../checkout/schema.js';
import { releaseCoupons } from '../coupons/service.js';
import { emitEvent } from '../events/outbox.js';
import { closeItemFlow } from '../flows/service.js';
import { coreRank } from '../flows/definition.js';
import { orderItems, orders } from '../orders/schema.js';
import type { OrderRow } from '../orders/service.js';
import { returnPoints } from '../points/service.js';
import { AmountError, claimAmounts, type Amounts, type OrderLine } from './amounts.js';

defineMessages({
  INVALID_STATUS: '지금 상태에서는 할 수 없습니다. details.status를 확인하세요.',
});

export const CANCEL_REASONS = ['OUT_OF_STOCK', 'PRICE_ERROR', 'DELIVERY_IMPOSSIBLE', 'ETC'] as const;
type OrderItemRow = typeof orderItems.$inferSelect;

/** A seller cancel's amounts as the preview and the answer show them (issue 13 Shapes). */
export const cancelAmountsView = z.object({
  quantity: z.number().int(),
  refundAmount: won.describe('item + shipping refund − shipping charge'),
  itemRefundAmount: won.describe('What the buyer paid for the units (coupon discount taken off)'),
  deliveryFeeRefundAmount: won,
  deliveryFeeChargeAmount: won,
  pointRefundAmount: won.describe('Points given back first'),
  cashRefundAmount: won.describe('The rest, through the gateway'),
});
export const presentCancelAmounts = (a: Amounts): z.output<typeof cancelAmountsView> => ({
  quantity: a.quantity, refundAmount: a.refundAmount ?? 0, itemRefundAmount: a.itemRefundAmount, deliveryFeeRefundAmount: a.deliveryFeeRefundAmount,
  deliveryFeeChargeAmount: a.deliveryFeeChargeAmount, pointRefundAmount: a.pointRefundAmount, cashRefundAmount: a.cashRefundAmount,
});

/** The order's items as the amounts module reads them. */
export function orderLines(db: Db, orderId: string): { items: OrderItemRow[]; lines: OrderLine[] } {
  const items = db.select().from(orderItems).where(eq(orderItems.orderId, orderId)).orderBy(orderItems.orderItemNo).all();
  return {
    items,
    lines: items.map((i) => ({
      orderItemId: i.id, quantity: i.quantity, closedQuantity: i.canceledQuantity, amount: i.amount, couponDiscountAmount: i.couponDiscountAmount,
      deliveryGroup: i.deliveryGroup, deliveryFee: i.deliveryFee, refundPolicy: i.refundPolicy,
      dispatched: coreRank(i.status) >= coreRank('DISPATCHED') && i.status !== 'CANCELED',
    })),
  };
}

/** The item of this store and its order, checked to be cancelable by its seller now. */
export function cancelable(ctx: StoreCtx<any, any, { orderItemId: string }>, quantity: number) {
  const item = requireOwned(ctx.db.select().from(orderItems).where(eq(orderItems.id, ctx.params.orderItemId)).get(), ctx.store.id, 'ORDER_ITEM_NOT_FOUND');
  const order = ctx.db.select().from(orders).where(eq(orders.id, item.orderId)).get()!;
  const { lines } = orderLines(ctx.db, order.id);
  try {
    const points = { used: order.payment.pointAmount, returned: order.payment.pointRefundedAmount };
    return { item, order, lines, amounts: claimAmounts(lines, { kind: 'CANCEL', orderItemId: item.id, quantity }, points) };
  } catch (error) {
    if (!(error instanceof AmountError)) throw error;
    if (error.reason === 'QUANTITY' && item.status !== 'CANCELED') {
      throw validationFailed([{ field: 'quantity', code: 'QUANTITY_EXCEEDS', message: `취소할 수 있는 수량은 ${item.quantity - item.canceledQuantity}개입니다.` }]);
    }
    throw fail(409, 'INVALID_STATUS', { status: item.status, reason: error.reason === 'QUANTITY' ? 'CANCELED' : 'DISPATCHED' });
  }
}

export interface CancelRequest {
  quantity: number;
  reason: (typeof CANCEL_REASONS)[number];
  detail?: string;
}

/**
 * A seller cancel before dispatch, inside the caller's transaction: the units leave the item (all of them:
 * its flow closes in CANCELED), their stock comes back, points return first and the rest is a refund of
 * the approving attempt, the coupons come back when the whole order is canceled, and ORDER.CANCELED and a
 * DOMAIN audit record say so. Answers the refund to send to the gateway (null when nothing is cash).
 */
export function cancelItem(ctx: StoreCtx<CancelRequest, any, { orderItemId: string }>) {
  const { db, now } = ctx;
  const { item, order, amounts } = cancelable(ctx, ctx.body.quantity);
  const canceledQuantity = item.canceledQuantity + amounts.quantity;
  const full = canceledQuantity === item.quantity;
  db.update(orderItems).set({ canceledQuantity, updatedAt: now }).where(eq(orderItems.id, item.id)).run();
  restoreStock(db, now, { storeId: item.storeId, productId: item.productId, variantId: item.optionId, quantity: amounts.quantity, stay: item.stay && { checkIn: item.stay.checkIn, checkOut: item.stay.checkOut } });
  const after: OrderRow = full ? { ...order, ...closeItemFlow(db, now, item.id, 'CANCELED') } : order;
  const everythingCanceled = db.select({ status: orderItems.status }).from(orderItems).where(eq(orderItems.orderId, order.id)).all().every((i) => i.status === 'CANCELED');
  if (everythingCanceled) releaseCoupons(db, order.payment.paymentId);

  if (amounts.pointRefundAmount > 0 && order.customerId) {
    returnPoints(db, now, order.payment.paymentId, amounts.pointRefundAmount, { storeId: order.storeId, customerId: order.customerId, reason: '판매자 취소로 돌려받음', orderId: order.id, orderItemId: item.id });
  }
  const payment = { ...order.payment, pointRefundedAmount: order.payment.pointRefundedAmount + amounts.pointRefundAmount };
  db.update(orders).set({ payment, lastChangedAt: now }).where(eq(orders.id, order.id)).run();

  const attempt = db.select({ id: paymentAttempts.id }).from(paymentAttempts)
    .where(and(eq(paymentAttempts.paymentId, order.payment.paymentId), eq(paymentAttempts.status, 'APPROVED'))).get();
  const refundId = newId('rfd', now);
  const cash = amounts.cashRefundAmount > 0 && attempt !== undefined;
  db.insert(paymentRefunds).values({
    id: refundId, storeId: order.storeId, paymentId: order.payment.paymentId, attemptId: attempt?.id ?? '', claimId: null, orderItemIds: [item.id],
    amount: amounts.cashRefundAmount, pointRefundAmount: amounts.pointRefundAmount, reason: `SELLER_CANCEL:${ctx.body.reason}`,
    status: cash ? 'PROCESSING' : 'COMPLETED', heldReason: null, failure: null, createdAt: now, completedAt: cash ? null : now,
  }).run();

  const itemStatus = full ? 'CANCELED' : item.status;
  emitEvent(db, now, {
    storeId: order.storeId, type: 'ORDER.CANCELED', resource: { type: 'ORDER', id: order.id },
    data: {
      orderId: order.id, orderNo: order.orderNo, orderItemId: item.id, status: after.status, itemStatus, reason: ctx.body.reason,
      quantity: amounts.quantity, canceledQuantity, refundAmount: amounts.refundAmount, deliveryFeeRefundAmount: amounts.deliveryFeeRefundAmount,
      deliveryFeeChargeAmount: amounts.deliveryFeeChargeAmount, testPayment: order.testPayment,
    },
  });
  writeAudit(ctx.services, {
    storeId: order.storeId, kind: 'DOMAIN', actor: { type: ctx.principal.actorType, id: ctx.principal.userId, name: ctx.principal.userName }, source: ctx.principal.source,
    action: 'ORDER_ITEM_CANCELED', target: { type: 'ORDER_ITEM', id: item.id }, statusCode: 200, result: 'SUCCEEDED', errorCode: null,
    requestId: ctx.requestId, traceId: ctx.traceId, idempotencyKey: null,
    changes: [{ field: 'canceledQuantity', before: item.canceledQuantity, after: canceledQuantity }, { field: 'refund', before: null, after: { refundId, ...presentCancelAmounts(amounts) } }],
    metadata: { reason: ctx.body.reason, detail: ctx.body.detail ?? null },
  });
  return {
    refundId: cash ? refundId : null,
    answer: {
      orderId: order.id, orderItemId: item.id, orderStatus: after.status, itemStatus, canceledQuantity, reason: ctx.body.reason,
      amounts: presentCancelAmounts(amounts), refundId, canceledAt: isoAt(now),
    },
  };
}
