import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import type { StoreCtx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { writeAudit } from '../audit/service.js';
import { restoreStock } from '../catalog/stock.js';
import { paymentAttempts, paymentRefunds } from '../checkout/schema.js';
import { releaseCoupons } from '../coupons/service.js';
import { coreRank } from '../flows/definition.js';
import { closeItemFlow } from '../flows/item-moves.js';
import { orderItems, orders } from '../orders/schema.js';
import type { OrderRow } from '../orders/service.js';
import { returnPoints } from '../points/service.js';
import type { Amounts, OrderLine, PaymentPoints } from './amounts.js';

export type OrderItemRow = typeof orderItems.$inferSelect;

/** The order's items as the amounts module reads them, and the payment's points. */
export async function orderLines(db: Db, order: OrderRow): Promise<{ items: OrderItemRow[]; lines: OrderLine[]; points: PaymentPoints }> {
  const items = await db.select().from(orderItems).where(eq(orderItems.orderId, order.id)).orderBy(orderItems.orderItemNo).all();
  return {
    items,
    lines: items.map((i) => ({
      orderItemId: i.id, quantity: i.quantity, closedQuantity: i.canceledQuantity + i.returnedQuantity, amount: i.amount, couponDiscountAmount: i.couponDiscountAmount,
      deliveryGroup: i.deliveryGroup, deliveryFee: i.deliveryFee, refundPolicy: i.refundPolicy,
      dispatched: coreRank(i.status) >= coreRank('DISPATCHED') && i.status !== 'CANCELED',
    })),
    points: { used: order.payment.pointAmount, returned: order.payment.pointRefundedAmount },
  };
}

/** Who gives the money back, for the DOMAIN audit record. */
export type Giver = Pick<StoreCtx, 'principal' | 'requestId' | 'traceId'> | { system: true };

export interface GiveBack {
  order: OrderRow;
  item: OrderItemRow;
  amounts: Amounts;
  kind: 'CANCEL' | 'RETURN';
  claimId: string | null;
  /** Recorded on the refund: `SELLER_CANCEL:<reason>`, `CLAIM:<claimType>`. */
  reason: string;
  /** The seller's or buyer's note, kept on the audit record only. */
  detail?: string | null;
}

/**
 * Units leave an order (a seller cancel, a completed cancel or return claim), inside the caller's
 * transaction: the item's counts, its stock, its flow when nothing is left of it, the whole order's coupons
 * when everything was canceled, points first and then a cash refund of the approving attempt, and a DOMAIN
 * audit record. Answers the order after, the item's status, the refund id, and whether cash is to go out.
 */
export async function giveBack(services: Services, now: number, giver: Giver, g: GiveBack) {
  const { db } = services;
  const { order, item, amounts } = g;
  const counts = g.kind === 'CANCEL'
    ? { canceledQuantity: item.canceledQuantity + amounts.quantity, returnedQuantity: item.returnedQuantity }
    : { canceledQuantity: item.canceledQuantity, returnedQuantity: item.returnedQuantity + amounts.quantity };
  const full = counts.canceledQuantity + counts.returnedQuantity === item.quantity;
  await db.update(orderItems).set({ ...counts, updatedAt: now }).where(eq(orderItems.id, item.id)).run();
  await restoreStock(db, now, { storeId: item.storeId, productId: item.productId, variantId: item.optionId, quantity: amounts.quantity, stay: item.stay && { checkIn: item.stay.checkIn, checkOut: item.stay.checkOut } });
  const closedAs = counts.returnedQuantity > 0 ? 'RETURNED' : 'CANCELED';
  const after: OrderRow = full ? { ...order, ...(await closeItemFlow(db, now, item.id, closedAs)) } : order;
  const everythingCanceled = (await db.select({ status: orderItems.status }).from(orderItems).where(eq(orderItems.orderId, order.id)).all()).every((i) => i.status === 'CANCELED');
  if (everythingCanceled) await releaseCoupons(db, order.payment.paymentId);

  if (amounts.pointRefundAmount > 0 && order.customerId) {
    await returnPoints(db, now, order.payment.paymentId, amounts.pointRefundAmount, { storeId: order.storeId, customerId: order.customerId, reason: g.kind === 'CANCEL' ? '취소로 돌려받음' : '반품으로 돌려받음', orderId: order.id, orderItemId: item.id });
  }
  const payment = { ...order.payment, pointRefundedAmount: order.payment.pointRefundedAmount + amounts.pointRefundAmount };
  await db.update(orders).set({ payment, lastChangedAt: now }).where(eq(orders.id, order.id)).run();

  const attempt = await db.select({ id: paymentAttempts.id }).from(paymentAttempts)
    .where(and(eq(paymentAttempts.paymentId, order.payment.paymentId), eq(paymentAttempts.status, 'APPROVED'))).get();
  const refundId = newId('rfd', now);
  const cash = amounts.cashRefundAmount > 0 && attempt !== undefined;
  await db.insert(paymentRefunds).values({
    id: refundId, storeId: order.storeId, paymentId: order.payment.paymentId, attemptId: attempt?.id ?? '', claimId: g.claimId, orderItemIds: [item.id],
    amount: amounts.cashRefundAmount, pointRefundAmount: amounts.pointRefundAmount, reason: g.reason,
    status: cash ? 'PROCESSING' : 'COMPLETED', heldReason: null, failure: null, createdAt: now, completedAt: cash ? null : now,
  }).run();

  const actor = 'system' in giver ? { type: 'SYSTEM', id: 'system', name: 'svc' } : { type: giver.principal.actorType, id: giver.principal.userId, name: giver.principal.userName };
  await writeAudit(services, {
    storeId: order.storeId, kind: 'DOMAIN', actor, source: 'system' in giver ? 'SYSTEM' : giver.principal.source,
    action: g.kind === 'CANCEL' ? 'ORDER_ITEM_CANCELED' : 'ORDER_ITEM_RETURNED', target: { type: 'ORDER_ITEM', id: item.id }, statusCode: 200, result: 'SUCCEEDED', errorCode: null,
    requestId: 'system' in giver ? '' : giver.requestId, traceId: 'system' in giver ? '' : giver.traceId, idempotencyKey: null,
    changes: [{ field: g.kind === 'CANCEL' ? 'canceledQuantity' : 'returnedQuantity', before: g.kind === 'CANCEL' ? item.canceledQuantity : item.returnedQuantity, after: g.kind === 'CANCEL' ? counts.canceledQuantity : counts.returnedQuantity },
      { field: 'refund', before: null, after: { refundId, amount: amounts.cashRefundAmount, pointRefundAmount: amounts.pointRefundAmount } }],
    metadata: { claimId: g.claimId, reason: g.reason, detail: g.detail ?? null },
  });
  return { after, itemStatus: full ? closedAs : item.status, counts, refundId, cashRefundId: cash ? refundId : null };
}

/** Where a refund stands after its gateway call (the answers of cancels and claims show it). */
export const refundStatus = async (db: Db, refundId: string) =>
  (await db.select({ status: paymentRefunds.status }).from(paymentRefunds).where(eq(paymentRefunds.id, refundId)).get())!.status as 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'HELD';
