// An order item's place in its flow: the item flow rows, their adoption, and how they read (state, actions, timers, runs).
import { asc, eq, inArray, and, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { preparedFor } from '../../db/prepared.js';
import { requireOwned } from '../../server/tenancy.js';
import { findOrder, findOrderItem, itemsOfOrder, type OrderItemFlow, type OrderItemRow, type OrderRow } from '../orders/index.js';
import { availableActions, type ItemState } from './engine.js';
import { definitionOf, ensureDefaultFlows, findDefaultFlow, kindOf } from './flow-catalogue.js';
import { flowRuns, flowTimers, orderItemFlows } from './schema.js';

export type ItemFlowRow = typeof orderItemFlows.$inferSelect;
export type RunRow = typeof flowRuns.$inferSelect;
export type { OrderItemRow, OrderRow };

const q = preparedFor((db) => ({
  itemFlow: db
    .select()
    .from(orderItemFlows)
    .where(eq(orderItemFlows.orderItemId, sql.placeholder('id')))
    .prepare(),
  groupFlows: db
    .select()
    .from(orderItemFlows)
    .where(eq(orderItemFlows.groupId, sql.placeholder('groupId')))
    .orderBy(asc(orderItemFlows.orderItemId))
    .prepare(),
  itemTimers: db
    .select()
    .from(flowTimers)
    .where(and(eq(flowTimers.orderItemId, sql.placeholder('id')), inArray(flowTimers.status, ['PENDING', 'PAUSED'])))
    .orderBy(asc(flowTimers.createdAt))
    .prepare(),
}));

export { findOrder, findOrderItem };

/**
 * The item's flow state. Items paid before flows existed have none: they are adopted on first use by the
 * store default of their kind, in its initial state (they were all PAID), without notifications or timers.
 */
export async function itemFlowOf(db: Db, item: OrderItemRow, now: number): Promise<ItemFlowRow> {
  const found = await q(db).itemFlow.get({ id: item.id });
  if (found) return found;
  await ensureDefaultFlows(db, item.storeId, now);
  const flow = (await findDefaultFlow(db, item.storeId, kindOf(item.fulfillmentSnapshot)))!;
  const def = await definitionOf(db, flow.id, flow.publishedVersion!);
  await db
    .insert(orderItemFlows)
    .values({
      orderItemId: item.id,
      storeId: item.storeId,
      orderId: item.orderId,
      flowId: flow.id,
      version: flow.publishedVersion!,
      state: def.initial,
      coreStatus: def.states[def.initial].coreStatus,
      groupId: null,
      claimHold: false,
      inputs: {},
      enteredAt: item.createdAt,
      fulfilledAt: null,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .run();
  return (await q(db).itemFlow.get({ id: item.id }))!;
}

export const findItemFlow = (db: Db, orderItemId: string) => q(db).itemFlow.get({ id: orderItemId });
export async function itemFlowsOfOrder(db: Db, orderId: string, now: number) {
  const rows: ItemFlowRow[] = [];
  // One after another: an item without a flow yet is adopted (written) on the way.
  for (const item of await itemsOfOrder(db, orderId)) rows.push(await itemFlowOf(db, item, now));
  return rows;
}

/** The order item and order of an item flow, by prepared look-ups. */
export const itemAndOrder = async (db: Db, row: ItemFlowRow) => ({
  item: (await findOrderItem(db, row.orderItemId))!,
  order: (await findOrder(db, row.orderId))!,
});

/** The item's flow as the order item read shows it. */
const flowSummary = (row: ItemFlowRow) => ({ flowId: row.flowId, version: row.version, state: row.state, coreStatus: row.coreStatus });

/** The item's flow and the supplier's FULFILL note, as the order item read shows them (orders asks `itemFlowOf`). */
export async function orderItemFlow(db: Db, item: OrderItemRow, now: number): Promise<OrderItemFlow> {
  const row = await itemFlowOf(db, item, now);
  const note = row.inputs.FULFILL?.note;
  return { ...flowSummary(row), supplyNote: typeof note === 'string' && note !== '' ? note : null };
}

export async function loadItemFlow(db: Db, storeId: string, orderItemId: string, now: number) {
  const item = requireOwned(await findOrderItem(db, orderItemId), storeId, 'ORDER_ITEM_NOT_FOUND');
  return { item, row: await itemFlowOf(db, item, now), order: (await findOrder(db, item.orderId))! };
}

export async function groupOf(db: Db, row: ItemFlowRow) {
  return row.groupId ? await q(db).groupFlows.all({ groupId: row.groupId }) : [row];
}

/** Core statuses a cancel or claim ends an item in: no action, event, timer or move applies any more. */
export const CLOSED_CORE_STATUSES = new Set(['CANCELED', 'RETURNED', 'EXCHANGED']);

/** The engine's view of an item: its state, claim holds (its own, its group's) and what expressions read. */
export function itemState(row: ItemFlowRow, order: OrderRow, item: OrderItemRow, groupClaimOpen: boolean): ItemState {
  return { state: row.state, claimOpen: row.claimHold, groupClaimOpen, closed: CLOSED_CORE_STATUSES.has(row.coreStatus), facts: itemFacts(row, order, item) };
}

/** What flow expressions read of a stored item: `order`, `item`, `flow` (simulation and replay read the same shape). */
export function itemFacts(row: ItemFlowRow, order: OrderRow, item: OrderItemRow): ItemState['facts'] {
  return {
    order: {
      orderId: order.id,
      orderNo: order.orderNo,
      status: order.status,
      testPayment: order.testPayment,
      guest: order.guest,
      orderedAt: isoAt(order.orderedAt),
      totalAmount: order.amounts.totalAmount,
    },
    item: {
      orderItemId: item.id,
      productId: item.productId,
      optionId: item.optionId,
      productName: item.productName,
      optionValues: item.optionValues,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      amount: item.amount,
      fulfillmentType: item.fulfillmentSnapshot.type,
      stay: item.stay,
    },
    flow: { flowId: row.flowId, version: row.version, state: row.state, enteredAt: isoAt(row.enteredAt), inputs: row.inputs },
  };
}

const presentTimer = (t: typeof flowTimers.$inferSelect) => ({
  timerId: t.id,
  kind: t.kind,
  to: t.to,
  status: t.status,
  dueAt: t.dueAt === null ? null : isoAt(t.dueAt),
  remainingSeconds: t.remainingMs === null ? null : Math.ceil(t.remainingMs / 1000),
});

/** `GET /v1/order-items/{id}/flow`: where the item stands, what can be done, what will happen by itself. */
export async function presentItemFlow(db: Db, row: ItemFlowRow, order: OrderRow, item: OrderItemRow, now: number) {
  const def = await definitionOf(db, row.flowId, row.version);
  const groupClaim = (await groupOf(db, row)).some((r) => r.claimHold);
  return {
    orderItemId: row.orderItemId,
    orderId: row.orderId,
    flowId: row.flowId,
    version: row.version,
    state: row.state,
    label: def.states[row.state]?.label ?? row.state,
    coreStatus: row.coreStatus,
    actions: availableActions(def, itemState(row, order, item, groupClaim), now),
    timers: (await q(db).itemTimers.all({ id: row.orderItemId })).map(presentTimer),
    groupId: row.groupId,
  };
}

export const presentRun = (r: RunRow) => ({
  runId: r.id,
  orderId: r.orderId,
  orderItemId: r.orderItemId,
  flowId: r.flowId,
  version: r.version,
  trigger: r.trigger,
  actor: r.actor,
  input: r.input,
  from: r.from,
  to: r.to,
  coreStatus: r.coreStatus,
  notifications: r.notifications,
  timers: r.timers,
  eventIds: r.eventIds,
  at: isoAt(r.at),
});
