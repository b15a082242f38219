import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { fail } from '../../server/errors.js';
import { defineOperation, type StoreCtx } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { requireOwned } from '../../server/tenancy.js';
import { loadProduct } from '../catalog/index.js';
import { findOrder, findOrderItem, guestOrder, memberOrder } from '../orders/index.js';
import { actionSchema, definitionSchema, inputSchema } from './definition.js';
import { flowRuns, flowVersions } from './schema.js';
import { listFlows, loadFlow, loadVersion, presentFlow, resolveFlow, runningItemCount } from './flow-catalogue.js';
import { itemAndOrder, itemFlowsOfOrder, loadItemFlow, presentItemFlow, presentRun, type ItemFlowRow } from './item-flows.js';
import { moveItem } from './item-moves.js';

export const tag = 'Order flows';
/** Spec 02 §4.4's scope of item and order actions, moves and events; `order:rw`, which they took before, still grants them. */
export const FLOW_WRITE = { scope: 'flow:rw', alsoScope: 'order:rw' } as const;
const flowIdParams = z.object({ flowId: z.string() }).strict();
const itemParams = z.object({ orderItemId: z.string() }).strict();
const itemActionParams = z.object({ orderItemId: z.string(), key: z.string() }).strict();
const orderActionParams = z.object({ orderId: z.string(), key: z.string() }).strict();
const actionInput = z.record(z.string(), z.unknown());
const actionBody = z.object({ input: actionInput.optional() }).strict();

// ---------------------------------------------------------------------------------------------------
// Response shapes

/** The flow editor's layout, kept beside a definition untouched. */
export const graphSchema = z
  .object({
    nodes: z.array(z.object({ id: z.string().min(1).max(100), x: z.number(), y: z.number() }).strict()).max(500),
  })
  .strict();
export const flowRecord = z.object({
  flowId: z.string(),
  name: z.string(),
  kind: z.enum(['SHIPPING', 'MANUAL']),
  isDefault: z.boolean(),
  progression: z.enum(['ITEM', 'ORDER']),
  publishedVersion: z.number().int().nullable(),
  draft: definitionSchema.nullable(),
  draftGraph: graphSchema.nullable(),
  createdAt: instant,
  updatedAt: instant,
});
export const versionRecord = z.object({
  flowId: z.string(),
  version: z.number().int(),
  definition: definitionSchema,
  graph: graphSchema.nullable(),
  publishedAt: instant,
  runningItemCount: z.number().int(),
});
export const itemFlow = z.object({
  orderItemId: z.string(),
  orderId: z.string(),
  flowId: z.string(),
  version: z.number().int(),
  state: z.string(),
  label: z.string(),
  coreStatus: z.string(),
  actions: z.array(
    z.object({
      key: z.string(),
      label: z.string(),
      actor: actionSchema.shape.actor,
      scope: actionSchema.shape.scope,
      enabled: z.boolean(),
      disabled: z.object({ reason: z.string() }).nullable(),
      inputs: z.array(inputSchema),
    }),
  ),
  timers: z.array(
    z.object({
      timerId: z.string(),
      kind: z.enum(['after', 'at']),
      to: z.string(),
      status: z.enum(['PENDING', 'PAUSED']),
      dueAt: instant.nullable(),
      remainingSeconds: z.number().int().nullable(),
    }),
  ),
  groupId: z.string().nullable(),
});
const runRecord = z.object({
  runId: z.string(),
  orderId: z.string(),
  orderItemId: z.string(),
  flowId: z.string(),
  version: z.number().int(),
  trigger: z.union([
    z.object({ kind: z.literal('start') }),
    z.object({ kind: z.literal('action'), key: z.string() }),
    z.object({ kind: z.literal('event'), name: z.string() }),
    z.object({ kind: z.literal('timer'), timerId: z.string() }),
    z.object({ kind: z.literal('move'), to: z.string(), reason: z.string() }),
    z.object({ kind: z.literal('migration'), fromVersion: z.number().int(), toVersion: z.number().int() }),
  ]),
  actor: z.object({ type: z.enum(['SELLER', 'BUYER', 'APP', 'TIMER', 'SYSTEM']), id: z.string().nullable() }),
  input: z.record(z.string(), z.unknown()),
  from: z.string().nullable(),
  to: z.string(),
  coreStatus: z.string(),
  notifications: z.array(
    z.object({
      channel: z.string(),
      params: z.record(z.string(), z.unknown()),
      sent: z.boolean(),
      invocationId: z.string().optional(),
      reason: z.string().optional(),
    }),
  ),
  timers: z.array(z.object({ transition: z.number().int(), kind: z.string(), dueAt: instant, to: z.string() })),
  eventIds: z.array(z.string()),
  at: instant,
});
const orderActionResult = z.object({ orderId: z.string(), status: z.string(), items: z.array(itemFlow) });

const ITEM_ERRORS = { 403: ['TENANT_MISMATCH'], 404: ['ORDER_ITEM_NOT_FOUND'] } as const;
const ACTION_ERRORS = {
  400: ['FLOW_ACTION_INPUT_INVALID'],
  403: ['TENANT_MISMATCH'],
  404: ['ORDER_ITEM_NOT_FOUND'],
  409: ['ACTION_NOT_AVAILABLE', 'FLOW_MOVE_NOT_ALLOWED'],
} as const;

// ---------------------------------------------------------------------------------------------------
// Running actions

type Actor = 'SELLER' | 'BUYER';

export async function itemView(db: Db, row: ItemFlowRow, now: number, actor?: Actor) {
  const { item, order } = await itemAndOrder(db, row);
  const view = await presentItemFlow(db, row, order, item, now);
  return actor ? { ...view, actions: view.actions.filter((a) => a.actor === actor) } : view;
}

/** An action on one item (and its group); answers the item's flow as it stands after. */
async function runItemAction(
  services: Services,
  now: number,
  row: ItemFlowRow,
  key: string,
  actor: { type: Actor; id: string | null },
  input: Record<string, unknown>,
) {
  const moved = await moveItem(services, now, row, { trigger: { kind: 'action', key, actor: actor.type, scope: 'ITEM', input }, actor });
  const after = moved.find((m) => m.orderItemId === row.orderItemId) ?? row;
  return itemView(services.db, after, now, actor.type === 'BUYER' ? 'BUYER' : undefined);
}

/**
 * A whole-order action: run on each item (once per progression group) whose state offers it; items that
 * do not are left alone. None offering it is ACTION_NOT_AVAILABLE; any other refusal changes nothing.
 */
async function runOrderAction(
  services: Services,
  now: number,
  orderId: string,
  key: string,
  actor: { type: Actor; id: string | null },
  input: Record<string, unknown>,
) {
  const { db } = services;
  const touched = new Set<string>();
  let firstRefusal: unknown = null;
  for (const candidate of await itemFlowsOfOrder(db, orderId, now)) {
    if (touched.has(candidate.orderItemId)) continue;
    const { row } = await loadItemFlow(db, candidate.storeId, candidate.orderItemId, now);
    try {
      for (const moved of await moveItem(services, now, row, { trigger: { kind: 'action', key, actor: actor.type, scope: 'ORDER', input }, actor }))
        touched.add(moved.orderItemId);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ACTION_NOT_AVAILABLE') throw error;
      firstRefusal ??= error;
    }
  }
  if (touched.size === 0) throw firstRefusal ?? fail(409, 'ACTION_NOT_AVAILABLE', { key, reason: 'NOT_IN_STATE' });
  const order = (await findOrder(db, orderId))!;
  const buyer = actor.type === 'BUYER' ? 'BUYER' : undefined;
  const rows = (await itemFlowsOfOrder(db, orderId, now)).filter((r) => touched.has(r.orderItemId));
  return { orderId, status: order.status, items: await Promise.all(rows.map((r) => itemView(db, r, now, buyer))) };
}

const seller = (ctx: StoreCtx) => ({ type: 'SELLER' as const, id: ctx.principal.userId });

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
    handler: async (ctx) =>
      runItemAction(
        ctx.services,
        ctx.now,
        (await loadItemFlow(ctx.db, ctx.store.id, ctx.params.orderItemId, ctx.now)).row,
        key,
        seller(ctx),
        inputOf(ctx.body ?? {}),
      ),
  });
}

// ---------------------------------------------------------------------------------------------------
// Buyer access

async function orderItemOf(db: Db, orderId: string, orderItemId: string, now: number) {
  const row = await findOrderItem(db, orderItemId);
  if (!row || row.orderId !== orderId) throw fail(404, 'ORDER_ITEM_NOT_FOUND');
  return (await loadItemFlow(db, row.storeId, row.id, now)).row;
}

const orderIdOfItem = async (db: Db, orderItemId: string) => (await findOrderItem(db, orderItemId))?.orderId;

const guestBody = z.object({ orderPassword: z.string().min(1).max(128), input: actionInput.optional() }).strict();
const BUYER_ERRORS = {
  400: ['FLOW_ACTION_INPUT_INVALID'],
  404: ['ORDER_NOT_FOUND', 'ORDER_ITEM_NOT_FOUND'],
  409: ['ACTION_NOT_AVAILABLE', 'FLOW_MOVE_NOT_ALLOWED'],
} as const;
const GUEST_ERRORS = { ...BUYER_ERRORS, 429: ['GUEST_LOOKUP_LOCKED'] } as const;

const buyerTag = 'Storefront order flows';

export const presentVersion = async (db: Db, v: typeof flowVersions.$inferSelect) => ({
  flowId: v.flowId,
  version: v.version,
  definition: v.definition,
  graph: v.graph,
  publishedAt: isoAt(v.publishedAt),
  runningItemCount: await runningItemCount(db, v.flowId, v.version),
});

export const flowOperations = [
  defineOperation({
    operationId: 'listCommerceFlows',
    method: 'GET',
    path: '/v1/commerce-flows',
    summary: "The store's order flows (the two defaults, SHIPPING and MANUAL, and its own)",
    tag,
    auth: 'store',
    scope: 'flow:r',
    response: z.object({ contents: z.array(flowRecord) }),
    handler: async (ctx) => ({ contents: (await listFlows(ctx.db, ctx.store.id, ctx.now)).map(presentFlow) }),
  }),
  defineOperation({
    operationId: 'getCommerceFlow',
    method: 'GET',
    path: '/v1/commerce-flows/{flowId}',
    summary: 'An order flow: kind, progression, published version, draft',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: flowIdParams,
    response: flowRecord,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['FLOW_NOT_FOUND'] },
    handler: async (ctx) => presentFlow(await loadFlow(ctx.db, ctx.store.id, ctx.params.flowId)),
  }),
  defineOperation({
    operationId: 'getCommerceFlowVersion',
    method: 'GET',
    path: '/v1/commerce-flows/{flowId}/versions/{version}',
    summary: 'A published version of a flow: its definition and how many items still run on it',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: z.object({ flowId: z.string(), version: z.coerce.number().int().min(1) }).strict(),
    response: versionRecord,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['FLOW_NOT_FOUND', 'FLOW_VERSION_NOT_FOUND'] },
    handler: async (ctx) => {
      const v = await loadVersion(ctx.db, ctx.store.id, ctx.params.flowId, ctx.params.version);
      return presentVersion(ctx.db, v);
    },
  }),
  defineOperation({
    operationId: 'getProductFlow',
    method: 'GET',
    path: '/v1/products/{productId}/flow',
    summary: "The flow a product's new orders follow and where it comes from (PRODUCT, CATEGORY or PLATFORM default)",
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: z.object({ productId: z.string() }).strict(),
    response: z.object({ flowId: z.string(), version: z.number().int(), source: z.enum(['PRODUCT', 'CATEGORY', 'PLATFORM']) }),
    errors: { 403: ['TENANT_MISMATCH'], 404: ['PRODUCT_NOT_FOUND'] },
    handler: async (ctx) => {
      const { flow, version, source } = await resolveFlow(ctx.db, await loadProduct(ctx.db, ctx.store.id, ctx.params.productId), ctx.now);
      return { flowId: flow.id, version, source };
    },
  }),
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
    handler: async (ctx) =>
      runItemAction(
        ctx.services,
        ctx.now,
        (await loadItemFlow(ctx.db, ctx.store.id, ctx.params.orderItemId, ctx.now)).row,
        ctx.params.key,
        seller(ctx),
        ctx.body.input ?? {},
      ),
  }),
  defineOperation({
    operationId: 'moveOrderItemFlow',
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
  defineOperation({
    operationId: 'storefrontRunMemberItemAction',
    method: 'POST',
    path: '/storefront/v1/me/order-items/{orderItemId}/actions/{key}',
    summary: "A member buyer's flow action on an item of their order (e.g. DECIDE_PURCHASE)",
    tag: buyerTag,
    auth: 'buyer',
    params: itemActionParams,
    body: actionBody,
    response: itemFlow,
    errors: BUYER_ERRORS,
    handler: async (ctx) => {
      const order = await memberOrder(
        ctx.db,
        ctx.buyer.storeId,
        ctx.buyer.customer?.id,
        await orderIdOfItem(ctx.db, ctx.params.orderItemId),
        'ORDER_ITEM_NOT_FOUND',
      );
      const row = await orderItemOf(ctx.db, order.id, ctx.params.orderItemId, ctx.now);
      return runItemAction(ctx.services, ctx.now, row, ctx.params.key, { type: 'BUYER', id: ctx.buyer.customer!.id }, ctx.body.input ?? {});
    },
  }),
  defineOperation({
    operationId: 'storefrontRunMemberOrderAction',
    method: 'POST',
    path: '/storefront/v1/me/orders/{orderId}/actions/{key}',
    summary: "A member buyer's flow action on their whole order",
    tag: buyerTag,
    auth: 'buyer',
    params: orderActionParams,
    body: actionBody,
    response: orderActionResult,
    errors: BUYER_ERRORS,
    handler: async (ctx) => {
      const order = await memberOrder(ctx.db, ctx.buyer.storeId, ctx.buyer.customer?.id, ctx.params.orderId);
      return runOrderAction(ctx.services, ctx.now, order.id, ctx.params.key, { type: 'BUYER', id: ctx.buyer.customer!.id }, ctx.body.input ?? {});
    },
  }),
  defineOperation({
    operationId: 'storefrontRunGuestItemAction',
    method: 'POST',
    path: '/storefront/v1/guest/orders/{orderId}/items/{orderItemId}/actions/{key}',
    summary: "A guest buyer's flow action on an item, with the order password",
    tag: buyerTag,
    auth: 'buyer',
    params: z.object({ orderId: z.string(), orderItemId: z.string(), key: z.string() }).strict(),
    body: guestBody,
    response: itemFlow,
    errors: GUEST_ERRORS,
    async: true,
    handler: async (ctx) => {
      const order = await guestOrder(ctx.db, ctx.buyer.storeId, ctx.params.orderId, ctx.body.orderPassword, ctx.now);
      return transaction(ctx.db, async () => {
        const row = await orderItemOf(ctx.db, order.id, ctx.params.orderItemId, ctx.now);
        return runItemAction(ctx.services, ctx.now, row, ctx.params.key, { type: 'BUYER', id: null }, ctx.body.input ?? {});
      });
    },
  }),
  defineOperation({
    operationId: 'storefrontRunGuestOrderAction',
    method: 'POST',
    path: '/storefront/v1/guest/orders/{orderId}/actions/{key}',
    summary: "A guest buyer's flow action on the whole order, with the order password",
    tag: buyerTag,
    auth: 'buyer',
    params: orderActionParams,
    body: guestBody,
    response: orderActionResult,
    errors: GUEST_ERRORS,
    async: true,
    handler: async (ctx) => {
      const order = await guestOrder(ctx.db, ctx.buyer.storeId, ctx.params.orderId, ctx.body.orderPassword, ctx.now);
      return transaction(ctx.db, () => runOrderAction(ctx.services, ctx.now, order.id, ctx.params.key, { type: 'BUYER', id: null }, ctx.body.input ?? {}));
    },
  }),
];
