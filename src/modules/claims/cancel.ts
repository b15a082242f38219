import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { StoreCtx } from '../../server/registry.js';
import { won } from '../../server/responses.js';
import { requireOwned } from '../../server/tenancy.js';
import { emitEvent } from '../events/index.js';
import { findOrder, findOrderItem } from '../orders/index.js';
import { AmountError, claimAmounts, type Amounts } from './amounts.js';
import { giveBack, orderLines } from './give-back.js';

defineMessages({
  INVALID_STATUS: '지금 상태에서는 할 수 없습니다. details.status를 확인하세요.',
});

export const CANCEL_REASONS = ['OUT_OF_STOCK', 'PRICE_ERROR', 'DELIVERY_IMPOSSIBLE', 'ETC'] as const;

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
  quantity: a.quantity,
  refundAmount: a.netRefundAmount,
  itemRefundAmount: a.itemRefundAmount,
  deliveryFeeRefundAmount: a.deliveryFeeRefundAmount,
  deliveryFeeChargeAmount: a.deliveryFeeChargeAmount,
  pointRefundAmount: a.pointRefundAmount,
  cashRefundAmount: a.cashRefundAmount,
});

/**
 * The item of this store and its order, checked to be cancelable by its seller now. Without a quantity,
 * every unit still open (none left is 409 INVALID_STATUS, like a canceled or dispatched item).
 */
export async function cancelable(ctx: StoreCtx<any, any, { orderItemId: string }>, quantity?: number) {
  const item = requireOwned(await findOrderItem(ctx.db, ctx.params.orderItemId), ctx.store.id, 'ORDER_ITEM_NOT_FOUND');
  const order = (await findOrder(ctx.db, item.orderId))!;
  const { lines, points } = await orderLines(ctx.db, order);
  const open = item.quantity - item.canceledQuantity - item.returnedQuantity;
  try {
    return { item, order, lines, amounts: claimAmounts(lines, { kind: 'CANCEL', orderItemId: item.id, quantity: quantity ?? open }, points) };
  } catch (error) {
    if (!(error instanceof AmountError)) throw error;
    // A quantity asked for is the caller's error; nothing left to cancel (no quantity given) is the item's state.
    if (error.reason === 'QUANTITY' && quantity !== undefined && item.status !== 'CANCELED') {
      throw validationFailed([
        { field: 'quantity', code: 'QUANTITY_EXCEEDS', message: `취소할 수 있는 수량은 ${item.quantity - item.canceledQuantity}개입니다.` },
      ]);
    }
    throw fail(409, 'INVALID_STATUS', { status: item.status, reason: item.status === 'CANCELED' ? 'CANCELED' : 'DISPATCHED' });
  }
}

export interface CancelRequest {
  quantity: number;
  reason: (typeof CANCEL_REASONS)[number];
  detail?: string;
}

/**
 * A seller cancel before dispatch, inside the caller's transaction: the units leave the order (giveBack)
 * and ORDER.CANCELED says so. Answers the refund to send to the gateway (null when nothing is cash).
 */
export async function cancelItem(ctx: StoreCtx<CancelRequest, any, { orderItemId: string }>) {
  const { item, order, amounts } = await cancelable(ctx, ctx.body.quantity);
  const given = await giveBack(ctx.services, ctx.now, ctx, {
    order,
    item,
    amounts,
    kind: 'CANCEL',
    claimId: null,
    reason: `SELLER_CANCEL:${ctx.body.reason}`,
    detail: ctx.body.detail,
  });
  await emitEvent(ctx.db, ctx.now, {
    storeId: order.storeId,
    type: 'ORDER.CANCELED',
    resource: { type: 'ORDER', id: order.id },
    data: {
      orderId: order.id,
      orderNo: order.orderNo,
      orderItemId: item.id,
      status: given.after.status,
      itemStatus: given.itemStatus,
      reason: ctx.body.reason,
      quantity: amounts.quantity,
      canceledQuantity: given.counts.canceledQuantity,
      // Rule 6, not rule 4: a seller cancel's refundAmount has the shipping charge taken off.
      refundAmount: amounts.netRefundAmount,
      deliveryFeeRefundAmount: amounts.deliveryFeeRefundAmount,
      deliveryFeeChargeAmount: amounts.deliveryFeeChargeAmount,
      testPayment: order.testPayment,
    },
  });
  return {
    refundId: given.cashRefundId,
    answer: {
      orderId: order.id,
      orderItemId: item.id,
      orderStatus: given.after.status,
      itemStatus: given.itemStatus,
      canceledQuantity: given.counts.canceledQuantity,
      reason: ctx.body.reason,
      amounts: presentCancelAmounts(amounts),
      refundId: given.refundId,
      canceledAt: isoAt(ctx.now),
    },
  };
}
