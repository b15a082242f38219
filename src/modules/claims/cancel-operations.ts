import { z } from 'zod';
import { transaction } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { defineOperation } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { presentRefund, refundView } from '../checkout/index.js';
import { findRefund, resumeHeldRefund, runRefund } from '../checkout/index.js';
import { cancelable, cancelAmountsView, cancelItem, CANCEL_REASONS, presentCancelAmounts } from './cancel.js';
import { refundStatus } from './give-back.js';

/** Seller cancels before dispatch and the retry of held refunds. */

const itemParams = z.object({ orderItemId: z.string() }).strict();
const CANCEL_ERRORS = { 403: ['TENANT_MISMATCH'], 404: ['ORDER_ITEM_NOT_FOUND'], 409: ['INVALID_STATUS'] } as const;
const tag = 'Orders';

const canceledView = z.object({
  orderId: z.string(),
  orderItemId: z.string(),
  orderStatus: z.string().describe("The order's status after the cancel (its least advanced live item)"),
  itemStatus: z.string().describe('CANCELED when the whole quantity is canceled, else the status it had'),
  canceledQuantity: z.number().int().describe('Units canceled on the item in all'),
  reason: z.enum(CANCEL_REASONS),
  amounts: cancelAmountsView,
  refundId: z.string(),
  refundStatus: z
    .enum(['PROCESSING', 'COMPLETED', 'FAILED', 'HELD'])
    .describe('COMPLETED once the gateway gave the cash back (at once when it was all points)'),
  canceledAt: z.string(),
});

const processRefund = defineOperation({
  operationId: 'processRefund',
  title: '보류된 환불 다시 처리',
  method: 'POST',
  path: '/v1/payments/refunds/{refundId}/process',
  summary: 'Retry a HELD refund (the gateway could not refund then: balance, pending settlement)',
  tag: 'Payments',
  auth: 'store',
  scope: 'order:rw',
  roles: ['OWNER', 'ADMIN'],
  agent: 'approval',
  async: true,
  params: z.object({ refundId: z.string() }).strict(),
  response: refundView,
  errors: { 403: ['TENANT_MISMATCH'], 404: ['REFUND_NOT_FOUND'], 409: ['INVALID_STATUS'] },
  target: (ctx) => ({ type: 'REFUND', id: ctx.params.refundId }),
  handler: async (ctx) => {
    const refund = requireOwned(await findRefund(ctx.db, ctx.params.refundId), ctx.store.id, 'REFUND_NOT_FOUND');
    if (refund.status !== 'HELD') throw fail(409, 'INVALID_STATUS', { status: refund.status });
    await resumeHeldRefund(ctx.db, refund.id);
    await runRefund(ctx.services, refund.id);
    return presentRefund((await findRefund(ctx.db, refund.id))!);
  },
});

export const cancelOperations = [
  defineOperation({
    operationId: 'previewOrderItemCancel',
    method: 'GET',
    path: '/v1/order-items/{orderItemId}/cancel-preview',
    summary: 'What a seller cancel would give back (of N units, or all units left without quantity): cash, points and shipping, before anything changes',
    tag,
    auth: 'store',
    scope: 'order:r',
    params: itemParams,
    // The spec's endpoint has no parameter: without quantity it previews every unit still open.
    query: z.object({ quantity: z.coerce.number().int().min(1).max(10_000).optional() }).strict(),
    response: cancelAmountsView,
    errors: CANCEL_ERRORS,
    handler: async (ctx) => presentCancelAmounts((await cancelable(ctx, ctx.query.quantity)).amounts),
  }),
  defineOperation({
    operationId: 'cancelOrderItem',
    title: '주문 상품 취소(판매자)',
    method: 'POST',
    path: '/v1/order-items/{orderItemId}/cancel',
    summary: 'Cancel units of an item before dispatch: stock back, points then cash refunded through the gateway, ORDER.CANCELED',
    tag,
    auth: 'store',
    scope: 'order:rw',
    agent: 'approval',
    async: true,
    params: itemParams,
    body: z.object({ quantity: z.number().int().min(1).max(10_000), reason: z.enum(CANCEL_REASONS), detail: z.string().trim().max(500).optional() }).strict(),
    response: canceledView,
    errors: CANCEL_ERRORS,
    target: (ctx) => ({ type: 'ORDER_ITEM', id: ctx.params.orderItemId }),
    // The dry run and the approval request show the money the cancel would move.
    preview: async (ctx) => {
      const { item, amounts } = await cancelable(ctx, ctx.body.quantity);
      return {
        changes: [{ field: 'canceledQuantity', before: item.canceledQuantity, after: item.canceledQuantity + amounts.quantity }],
        facts: { amounts: presentCancelAmounts(amounts) },
      };
    },
    handler: async (ctx) => {
      const { refundId, answer } = await transaction(ctx.db, () => cancelItem(ctx));
      if (refundId) await runRefund(ctx.services, refundId);
      return { ...answer, refundStatus: await refundStatus(ctx.db, answer.refundId) };
    },
  }),
  processRefund,
];
