// A seller's operations on order items: their flow state and history, actions, direct moves and the shortcuts.
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { defineOperation, type StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { findOrder } from '../orders/index.js';
import { flowRuns } from './schema.js';
import { loadItemFlow, presentRun } from './item-flows.js';
import { moveItem } from './item-moves.js';
import { itemView, runItemAction, runOrderAction } from './item-actions.js';
import {
  ACTION_ERRORS,
  actionBody,
  FLOW_WRITE,
  ITEM_ERRORS,
  itemActionParams,
  itemFlow,
  itemParams,
  orderActionParams,
  orderActionResult,
  runRecord,
  tag,
} from './flow-shapes.js';

const seller = (ctx: StoreCtx) => ({ type: 'SELLER' as const, id: ctx.principal.userId });

/** A seller's action on one item; the item and order its load read are not read again on the way. */
async function sellerAction(ctx: StoreCtx, orderItemId: string, key: string, input: Record<string, unknown>) {
  const { row, item, order } = await loadItemFlow(ctx.db, ctx.store.id, orderItemId, ctx.now);
  return runItemAction(ctx.services, ctx.now, row, key, seller(ctx), input, [], { item, order });
}

/** The convenience endpoints run the default flows' action keys on any flow that defines them. */
function sellerShortcut(
  operationId: string,
  path: string,
  key: string,
  summary: string,
  body?: z.ZodObject<any>,
  inputOf: (b: any) => Record<string, unknown> = () => ({}),
) {
  return defineOperation({
    operationId,
    method: 'POST',
    path: `/v1/order-items/{orderItemId}/${path}`,
    summary,
    tag,
    auth: 'store',
    ...FLOW_WRITE,
    // Trade processing stays direct for agents and outside the AI-action limit (spec 01 §5.6).
    agent: 'direct',
    tradeProcessing: true,
    params: itemParams,
    body,
    response: itemFlow,
    errors: ACTION_ERRORS,
    target: (ctx) => ({ type: 'ORDER_ITEM', id: ctx.params.orderItemId }),
    handler: (ctx) => sellerAction(ctx, ctx.params.orderItemId, key, inputOf(ctx.body ?? {})),
  });
}

export const sellerItemOperations = [
  defineOperation({
    operationId: 'getOrderItemFlow',
    method: 'GET',
    path: '/v1/order-items/{orderItemId}/flow',
    summary: "An item's flow state: its actions (enabled or why not, with inputs), its timers and its progression group",
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: itemParams,
    response: itemFlow,
    errors: ITEM_ERRORS,
    handler: async (ctx) => itemView(ctx.db, (await loadItemFlow(ctx.db, ctx.store.id, ctx.params.orderItemId, ctx.now)).row, ctx.now),
  }),
  defineOperation({
    operationId: 'listOrderItemFlowRuns',
    method: 'GET',
    path: '/v1/order-items/{orderItemId}/flow/runs',
    summary: "An item's flow history, oldest first: every trigger that moved it, with its notifications, timers and events",
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: itemParams,
    response: z.object({ contents: z.array(runRecord) }),
    errors: ITEM_ERRORS,
    handler: async (ctx) => {
      const { row } = await loadItemFlow(ctx.db, ctx.store.id, ctx.params.orderItemId, ctx.now);
      const runs = await ctx.db.select().from(flowRuns).where(eq(flowRuns.orderItemId, row.orderItemId)).orderBy(asc(flowRuns.at), asc(flowRuns.id)).all();
      return { contents: runs.map(presentRun) };
    },
  }),
  defineOperation({
    operationId: 'getFlowRun',
    method: 'GET',
    path: '/v1/flow-runs/{runId}',
    summary: 'One flow run',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: z.object({ runId: z.string() }).strict(),
    response: runRecord,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['FLOW_RUN_NOT_FOUND'] },
    handler: async (ctx) =>
      presentRun(requireOwned(await ctx.db.select().from(flowRuns).where(eq(flowRuns.id, ctx.params.runId)).get(), ctx.store.id, 'FLOW_RUN_NOT_FOUND')),
  }),
  defineOperation({
    operationId: 'runOrderItemAction',
    title: '주문 상품 흐름 작업 실행',
    method: 'POST',
    path: '/v1/order-items/{orderItemId}/actions/{key}',
    summary: "Run a seller action of the item's flow (with its group under ORDER progression)",
    tag,
    auth: 'store',
    ...FLOW_WRITE,
    agent: 'approval',
    params: itemActionParams,
    body: actionBody,
    response: itemFlow,
    errors: ACTION_ERRORS,
    target: (ctx) => ({ type: 'ORDER_ITEM', id: ctx.params.orderItemId }),
    handler: (ctx) => sellerAction(ctx, ctx.params.orderItemId, ctx.params.key, ctx.body.input ?? {}),
  }),
  defineOperation({
    operationId: 'moveOrderItemFlow',
    title: '주문 상품 흐름 상태 직접 변경',
    method: 'POST',
    path: '/v1/order-items/{orderItemId}/flow/move',
    summary: 'Put the item (with its group under ORDER progression) in another state of its flow directly, outside the transitions',
    tag,
    auth: 'store',
    ...FLOW_WRITE,
    // A direct state move needs approval for agents (spec 01 §5.6).
    agent: 'approval',
    params: itemParams,
    body: z.object({ to: z.string().min(1).max(64), reason: z.string().trim().min(1).max(500) }).strict(),
    response: itemFlow,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['ORDER_ITEM_NOT_FOUND'], 409: ['FLOW_MOVE_NOT_ALLOWED'] },
    target: (ctx) => ({ type: 'ORDER_ITEM', id: ctx.params.orderItemId }),
    preview: async (ctx) => {
      const { row } = await loadItemFlow(ctx.db, ctx.store.id, ctx.params.orderItemId, ctx.now);
      return { changes: [{ field: 'flow.state', before: row.state, after: ctx.body.to }], facts: { reason: ctx.body.reason } };
    },
    handler: async (ctx) => {
      const { row } = await loadItemFlow(ctx.db, ctx.store.id, ctx.params.orderItemId, ctx.now);
      await moveItem(ctx.services, ctx.now, row, { trigger: { kind: 'move', to: ctx.body.to, reason: ctx.body.reason }, actor: seller(ctx) });
      return itemView(ctx.db, (await loadItemFlow(ctx.db, ctx.store.id, row.orderItemId, ctx.now)).row, ctx.now);
    },
  }),
  defineOperation({
    operationId: 'runOrderAction',
    title: '주문 흐름 작업 실행',
    method: 'POST',
    path: '/v1/orders/{orderId}/actions/{key}',
    summary: 'Run a seller action on every item of the order whose state offers it',
    tag,
    auth: 'store',
    ...FLOW_WRITE,
    agent: 'approval',
    params: orderActionParams,
    body: actionBody,
    response: orderActionResult,
    errors: { ...ACTION_ERRORS, 404: ['ORDER_NOT_FOUND'] },
    target: (ctx) => ({ type: 'ORDER', id: ctx.params.orderId }),
    handler: async (ctx) => {
      requireOwned(await findOrder(ctx.db, ctx.params.orderId), ctx.store.id, 'ORDER_NOT_FOUND');
      return runOrderAction(ctx.services, ctx.now, ctx.params.orderId, ctx.params.key, seller(ctx), ctx.body.input ?? {});
    },
  }),
  sellerShortcut('confirmOrderItem', 'confirm', 'CONFIRM', 'Confirm an order item (action CONFIRM)'),
  sellerShortcut(
    'dispatchOrderItem',
    'dispatch',
    'DISPATCH',
    'Dispatch an order item with its carrier and tracking number (action DISPATCH)',
    z.object({ carrier: z.string().trim().min(1).max(50), trackingNo: z.string().trim().min(1).max(50) }).strict(),
    (b) => ({ carrier: b.carrier, trackingNo: b.trackingNo }),
  ),
  sellerShortcut('deliverOrderItem', 'delivered', 'DELIVER', 'Mark an order item delivered (action DELIVER)'),
  sellerShortcut(
    'fulfillOrderItem',
    'fulfill',
    'FULFILL',
    'Mark a no-shipping item supplied, with a note for the buyer (action FULFILL)',
    z.object({ note: z.string().max(2000).optional() }).strict(),
    (b) => (b.note === undefined ? {} : { note: b.note }),
  ),
];
