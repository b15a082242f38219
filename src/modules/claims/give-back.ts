import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import type { StoreCtx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { writeAudit } from '../audit/index.js';
import { restoreStock } from '../catalog/index.js';
import { approvedAttemptIdOf, findRefund, recordRefund } from '../checkout/index.js';
import { releaseCoupons } from '../coupons/index.js';
import { coreRank, itemsOfOrder, itemStatusesOfOrder, recordCanceledQuantity, recordPointsRefunded, recordReturnedQuantity } from '../orders/index.js';
import { closeItemFlow } from '../flows/index.js';
import type { OrderItemRow, OrderRow } from '../orders/index.js';
import { returnPoints } from '../points/index.js';
import type { Amounts, OrderLine, PaymentPoints } from './amounts.js';

export type { OrderItemRow };

/** The order's items as the amounts module reads them, and the payment's points. */
export async function orderLines(db: Db, order: OrderRow): Promise<{ items: OrderItemRow[]; lines: OrderLine[]; points: PaymentPoints }> {
  const items = await itemsOfOrder(db, order.id);
  return {
    items,
    lines: items.map((i) => ({
      orderItemId: i.id,
      quantity: i.quantity,
      closedQuantity: i.canceledQuantity + i.returnedQuantity,
      amount: i.amount,
      couponDiscountAmount: i.couponDiscountAmount,
      deliveryGroup: i.deliveryGroup,
      deliveryFee: i.deliveryFee,
      refundPolicy: i.refundPolicy,
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
  const counts =
    g.kind === 'CANCEL'
      ? { canceledQuantity: item.canceledQuantity + amounts.quantity, returnedQuantity: item.returnedQuantity }
      : { canceledQuantity: item.canceledQuantity, returnedQuantity: item.returnedQuantity + amounts.quantity };
  const full = counts.canceledQuantity + counts.returnedQuantity === item.quantity;
  if (g.kind === 'CANCEL') await recordCanceledQuantity(db, item.id, counts.canceledQuantity, now);
  else await recordReturnedQuantity(db, item.id, counts.returnedQuantity, now);
  await restoreStock(db, now, {
    storeId: item.storeId,
    productId: item.productId,
    variantId: item.optionId,
    quantity: amounts.quantity,
    stay: item.stay && { checkIn: item.stay.checkIn, checkOut: item.stay.checkOut },
  });
  const closedAs = counts.returnedQuantity > 0 ? 'RETURNED' : 'CANCELED';
  const after: OrderRow = full ? { ...order, ...(await closeItemFlow(db, now, item.id, closedAs)) } : order;
  const everythingCanceled = (await itemStatusesOfOrder(db, order.id)).every((status) => status === 'CANCELED');
  if (everythingCanceled) await releaseCoupons(db, order.payment.paymentId);

  if (amounts.pointRefundAmount > 0 && order.customerId) {
    await returnPoints(db, now, order.payment.paymentId, amounts.pointRefundAmount, {
      storeId: order.storeId,
      customerId: order.customerId,
      reason: g.kind === 'CANCEL' ? '취소로 돌려받음' : '반품으로 돌려받음',
      orderId: order.id,
      orderItemId: item.id,
    });
  }
  await recordPointsRefunded(db, order, amounts.pointRefundAmount, now);

  const attemptId = await approvedAttemptIdOf(db, order.payment.paymentId);
  const refundId = newId('rfd', now);
  const cash = amounts.cashRefundAmount > 0 && attemptId !== undefined;
  await recordRefund(db, {
    id: refundId,
    storeId: order.storeId,
    paymentId: order.payment.paymentId,
    attemptId: attemptId ?? '',
    claimId: g.claimId,
    orderItemIds: [item.id],
    amount: amounts.cashRefundAmount,
    pointRefundAmount: amounts.pointRefundAmount,
    reason: g.reason,
    status: cash ? 'PROCESSING' : 'COMPLETED',
    heldReason: null,
    failure: null,
    createdAt: now,
    completedAt: cash ? null : now,
  });

  const actor =
    'system' in giver
      ? { type: 'SYSTEM', id: 'system', name: 'svc' }
      : { type: giver.principal.actorType, id: giver.principal.userId, name: giver.principal.userName };
  await writeAudit(services, {
    storeId: order.storeId,
    kind: 'DOMAIN',
    actor,
    source: 'system' in giver ? 'SYSTEM' : giver.principal.source,
    action: g.kind === 'CANCEL' ? 'ORDER_ITEM_CANCELED' : 'ORDER_ITEM_RETURNED',
    target: { type: 'ORDER_ITEM', id: item.id },
    statusCode: 200,
    result: 'SUCCEEDED',
    errorCode: null,
    requestId: 'system' in giver ? '' : giver.requestId,
    traceId: 'system' in giver ? '' : giver.traceId,
    idempotencyKey: null,
    changes: [
      {
        field: g.kind === 'CANCEL' ? 'canceledQuantity' : 'returnedQuantity',
        before: g.kind === 'CANCEL' ? item.canceledQuantity : item.returnedQuantity,
        after: g.kind === 'CANCEL' ? counts.canceledQuantity : counts.returnedQuantity,
      },
      { field: 'refund', before: null, after: { refundId, amount: amounts.cashRefundAmount, pointRefundAmount: amounts.pointRefundAmount } },
    ],
    metadata: { claimId: g.claimId, reason: g.reason, detail: g.detail ?? null },
  });
  return { after, itemStatus: full ? closedAs : item.status, counts, refundId, cashRefundId: cash ? refundId : null };
}

/** Where a refund stands after its gateway call (the answers of cancels and claims show it). */
export const refundStatus = async (db: Db, refundId: string) => (await findRefund(db, refundId))!.status as 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'HELD';
