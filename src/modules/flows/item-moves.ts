import { and, asc, desc, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { claimNextDue } from '../../db/claim.js';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { OrderItemMove } from '../../server/module.js';
import type { Services } from '../../server/services.js';
import { queueMail } from '../../server/mail.js';
import { requireOwned } from '../../server/tenancy.js';
import { categories, products, type Fulfillment } from '../catalog/schema.js';
import { customers } from '../customers/schema.js';
import { emitEvent } from '../events/outbox.js';
import { orderItems, orders } from '../orders/schema.js';
import { foreignUploads, ORDER_INPUT } from '../uploads/service.js';
import { APP_CHANNEL, DEFAULT_DEFINITIONS, leastAdvanced, type Definition, type FlowKind } from './definition.js';
import { availableActions, entering, step, type Effects, type ItemState, type Refusal, type TimerSet, type Trigger } from './engine.js';
import { enqueueAppNotification } from './app-channels.js';
import { flowRuns, flows, flowTimers, flowVersions, orderItemFlows, type RunActor, type RunNotification, type RunTrigger } from './schema.js';

defineMessages({
  FLOW_NOT_FOUND: '주문 흐름을 찾을 수 없습니다.',
  FLOW_VERSION_NOT_FOUND: '주문 흐름의 그 버전을 찾을 수 없습니다.',
  FLOW_RUN_NOT_FOUND: '흐름 실행 기록을 찾을 수 없습니다.',
  ORDER_ITEM_NOT_FOUND: '주문 상품을 찾을 수 없습니다.',
  ACTION_NOT_AVAILABLE: '지금 상태에서 할 수 없는 작업입니다. details.key와 details.reason을 확인하세요.',
  FLOW_MOVE_NOT_ALLOWED: '조건이 맞지 않아 상태를 옮길 수 없습니다. details.key와 details.reason을 확인하세요.',
  FLOW_ACTION_INPUT_INVALID: '작업 입력이 올바르지 않습니다. details.issues를 확인하세요.',
  FLOW_EVENT_NOT_ACCEPTED: '지금 상태는 이 이벤트를 받지 않습니다.',
  FLOW_ASSIGNMENT_RULES_RETIRED: '흐름 배정 규칙 API는 없어졌습니다. 상품이나 카테고리의 flowId를 쓰세요.',
});

export type FlowRow = typeof flows.$inferSelect;
export type ItemFlowRow = typeof orderItemFlows.$inferSelect;
export type RunRow = typeof flowRuns.$inferSelect;
type OrderRow = typeof orders.$inferSelect;
type OrderItemRow = typeof orderItems.$inferSelect;

/** A placeholder in an update's `set` (drizzle types those as values; JSON columns take their text). */
const param = (name: string) => sql`${sql.placeholder(name)}`;

const q = preparedFor((db) => ({
  flowById: db.select().from(flows).where(eq(flows.id, sql.placeholder('id'))).prepare(),
  defaultFlow: db.select().from(flows).where(and(eq(flows.storeId, sql.placeholder('storeId')), eq(flows.defaultKey, sql.placeholder('kind')))).prepare(),
  version: db.select().from(flowVersions).where(and(eq(flowVersions.flowId, sql.placeholder('flowId')), eq(flowVersions.version, sql.placeholder('version')))).prepare(),
  itemFlow: db.select().from(orderItemFlows).where(eq(orderItemFlows.orderItemId, sql.placeholder('id'))).prepare(),
  groupFlows: db.select().from(orderItemFlows).where(eq(orderItemFlows.groupId, sql.placeholder('groupId'))).orderBy(asc(orderItemFlows.orderItemId)).prepare(),
  orderItem: db.select().from(orderItems).where(eq(orderItems.id, sql.placeholder('id'))).prepare(),
  order: db.select().from(orders).where(eq(orders.id, sql.placeholder('id'))).prepare(),
  customerEmail: db.select({ email: customers.email }).from(customers).where(eq(customers.id, sql.placeholder('id'))).prepare(),
  itemTimers: db.select().from(flowTimers)
    .where(and(eq(flowTimers.orderItemId, sql.placeholder('id')), inArray(flowTimers.status, ['PENDING', 'PAUSED']))).orderBy(asc(flowTimers.createdAt)).prepare(),
  // A move's writes are prepared once: seller actions are a hot path (issue 11 bench: ≥ 1,000 moves/s).
  moveItemFlow: db.update(orderItemFlows).set({
    state: param('state'), coreStatus: param('coreStatus'), enteredAt: param('now'), fulfilledAt: param('fulfilledAt'), inputs: param('inputsJson'), updatedAt: param('now'),
  }).where(eq(orderItemFlows.orderItemId, sql.placeholder('id'))).prepare(),
  setItemStatus: db.update(orderItems).set({ status: param('status'), updatedAt: param('now') }).where(eq(orderItems.id, sql.placeholder('id'))).prepare(),
  clearTimers: db.update(flowTimers).set({ status: 'CLEARED', updatedAt: param('now') })
    .where(and(eq(flowTimers.orderItemId, sql.placeholder('id')), inArray(flowTimers.status, ['PENDING', 'PAUSED']))).prepare(),
  itemStatuses: db.select({ status: orderItems.status }).from(orderItems).where(eq(orderItems.orderId, sql.placeholder('orderId'))).prepare(),
  setOrderStatus: db.update(orders).set({ status: param('status'), lastChangedAt: param('now') }).where(eq(orders.id, sql.placeholder('id'))).prepare(),
  insertRun: db.insert(flowRuns).values({
    id: sql.placeholder('id'), storeId: sql.placeholder('storeId'), orderId: sql.placeholder('orderId'), orderItemId: sql.placeholder('orderItemId'),
    flowId: sql.placeholder('flowId'), version: sql.placeholder('version'), trigger: sql.placeholder('trigger'), actor: sql.placeholder('actor'),
    input: sql.placeholder('input'), from: sql.placeholder('from'), to: sql.placeholder('to'), coreStatus: sql.placeholder('coreStatus'),
    notifications: sql.placeholder('notifications'), timers: sql.placeholder('timers'), eventIds: sql.placeholder('eventIds'), at: sql.placeholder('at'),
  }).prepare(),
}));

// ---------------------------------------------------------------------------------------------------
// Flows and versions

/**
 * The store's two default flows (SHIPPING, MANUAL), version 1 each. Run when a store is created and, for
 * stores made before flows existed, on first use: a unique index keeps concurrent first uses to one each.
 */
export async function ensureDefaultFlows(db: Db, storeId: string, now: number) {
  for (const kind of ['SHIPPING', 'MANUAL'] as const) {
    if (await q(db).defaultFlow.get({ storeId, kind })) continue;
    const { name, definition } = DEFAULT_DEFINITIONS[kind];
    const id = newId('flw', now);
    const inserted = await db.insert(flows).values({
      id, storeId, name, kind, isDefault: true, progression: definition.progression, publishedVersion: 1, draft: null, draftGraph: null, defaultKey: kind, createdAt: now, updatedAt: now,
    }).onConflictDoNothing().run();
    if (inserted.changes === 1) await db.insert(flowVersions).values({ flowId: id, version: 1, storeId, definition, graph: null, publishedAt: now }).run();
  }
}

/** A flow with its first published version (the custom-flow API of a later slice publishes more). */
export async function insertFlow(db: Db, storeId: string, now: number, input: { name: string; kind: FlowKind; definition: Definition }): Promise<FlowRow> {
  const row: FlowRow = {
    id: newId('flw', now), storeId, name: input.name, kind: input.kind, isDefault: false, progression: input.definition.progression,
    publishedVersion: 1, draft: null, draftGraph: null, defaultKey: null, createdAt: now, updatedAt: now,
  };
  await db.insert(flows).values(row).run();
  await db.insert(flowVersions).values({ flowId: row.id, version: 1, storeId, definition: input.definition, graph: null, publishedAt: now }).run();
  return row;
}

export const loadFlow = async (db: Db, storeId: string, flowId: string) => requireOwned(await q(db).flowById.get({ id: flowId }), storeId, 'FLOW_NOT_FOUND');

export async function listFlows(db: Db, storeId: string, now: number) {
  await ensureDefaultFlows(db, storeId, now);
  // The defaults first (SHIPPING, then MANUAL), then the store's own in creation order.
  return db.select().from(flows).where(eq(flows.storeId, storeId)).orderBy(desc(flows.isDefault), sql`${flows.defaultKey} = 'MANUAL'`, asc(flows.createdAt), asc(flows.id)).all();
}

/** Published definitions never change: kept per database once read. */
const definitions = new WeakMap<Db, Map<string, Definition>>();
export async function definitionOf(db: Db, flowId: string, version: number): Promise<Definition> {
  let perDb = definitions.get(db);
  if (!perDb) definitions.set(db, (perDb = new Map()));
  const key = `${flowId}:${version}`;
  let def = perDb.get(key);
  if (!def) {
    const row = await q(db).version.get({ flowId, version });
    if (!row) throw fail(404, 'FLOW_VERSION_NOT_FOUND', { flowId, version });
    perDb.set(key, (def = row.definition));
  }
  return def;
}

export async function loadVersion(db: Db, storeId: string, flowId: string, version: number) {
  await loadFlow(db, storeId, flowId);
  const row = await q(db).version.get({ flowId, version });
  if (!row) throw fail(404, 'FLOW_VERSION_NOT_FOUND', { flowId, version });
  return row;
}

/** Core statuses an item's life in its flow ends in: such items no longer run on their version. */
const ENDED_CORE_STATUSES = ['PURCHASE_DECIDED', 'CANCELED', 'RETURNED', 'EXCHANGED'];

export const runningItemCount = async (db: Db, flowId: string, version: number) =>
  (await db.select({ n: sql<number>`count(*)` }).from(orderItemFlows)
    .where(and(eq(orderItemFlows.flowId, flowId), eq(orderItemFlows.version, version), notInArray(orderItemFlows.coreStatus, ENDED_CORE_STATUSES)))
    .get())!.n;

/** The distinct states the running items of a version are in. */
export const runningStates = async (db: Db, flowId: string, version: number) =>
  (await db.selectDistinct({ state: orderItemFlows.state }).from(orderItemFlows)
    .where(and(eq(orderItemFlows.flowId, flowId), eq(orderItemFlows.version, version), notInArray(orderItemFlows.coreStatus, ENDED_CORE_STATUSES))).all()).map((r) => r.state);

export const presentFlow = (f: FlowRow) => ({
  flowId: f.id, name: f.name, kind: f.kind, isDefault: f.isDefault, progression: f.progression, publishedVersion: f.publishedVersion, draft: f.draft, draftGraph: f.draftGraph,
  createdAt: isoAt(f.createdAt), updatedAt: isoAt(f.updatedAt),
});

// ---------------------------------------------------------------------------------------------------
// Assignment

export type FlowSource = 'PRODUCT' | 'CATEGORY' | 'PLATFORM';

const kindOf = (fulfillment: Pick<Fulfillment, 'type'>): FlowKind => (fulfillment.type === 'SHIPPING' ? 'SHIPPING' : 'MANUAL');

/** A flow id a product or category names must be a flow of the store (404 FLOW_NOT_FOUND). */
export async function requireFlowId(db: Db, storeId: string, flowId: string | null | undefined) {
  if (flowId) await loadFlow(db, storeId, flowId);
}

/**
 * The flow a product's items follow (spec 02 §4.4): its own `flowId`, else its lowest-level category's,
 * else the store default of its fulfilment kind; the flow's published version is the one fixed at payment.
 */
export async function resolveFlow(db: Db, product: { storeId: string; flowId: string | null; categoryId: string | null; fulfillment: Pick<Fulfillment, 'type'> }, now: number) {
  const published = async (flowId: string | null) => {
    const flow = flowId ? await q(db).flowById.get({ id: flowId }) : undefined;
    return flow && flow.storeId === product.storeId && flow.publishedVersion !== null ? flow : undefined;
  };
  const own = await published(product.flowId);
  if (own) return { flow: own, version: own.publishedVersion!, source: 'PRODUCT' as FlowSource };
  const categoryFlowId = product.categoryId ? (await db.select({ flowId: categories.flowId }).from(categories).where(eq(categories.id, product.categoryId)).get())?.flowId ?? null : null;
  const inherited = await published(categoryFlowId);
  if (inherited) return { flow: inherited, version: inherited.publishedVersion!, source: 'CATEGORY' as FlowSource };
  await ensureDefaultFlows(db, product.storeId, now);
  const fallback = (await q(db).defaultFlow.get({ storeId: product.storeId, kind: kindOf(product.fulfillment) }))!;
  return { flow: fallback, version: fallback.publishedVersion!, source: 'PLATFORM' as FlowSource };
}

/**
 * Fixes each new item's flow and version and enters the initial state (its timers and notifications), in
 * the transaction that writes the order. Items of an `ORDER`-progression flow form one group per order.
 */
export async function startOrderFlows(db: Db, now: number, order: OrderRow, items: OrderItemRow[]) {
  const groups = new Map<string, string>();
  for (const item of items) {
    const product = await db.select({ storeId: products.storeId, flowId: products.flowId, categoryId: products.categoryId }).from(products).where(eq(products.id, item.productId)).get();
    const { flow, version } = await resolveFlow(db, { storeId: order.storeId, flowId: product?.flowId ?? null, categoryId: product?.categoryId ?? null, fulfillment: item.fulfillmentSnapshot }, now);
    const def = await definitionOf(db, flow.id, version);
    let groupId: string | null = null;
    if (def.progression === 'ORDER') {
      const key = `${flow.id}:${version}`;
      groupId = groups.get(key) ?? newId('grp', now);
      groups.set(key, groupId);
    }
    const row: ItemFlowRow = {
      orderItemId: item.id, storeId: order.storeId, orderId: order.id, flowId: flow.id, version, state: def.initial, coreStatus: def.states[def.initial].coreStatus,
      groupId, claimHold: false, inputs: {}, enteredAt: now, fulfilledAt: null, updatedAt: now,
    };
    await db.insert(orderItemFlows).values(row).run();
    const result = step(def, itemState(row, order, item, false), { kind: 'start' }, now);
    if (!result.ok) continue;
    await applyEffects(db, now, { order, members: [{ row, item, effects: result.effects }], trigger: { kind: 'start' }, actor: { type: 'SYSTEM', id: null }, input: {} });
  }
}

// ---------------------------------------------------------------------------------------------------
// Reads

/**
 * The item's flow state. Items paid before flows existed have none: they are adopted on first use by the
 * store default of their kind, in its initial state (they were all PAID), without notifications or timers.
 */
export async function itemFlowOf(db: Db, item: OrderItemRow, now: number): Promise<ItemFlowRow> {
  const found = await q(db).itemFlow.get({ id: item.id });
  if (found) return found;
  await ensureDefaultFlows(db, item.storeId, now);
  const flow = (await q(db).defaultFlow.get({ storeId: item.storeId, kind: kindOf(item.fulfillmentSnapshot) }))!;
  const def = await definitionOf(db, flow.id, flow.publishedVersion!);
  await db.insert(orderItemFlows).values({
    orderItemId: item.id, storeId: item.storeId, orderId: item.orderId, flowId: flow.id, version: flow.publishedVersion!, state: def.initial,
    coreStatus: def.states[def.initial].coreStatus, groupId: null, claimHold: false, inputs: {}, enteredAt: item.createdAt, fulfilledAt: null, updatedAt: now,
  }).onConflictDoNothing().run();
  return (await q(db).itemFlow.get({ id: item.id }))!;
}

export const findItemFlow = (db: Db, orderItemId: string) => q(db).itemFlow.get({ id: orderItemId });
export async function itemFlowsOfOrder(db: Db, orderId: string, now: number) {
  const rows: ItemFlowRow[] = [];
  // One after another: an item without a flow yet is adopted (written) on the way.
  for (const item of await db.select().from(orderItems).where(eq(orderItems.orderId, orderId)).orderBy(asc(orderItems.orderItemNo)).all()) rows.push(await itemFlowOf(db, item, now));
  return rows;
}

/** The item's flow as the order item read shows it. */
/** The order item and order of an item flow, by prepared look-ups. */
export const itemAndOrder = async (db: Db, row: ItemFlowRow) => ({ item: (await q(db).orderItem.get({ id: row.orderItemId }))!, order: (await q(db).order.get({ id: row.orderId }))! });

export const flowSummary = (row: ItemFlowRow) => ({ flowId: row.flowId, version: row.version, state: row.state, coreStatus: row.coreStatus });

export async function loadItemFlow(db: Db, storeId: string, orderItemId: string, now: number) {
  const item = requireOwned(await q(db).orderItem.get({ id: orderItemId }), storeId, 'ORDER_ITEM_NOT_FOUND');
  return { item, row: await itemFlowOf(db, item, now), order: (await q(db).order.get({ id: item.orderId }))! };
}

async function groupOf(db: Db, row: ItemFlowRow) {
  return row.groupId ? await q(db).groupFlows.all({ groupId: row.groupId }) : [row];
}

/** The engine's view of an item: its state, claim holds (its own, its group's) and what expressions read. */
/** Core statuses a cancel or claim ends an item in: no action, event, timer or move applies any more. */
export const CLOSED_CORE_STATUSES = new Set(['CANCELED', 'RETURNED', 'EXCHANGED']);

function itemState(row: ItemFlowRow, order: OrderRow, item: OrderItemRow, groupClaimOpen: boolean): ItemState {
  return { state: row.state, claimOpen: row.claimHold, groupClaimOpen, closed: CLOSED_CORE_STATUSES.has(row.coreStatus), facts: itemFacts(row, order, item) };
}

/** What flow expressions read of a stored item: `order`, `item`, `flow` (simulation and replay read the same shape). */
export function itemFacts(row: ItemFlowRow, order: OrderRow, item: OrderItemRow): ItemState['facts'] {
  return {
    order: { orderId: order.id, orderNo: order.orderNo, status: order.status, testPayment: order.testPayment, guest: order.guest, orderedAt: isoAt(order.orderedAt), totalAmount: order.amounts.totalAmount },
    item: {
      orderItemId: item.id, productId: item.productId, optionId: item.optionId, productName: item.productName, optionValues: item.optionValues, quantity: item.quantity,
      unitPrice: item.unitPrice, amount: item.amount, fulfillmentType: item.fulfillmentSnapshot.type, stay: item.stay,
    },
    flow: { flowId: row.flowId, version: row.version, state: row.state, enteredAt: isoAt(row.enteredAt), inputs: row.inputs },
  };
}

const presentTimer = (t: typeof flowTimers.$inferSelect) => ({
  timerId: t.id, kind: t.kind, to: t.to, status: t.status, dueAt: t.dueAt === null ? null : isoAt(t.dueAt), remainingSeconds: t.remainingMs === null ? null : Math.ceil(t.remainingMs / 1000),
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
  runId: r.id, orderId: r.orderId, orderItemId: r.orderItemId, flowId: r.flowId, version: r.version, trigger: r.trigger, actor: r.actor, input: r.input,
  from: r.from, to: r.to, coreStatus: r.coreStatus, notifications: r.notifications, timers: r.timers, eventIds: r.eventIds, at: isoAt(r.at),
});

// ---------------------------------------------------------------------------------------------------
// Moves

export interface MoveRequest {
  trigger: Trigger;
  actor: RunActor;
}

/** A refusal of the engine as the API answers it (spec 02 §4.4). */
function refusalError(refusal: Refusal, key: string | null) {
  switch (refusal.code) {
    case 'ACTION_NOT_AVAILABLE': case 'FLOW_MOVE_NOT_ALLOWED': return fail(409, refusal.code, { key, reason: refusal.reason });
    case 'FLOW_ACTION_INPUT_INVALID': return fail(400, refusal.code, { key, issues: refusal.issues });
    case 'FLOW_EVENT_NOT_ACCEPTED': return fail(409, refusal.code, { key });
    case 'TIMER_STALE': return fail(409, 'FLOW_MOVE_NOT_ALLOWED', { key, reason: 'TIMER_STALE' });
  }
}

/**
 * Runs a trigger on an item — and, under `progression: ORDER`, on every item of its group in the same
 * state — inside the caller's transaction. A refusal throws the API error and changes nothing.
 * Returns the items that moved.
 */
export async function moveItem(services: Services, now: number, row: ItemFlowRow, request: MoveRequest): Promise<ItemFlowRow[]> {
  const { db } = services;
  const order = (await q(db).order.get({ id: row.orderId }))!;
  const def = await definitionOf(db, row.flowId, row.version);
  const group = await groupOf(db, row);
  const groupClaim = group.some((r) => r.claimHold);
  const members = group.filter((r) => r.orderItemId === row.orderItemId || (r.state === row.state && r.version === row.version));
  const stepped = (await Promise.all(members.map(async (member) => {
    const item = (await q(db).orderItem.get({ id: member.orderItemId }))!;
    return { row: member, item, result: step(def, itemState(member, order, item, groupClaim), request.trigger, now) };
  }))).sort((a, b) => a.item.orderItemNo - b.item.orderItemNo);
  const lead = stepped.find((s) => s.row.orderItemId === row.orderItemId)!;
  if (!lead.result.ok) throw refusalError(lead.result.refusal, triggerKey(request.trigger));
  if (request.trigger.kind === 'action') await requireInputUploads(db, order.storeId, def, request.trigger.key, request.trigger.input, request.actor);
  const moving = stepped.flatMap((s) => (s.result.ok ? [{ row: s.row, item: s.item, effects: s.result.effects }] : []));
  const input = request.trigger.kind === 'action' || request.trigger.kind === 'event' ? request.trigger.input : {};
  return applyEffects(db, now, { order, members: moving, trigger: runTrigger(request.trigger), actor: request.actor, input }, services);
}

/**
 * Image inputs must name pictures of this store: a buyer's order-input uploads, or for a seller also its
 * flow attachments. Another store's upload reads as missing, so ids cannot be probed across stores.
 */
async function requireInputUploads(db: Db, storeId: string, def: Definition, key: string, input: Record<string, unknown>, actor: RunActor) {
  const images = (def.actions[key]?.inputs ?? []).filter((d) => d.kind === 'image' && typeof input[d.key] === 'string');
  const purposes = actor.type === 'BUYER' ? [ORDER_INPUT] : [ORDER_INPUT, 'flow-attachment'];
  const missing = await foreignUploads(db, storeId, images.map((d) => input[d.key] as string), purposes);
  const issues = images.filter((d) => missing.has(input[d.key] as string))
    .map((d) => ({ key: d.key, code: 'UPLOAD_NOT_FOUND' as const, message: '이 상점에 올린 사진의 uploadId가 아닙니다. 먼저 사진을 올리세요.' }));
  if (issues.length) throw refusalError({ code: 'FLOW_ACTION_INPUT_INVALID', issues }, key);
}

const triggerKey = (trigger: Trigger) =>
  trigger.kind === 'action' ? trigger.key : trigger.kind === 'event' ? trigger.name : trigger.kind === 'move' ? trigger.to : null;

function runTrigger(trigger: Trigger, timerId = ''): RunTrigger {
  switch (trigger.kind) {
    case 'move': return { kind: 'move', to: trigger.to, reason: trigger.reason };
    case 'start': return { kind: 'start' };
    case 'action': return { kind: 'action', key: trigger.key };
    case 'event': return { kind: 'event', name: trigger.name };
    case 'timer': return { kind: 'timer', timerId };
  }
}

interface Application {
  order: OrderRow;
  members: { row: ItemFlowRow; item: OrderItemRow; effects: Effects }[];
  trigger: RunTrigger;
  actor: RunActor;
  input: Record<string, unknown>;
}

/**
 * Applies the engine's effects for the moving items in one go: item state, order status, timers, the
 * outbox (ORDER.FLOW_STATE_CHANGED once for the group, ORDER.* per item, ORDER.FLOW_NOTIFICATION per
 * webhook notification), the run history, and every module's `onOrderItemMoved` hook.
 */
async function applyEffects(db: Db, now: number, a: Application, services?: Services): Promise<ItemFlowRow[]> {
  const { order } = a;
  const moved: ItemFlowRow[] = [];
  const lead = a.members[0];
  if (!lead) return moved;
  const actionKey = a.trigger.kind === 'action' ? a.trigger.key : null;

  for (const m of a.members) {
    const move = m.effects.move;
    let row = m.row;
    if (move) {
      const fulfilled = row.fulfilledAt ?? (move.coreStatus === 'DELIVERED' || move.coreStatus === 'FULFILLED' ? now : null);
      row = { ...row, state: move.to, coreStatus: move.coreStatus, enteredAt: now, fulfilledAt: fulfilled, updatedAt: now, inputs: actionKey ? { ...row.inputs, [actionKey]: a.input } : row.inputs };
      await q(db).moveItemFlow.run({ id: row.orderItemId, state: row.state, coreStatus: row.coreStatus, now, fulfilledAt: fulfilled, inputsJson: JSON.stringify(row.inputs) });
      await q(db).setItemStatus.run({ id: row.orderItemId, status: move.coreStatus, now });
    }
    if (m.effects.withdrawClaim) {
      await releaseClaimHold(db, now, row.orderItemId);
      row = { ...row, claimHold: false };
      for (const module of services?.modules ?? []) await module.onClaimWithdrawn?.(services!, db, { storeId: row.storeId, orderItemId: row.orderItemId, at: now });
    }
    if (m.effects.timersCleared) await clearTimers(db, now, row.orderItemId);
    await armTimers(db, now, row, m.effects.timersSet);
    moved.push(row);
  }

  const freshOrder = lead.effects.move ? await refreshOrderStatus(db, order, now) : order;
  const eventIds = new Map<string, string[]>(a.members.map((m) => [m.row.orderItemId, []]));
  const emit = async (type: string, data: Record<string, unknown>, itemIds: string[]) => {
    const { eventId } = await emitEvent(db, now, { storeId: order.storeId, type, resource: { type: 'ORDER', id: order.id }, data });
    for (const id of itemIds) eventIds.get(id)?.push(eventId);
  };
  const movedIds = a.members.filter((m) => m.effects.move).map((m) => m.row.orderItemId);
  const leadMove = lead.effects.move;
  if (leadMove && movedIds.length) {
    await emit('ORDER.FLOW_STATE_CHANGED', {
      orderId: order.id, orderItemIds: movedIds, flowId: lead.row.flowId, flowVersion: lead.row.version,
      from: leadMove.from, to: leadMove.to, label: leadMove.label, coreStatus: leadMove.coreStatus, changedAt: isoAt(now),
    }, movedIds);
  }
  for (const [i, m] of a.members.entries()) {
    for (const type of m.effects.events) await emit(type, orderEventData(type, freshOrder, m.item, moved[i]), [m.row.orderItemId]);
  }
  const state = moved[0].state;
  const itemIds = a.members.map((m) => m.row.orderItemId);
  const leadRunId = newId('frn', now);
  const notify = async (n: Effects['notifications'][number]): Promise<RunNotification> => {
    if (n.channel === 'webhook') {
      const name = typeof n.params.event === 'string' ? n.params.event : state;
      await emit('ORDER.FLOW_NOTIFICATION', { orderId: order.id, orderItemIds: itemIds, event: name, flowId: lead.row.flowId, flowVersion: lead.row.version, state }, itemIds);
      return { ...n, sent: true };
    }
    const app = APP_CHANNEL.exec(n.channel);
    if (app) {
      const payload = { name: app[2], orderId: order.id, orderItemIds: itemIds, flowId: lead.row.flowId, flowVersion: lead.row.version, state, params: n.params };
      return { ...n, ...(await enqueueAppNotification(db, now, order.storeId, leadRunId, app[1], app[2], payload)) };
    }
    return { ...n, ...(await mailBuyer(db, now, order, leadMove?.label ?? state, n.params)) };
  };
  const notifications: RunNotification[] = [];
  for (const n of lead.effects.notifications) notifications.push(await notify(n));

  for (const [i, m] of a.members.entries()) {
    const row = moved[i];
    await q(db).insertRun.run({
      id: m === lead ? leadRunId : newId('frn', now), storeId: row.storeId, orderId: row.orderId, orderItemId: row.orderItemId, flowId: row.flowId, version: row.version,
      trigger: a.trigger, actor: a.actor, input: a.input, from: m.effects.move ? m.effects.move.from : null, to: row.state, coreStatus: row.coreStatus,
      notifications, timers: m.effects.timersSet.map((t) => ({ transition: t.transition, kind: t.kind, dueAt: isoAt(t.dueAt), to: t.to })),
      eventIds: eventIds.get(row.orderItemId) ?? [], at: now,
    });
    const move = m.effects.move;
    if (move && services) {
      const hook: OrderItemMove = {
        storeId: row.storeId, orderId: row.orderId, orderItemId: row.orderItemId, from: move.from, to: move.to,
        previousCoreStatus: move.previousCoreStatus, coreStatus: move.coreStatus, at: now,
      };
      for (const module of services.modules) await module.onOrderItemMoved?.(services, db, hook);
    }
  }
  return moved;
}

/**
 * The `email` channel: a mail to the buyer through the service's mail outbox (a deployment's mailer sends
 * it; `svc dev` shows it at /_dev/v1/mail). Params `subject` and `body` override the plain notice.
 */
async function mailBuyer(db: Db, now: number, order: OrderRow, label: string, params: Record<string, unknown>): Promise<{ sent: boolean; reason?: string }> {
  const to = order.buyer.email ?? (order.customerId ? (await q(db).customerEmail.get({ id: order.customerId }))?.email : null);
  if (!to) return { sent: false, reason: 'NO_RECIPIENT' };
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  await queueMail(db, now, {
    to,
    subject: text(params.subject) ?? `[주문 ${order.orderNo}] ${label}`,
    body: text(params.body) ?? `주문번호 ${order.orderNo}의 상태가 '${label}'(으)로 바뀌었습니다.`,
  });
  return { sent: true };
}

/** Stores the timers the item's state sets; a claim already open pauses a new duration timer from the start. */
async function armTimers(db: Db, now: number, row: ItemFlowRow, timers: TimerSet[]) {
  for (const t of timers) {
    const paused = t.kind === 'after' && row.claimHold;
    await db.insert(flowTimers).values({
      id: newId('ftm', now), storeId: row.storeId, orderItemId: row.orderItemId, state: row.state, transition: t.transition, kind: t.kind, to: t.to,
      status: paused ? 'PAUSED' : 'PENDING', dueAt: paused ? null : t.dueAt, remainingMs: paused ? t.dueAt - now : null, createdAt: now, updatedAt: now,
    }).run();
  }
}

const clearTimers = (db: Db, now: number, orderItemId: string) => q(db).clearTimers.run({ id: orderItemId, now });

/**
 * Moves the running items of `fromVersion` onto `toVersion` (spec 02 §4.4), each into `stateOf(its state)`:
 * the state's timers are set anew from now, and each item's history gains a `migration` run. An item whose
 * state key changed fires ORDER.FLOW_STATE_CHANGED, so systems that track flow states stay in step; no
 * notification or ORDER.* status event runs (the item took no step of its flow). Returns how many items moved.
 */
export async function migrateItems(db: Db, now: number, flowId: string, fromVersion: number, toVersion: number, stateOf: (state: string) => string): Promise<number> {
  const def = await definitionOf(db, flowId, toVersion);
  const rows = await db.select().from(orderItemFlows)
    .where(and(eq(orderItemFlows.flowId, flowId), eq(orderItemFlows.version, fromVersion), notInArray(orderItemFlows.coreStatus, ENDED_CORE_STATUSES))).all();
  const touchedOrders = new Map<string, OrderRow>();
  for (const old of rows) {
    const state = stateOf(old.state);
    const row: ItemFlowRow = { ...old, version: toVersion, state, coreStatus: def.states[state].coreStatus, enteredAt: state === old.state ? old.enteredAt : now, updatedAt: now };
    await db.update(orderItemFlows).set({ version: row.version, state: row.state, coreStatus: row.coreStatus, enteredAt: row.enteredAt, updatedAt: now }).where(eq(orderItemFlows.orderItemId, row.orderItemId)).run();
    const order = touchedOrders.get(row.orderId) ?? (await q(db).order.get({ id: row.orderId }))!;
    touchedOrders.set(row.orderId, order);
    const item = (await q(db).orderItem.get({ id: row.orderItemId }))!;
    if (row.coreStatus !== old.coreStatus) await db.update(orderItems).set({ status: row.coreStatus as OrderItemRow['status'], updatedAt: now }).where(eq(orderItems.id, row.orderItemId)).run();
    await clearTimers(db, now, row.orderItemId);
    const { timersSet } = entering(def, itemState(row, order, item, false), state, now);
    await armTimers(db, now, row, timersSet);
    const eventIds = state === old.state ? [] : [(await emitEvent(db, now, {
      storeId: row.storeId, type: 'ORDER.FLOW_STATE_CHANGED', resource: { type: 'ORDER', id: row.orderId },
      data: { orderId: row.orderId, orderItemIds: [row.orderItemId], flowId, flowVersion: toVersion, from: old.state, to: state, label: def.states[state].label, coreStatus: row.coreStatus, changedAt: isoAt(now) },
    })).eventId];
    await db.insert(flowRuns).values({
      id: newId('frn', now), storeId: row.storeId, orderId: row.orderId, orderItemId: row.orderItemId, flowId, version: toVersion,
      trigger: { kind: 'migration', fromVersion, toVersion }, actor: { type: 'SELLER', id: null }, input: {}, from: old.state, to: state, coreStatus: row.coreStatus,
      notifications: [], timers: timersSet.map((t) => ({ transition: t.transition, kind: t.kind, dueAt: isoAt(t.dueAt), to: t.to })), eventIds, at: now,
    }).run();
  }
  for (const order of touchedOrders.values()) await refreshOrderStatus(db, order, now);
  return rows.length;
}

/** The order's status after a move: the least advanced non-canceled item (spec 01 §6.2 rule 2). */
async function refreshOrderStatus(db: Db, order: OrderRow, now: number): Promise<OrderRow> {
  const statuses = (await q(db).itemStatuses.all({ orderId: order.id })).map((r) => r.status as string);
  const status = leastAdvanced(statuses) as OrderRow['status'];
  await q(db).setOrderStatus.run({ id: order.id, status, now });
  return { ...order, status, lastChangedAt: now };
}

/** `data` of the ORDER.* events of spec 01 §6.2: order-level ones, and per-item ones for supply and decision. */
function orderEventData(type: string, order: OrderRow, item: OrderItemRow, row: ItemFlowRow): Record<string, unknown> {
  const base = { orderId: order.id, orderNo: order.orderNo, status: order.status, testPayment: order.testPayment };
  const perItem = type === 'ORDER.FULFILLED' || type === 'ORDER.PURCHASE_DECIDED';
  if (perItem) {
    return { orderId: order.id, orderNo: order.orderNo, orderItemId: item.id, status: order.status, fulfillmentSnapshot: item.fulfillmentSnapshot, fulfilledAt: row.fulfilledAt === null ? null : isoAt(row.fulfilledAt), testPayment: order.testPayment };
  }
  // Non-physical supply also names the item and its fulfilment (rule of ORDER.DELIVERED).
  if (type === 'ORDER.DELIVERED' && item.fulfillmentSnapshot.type !== 'SHIPPING') return { ...base, orderItemId: item.id, fulfillmentSnapshot: item.fulfillmentSnapshot };
  return base;
}

// ---------------------------------------------------------------------------------------------------
// Timers

/** Timers fired in one run of the job, so one backlog cannot hold the loop. */
const TIMERS_PER_RUN = 200;

/** Fires due timers, earliest first, each claimed and fired in its own transaction. */
export async function fireDueTimers(services: Services, now: number): Promise<number> {
  const { db } = services;
  let fired = 0;
  for (let looked = 0; looked < TIMERS_PER_RUN; looked++) {
    // Claimed (FIRED) in the transaction that moves the item: the timer is spent exactly when the move commits.
    const outcome = await transaction(db, async (): Promise<'none' | 'spent' | 'fired'> => {
      const timer = await claimNextDue(db, flowTimers, now, { due: flowTimers.dueAt, where: eq(flowTimers.status, 'PENDING'), set: { status: 'FIRED', updatedAt: now } });
      if (!timer) return 'none';
      const row = await findItemFlow(db, timer.orderItemId);
      if (!row || row.state !== timer.state) return 'spent';
      try {
        await moveItem(services, now, row, { trigger: { kind: 'timer', transition: timer.transition }, actor: { type: 'TIMER', id: timer.id } });
        return 'fired';
      } catch (error) {
        // A condition that no longer holds leaves the item where it is; the timer is spent.
        if ((error as { code?: string }).code !== 'FLOW_MOVE_NOT_ALLOWED') throw error;
        return 'spent';
      }
    });
    if (outcome === 'none') break;
    if (outcome === 'fired') fired++;
  }
  return fired;
}

/** Items whose `after` timers a claim on `orderItemId` stops: the item, and its whole group under ORDER progression. */
function holdScope(db: Db, row: ItemFlowRow) {
  return groupOf(db, row);
}

/**
 * A claim was opened on the item (called by the claims module, in its transaction): its other actions turn
 * off and its `after` timers — and those of its group — pause with the time they had left; `at` timers run on.
 */
export async function openClaimHold(db: Db, now: number, orderItemId: string) {
  const row = await findItemFlow(db, orderItemId);
  if (!row || row.claimHold) return;
  await db.update(orderItemFlows).set({ claimHold: true, updatedAt: now }).where(eq(orderItemFlows.orderItemId, orderItemId)).run();
  for (const member of await holdScope(db, row)) {
    await db.update(flowTimers).set({ status: 'PAUSED', remainingMs: sql`case when ${flowTimers.dueAt} > ${now} then ${flowTimers.dueAt} - ${now} else 0 end`, dueAt: null, updatedAt: now })
      .where(and(eq(flowTimers.orderItemId, member.orderItemId), eq(flowTimers.status, 'PENDING'), eq(flowTimers.kind, 'after'))).run();
  }
}

/** The claim was handled or withdrawn: paused timers resume with the time they had left, unless another hold remains in the group. */
/**
 * A cancel or claim ended the item (all of its quantity): its flow closes in `coreStatus` — timers cleared,
 * claim hold released, the order's status recomputed — inside the caller's transaction. The state key
 * stays where the item was, so its history reads where it left the flow.
 */
export async function closeItemFlow(db: Db, now: number, orderItemId: string, coreStatus: 'CANCELED' | 'RETURNED' | 'EXCHANGED') {
  const row = await findItemFlow(db, orderItemId);
  if (row) {
    if (row.claimHold) await releaseClaimHold(db, now, orderItemId);
    await db.update(orderItemFlows).set({ coreStatus, updatedAt: now }).where(eq(orderItemFlows.orderItemId, orderItemId)).run();
    await clearTimers(db, now, orderItemId);
  }
  await q(db).setItemStatus.run({ id: orderItemId, status: coreStatus, now });
  const item = (await q(db).orderItem.get({ id: orderItemId }))!;
  return refreshOrderStatus(db, (await q(db).order.get({ id: item.orderId }))!, now);
}

export async function releaseClaimHold(db: Db, now: number, orderItemId: string) {
  const row = await findItemFlow(db, orderItemId);
  if (!row || !row.claimHold) return;
  await db.update(orderItemFlows).set({ claimHold: false, updatedAt: now }).where(eq(orderItemFlows.orderItemId, orderItemId)).run();
  const scope = await holdScope(db, { ...row, claimHold: false });
  if (scope.some((r) => r.orderItemId !== orderItemId && r.claimHold)) return;
  for (const member of scope) {
    await db.update(flowTimers).set({ status: 'PENDING', dueAt: sql`${now} + ${flowTimers.remainingMs}`, remainingMs: null, updatedAt: now })
      .where(and(eq(flowTimers.orderItemId, member.orderItemId), eq(flowTimers.status, 'PAUSED'))).run();
  }
}
