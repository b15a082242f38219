// Moving order items through their flows: start, actions, events and moves, their effects, version migration, closing.
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor, placeholderValue } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { announce } from '../../server/hooks.js';
import type { Services } from '../../server/services.js';
import { queueMail } from '../../server/mail.js';
import { findProduct } from '../catalog/index.js';
import { findCustomer } from '../customers/index.js';
import { emitEvent } from '../events/index.js';
import { foreignUploads, ORDER_INPUT } from '../uploads/index.js';
import { APP_CHANNEL, type Definition } from './definition.js';
import { entering, step, type Effects, type Refusal, type TimerSet, type Trigger } from './engine.js';
import { enqueueAppNotification } from './app-channels.js';
import { groupContinues, releaseClaimHold } from './claim-holds.js';
import { definitionOf, ENDED_CORE_STATUSES, resolveFlow } from './flow-catalogue.js';
import { findItemFlow, findOrder, findOrderItem, groupOf, itemState, type ItemFlowRow, type OrderItemRow, type OrderRow } from './item-flows.js';
import { refreshOrderStatus, setItemStatus } from '../orders/index.js';
import { flowRuns, flowTimers, orderItemFlows, type RunActor, type RunNotification, type RunTrigger } from './schema.js';

const q = preparedFor((db) => ({
  // A move's writes are prepared once: seller actions are a hot path (issue 11 bench: ≥ 1,000 moves/s).
  moveItemFlow: db
    .update(orderItemFlows)
    .set({
      state: placeholderValue('state'),
      coreStatus: placeholderValue('coreStatus'),
      enteredAt: placeholderValue('now'),
      fulfilledAt: placeholderValue('fulfilledAt'),
      inputs: placeholderValue('inputsJson'),
      updatedAt: placeholderValue('now'),
    })
    .where(eq(orderItemFlows.orderItemId, sql.placeholder('id')))
    .prepare(),
  clearTimers: db
    .update(flowTimers)
    .set({ status: 'CLEARED', updatedAt: placeholderValue('now') })
    .where(and(eq(flowTimers.orderItemId, sql.placeholder('id')), inArray(flowTimers.status, ['PENDING', 'PAUSED'])))
    .prepare(),
  insertRun: db
    .insert(flowRuns)
    .values({
      id: sql.placeholder('id'),
      storeId: sql.placeholder('storeId'),
      orderId: sql.placeholder('orderId'),
      orderItemId: sql.placeholder('orderItemId'),
      flowId: sql.placeholder('flowId'),
      version: sql.placeholder('version'),
      trigger: sql.placeholder('trigger'),
      actor: sql.placeholder('actor'),
      input: sql.placeholder('input'),
      from: sql.placeholder('from'),
      to: sql.placeholder('to'),
      coreStatus: sql.placeholder('coreStatus'),
      notifications: sql.placeholder('notifications'),
      timers: sql.placeholder('timers'),
      eventIds: sql.placeholder('eventIds'),
      at: sql.placeholder('at'),
    })
    .prepare(),
}));

/**
 * Fixes each new item's flow and version and enters the initial state (its timers and notifications), in
 * the transaction that writes the order. Items of an `ORDER`-progression flow form one group per order.
 */
export async function startOrderFlows(db: Db, now: number, order: OrderRow, items: OrderItemRow[]) {
  const groups = new Map<string, string>();
  for (const item of items) {
    const product = await findProduct(db, item.productId);
    const { flow, version } = await resolveFlow(
      db,
      { storeId: order.storeId, flowId: product?.flowId ?? null, categoryId: product?.categoryId ?? null, fulfillment: item.fulfillmentSnapshot },
      now,
    );
    const def = await definitionOf(db, flow.id, version);
    let groupId: string | null = null;
    if (def.progression === 'ORDER') {
      const key = `${flow.id}:${version}`;
      groupId = groups.get(key) ?? newId('grp', now);
      groups.set(key, groupId);
    }
    const row: ItemFlowRow = {
      orderItemId: item.id,
      storeId: order.storeId,
      orderId: order.id,
      flowId: flow.id,
      version,
      state: def.initial,
      coreStatus: def.states[def.initial].coreStatus,
      groupId,
      claimHold: false,
      inputs: {},
      enteredAt: now,
      fulfilledAt: null,
      updatedAt: now,
    };
    await db.insert(orderItemFlows).values(row).run();
    const result = step(def, itemState(row, order, item, false), { kind: 'start' }, now);
    if (!result.ok) continue;
    await applyEffects(db, now, {
      order,
      members: [{ row, item, effects: result.effects }],
      trigger: { kind: 'start' },
      actor: { type: 'SYSTEM', id: null },
      input: {},
    });
  }
}

export interface MoveRequest {
  trigger: Trigger;
  actor: RunActor;
}

/** A refusal of the engine as the API answers it (spec 02 §4.4). */
function refusalError(refusal: Refusal, key: string | null) {
  switch (refusal.code) {
    case 'ACTION_NOT_AVAILABLE':
    case 'FLOW_MOVE_NOT_ALLOWED':
      return fail(409, refusal.code, { key, reason: refusal.reason });
    case 'FLOW_ACTION_INPUT_INVALID':
      return fail(400, refusal.code, { key, issues: refusal.issues });
    case 'FLOW_EVENT_NOT_ACCEPTED':
      return fail(409, refusal.code, { key });
    case 'TIMER_STALE':
      return fail(409, 'FLOW_MOVE_NOT_ALLOWED', { key, reason: 'TIMER_STALE' });
  }
}

/**
 * Runs a trigger on an item — and, under `progression: ORDER`, on every item of its group in the same
 * state — inside the caller's transaction. A refusal throws the API error and changes nothing.
 * Returns the items that moved.
 */
export async function moveItem(services: Services, now: number, row: ItemFlowRow, request: MoveRequest): Promise<ItemFlowRow[]> {
  const { db } = services;
  const order = (await findOrder(db, row.orderId))!;
  const def = await definitionOf(db, row.flowId, row.version);
  const group = await groupOf(db, row);
  const groupClaim = group.some((r) => r.claimHold);
  // An item under a claim hold is never carried along by its group: it stays where the claim found it.
  const members = group.filter((r) => r.orderItemId === row.orderItemId || (r.state === row.state && r.version === row.version && !r.claimHold));
  const stepped = (
    await Promise.all(
      members.map(async (member) => {
        const item = (await findOrderItem(db, member.orderItemId))!;
        return { row: member, item, result: step(def, itemState(member, order, item, groupClaim), request.trigger, now) };
      }),
    )
  ).sort((a, b) => a.item.orderItemNo - b.item.orderItemNo);
  const lead = stepped.find((s) => s.row.orderItemId === row.orderItemId)!;
  if (!lead.result.ok) throw refusalError(lead.result.refusal, triggerKey(request.trigger));
  if (request.trigger.kind === 'action') await requireInputUploads(db, order.storeId, def, request.trigger.key, request.trigger.input, request.actor);
  const moving = stepped.flatMap((s) => (s.result.ok ? [{ row: s.row, item: s.item, effects: s.result.effects }] : []));
  const input = request.trigger.kind === 'action' || request.trigger.kind === 'event' ? request.trigger.input : {};
  return applyEffects(db, now, { order, members: moving, trigger: runTrigger(request.trigger), actor: request.actor, input }, true);
}

/**
 * Image inputs must name pictures of this store: a buyer's order-input uploads, or for a seller also its
 * flow attachments. Another store's upload reads as missing, so ids cannot be probed across stores.
 */
async function requireInputUploads(db: Db, storeId: string, def: Definition, key: string, input: Record<string, unknown>, actor: RunActor) {
  const images = (def.actions[key]?.inputs ?? []).filter((d) => d.kind === 'image' && typeof input[d.key] === 'string');
  const purposes = actor.type === 'BUYER' ? [ORDER_INPUT] : [ORDER_INPUT, 'flow-attachment'];
  const missing = await foreignUploads(
    db,
    storeId,
    images.map((d) => input[d.key] as string),
    purposes,
  );
  const issues = images
    .filter((d) => missing.has(input[d.key] as string))
    .map((d) => ({ key: d.key, code: 'UPLOAD_NOT_FOUND' as const, message: '이 상점에 올린 사진의 uploadId가 아닙니다. 먼저 사진을 올리세요.' }));
  if (issues.length) throw refusalError({ code: 'FLOW_ACTION_INPUT_INVALID', issues }, key);
}

const triggerKey = (trigger: Trigger) =>
  trigger.kind === 'action' ? trigger.key : trigger.kind === 'event' ? trigger.name : trigger.kind === 'move' ? trigger.to : null;

function runTrigger(trigger: Trigger, timerId = ''): RunTrigger {
  switch (trigger.kind) {
    case 'move':
      return { kind: 'move', to: trigger.to, reason: trigger.reason };
    case 'start':
      return { kind: 'start' };
    case 'action':
      return { kind: 'action', key: trigger.key };
    case 'event':
      return { kind: 'event', name: trigger.name };
    case 'timer':
      return { kind: 'timer', timerId };
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
 * webhook notification), the run history, and — for moves a person or timer asked for (`tellOthers`) — the
 * `orderItemMoved` and `claimWithdrawn` announcements.
 */
async function applyEffects(db: Db, now: number, a: Application, tellOthers = false): Promise<ItemFlowRow[]> {
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
      row = {
        ...row,
        state: move.to,
        coreStatus: move.coreStatus,
        enteredAt: now,
        fulfilledAt: fulfilled,
        updatedAt: now,
        inputs: actionKey ? { ...row.inputs, [actionKey]: a.input } : row.inputs,
      };
      await q(db).moveItemFlow.run({
        id: row.orderItemId,
        state: row.state,
        coreStatus: row.coreStatus,
        now,
        fulfilledAt: fulfilled,
        inputsJson: JSON.stringify(row.inputs),
      });
      await setItemStatus(db, row.orderItemId, move.coreStatus, now);
    }
    if (m.effects.withdrawClaim) {
      await releaseClaimHold(db, now, row.orderItemId);
      row = { ...row, claimHold: false };
      if (tellOthers) await announce(db, 'claimWithdrawn', { storeId: row.storeId, orderItemId: row.orderItemId, at: now });
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
    await emit(
      'ORDER.FLOW_STATE_CHANGED',
      {
        orderId: order.id,
        orderItemIds: movedIds,
        flowId: lead.row.flowId,
        flowVersion: lead.row.version,
        from: leadMove.from,
        to: leadMove.to,
        label: leadMove.label,
        coreStatus: leadMove.coreStatus,
        changedAt: isoAt(now),
      },
      movedIds,
    );
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
      await emit(
        'ORDER.FLOW_NOTIFICATION',
        { orderId: order.id, orderItemIds: itemIds, event: name, flowId: lead.row.flowId, flowVersion: lead.row.version, state },
        itemIds,
      );
      return { ...n, sent: true };
    }
    const app = APP_CHANNEL.exec(n.channel);
    if (app) {
      const payload = {
        name: app[2],
        orderId: order.id,
        orderItemIds: itemIds,
        flowId: lead.row.flowId,
        flowVersion: lead.row.version,
        state,
        params: n.params,
      };
      return { ...n, ...(await enqueueAppNotification(db, now, order.storeId, leadRunId, app[1], app[2], payload)) };
    }
    return { ...n, ...(await mailBuyer(db, now, order, leadMove?.label ?? state, n.params)) };
  };
  const notifications: RunNotification[] = [];
  for (const n of lead.effects.notifications) notifications.push(await notify(n));

  for (const [i, m] of a.members.entries()) {
    const row = moved[i];
    await q(db).insertRun.run({
      id: m === lead ? leadRunId : newId('frn', now),
      storeId: row.storeId,
      orderId: row.orderId,
      orderItemId: row.orderItemId,
      flowId: row.flowId,
      version: row.version,
      trigger: a.trigger,
      actor: a.actor,
      input: a.input,
      from: m.effects.move ? m.effects.move.from : null,
      to: row.state,
      coreStatus: row.coreStatus,
      notifications,
      timers: m.effects.timersSet.map((t) => ({ transition: t.transition, kind: t.kind, dueAt: isoAt(t.dueAt), to: t.to })),
      eventIds: eventIds.get(row.orderItemId) ?? [],
      at: now,
    });
    const move = m.effects.move;
    if (move && tellOthers) {
      await announce(db, 'orderItemMoved', {
        storeId: row.storeId,
        orderId: row.orderId,
        orderItemId: row.orderItemId,
        from: move.from,
        to: move.to,
        previousCoreStatus: move.previousCoreStatus,
        coreStatus: move.coreStatus,
        at: now,
      });
    }
  }
  return moved;
}

/**
 * The `email` channel: a mail to the buyer through the service's mail outbox (a deployment's mailer sends
 * it; `svc dev` shows it at /_dev/v1/mail). Params `subject` and `body` override the plain notice.
 */
async function mailBuyer(db: Db, now: number, order: OrderRow, label: string, params: Record<string, unknown>): Promise<{ sent: boolean; reason?: string }> {
  const to = order.buyer.email ?? (order.customerId ? (await findCustomer(db, order.customerId))?.email : null);
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
    await db
      .insert(flowTimers)
      .values({
        id: newId('ftm', now),
        storeId: row.storeId,
        orderItemId: row.orderItemId,
        state: row.state,
        transition: t.transition,
        kind: t.kind,
        to: t.to,
        status: paused ? 'PAUSED' : 'PENDING',
        dueAt: paused ? null : t.dueAt,
        remainingMs: paused ? t.dueAt - now : null,
        createdAt: now,
        updatedAt: now,
      })
      .run();
  }
}

const clearTimers = (db: Db, now: number, orderItemId: string) => q(db).clearTimers.run({ id: orderItemId, now });

/**
 * Moves the running items of `fromVersion` onto `toVersion` (spec 02 §4.4), each into `stateOf(its state)`:
 * the state's timers are set anew from now, and each item's history gains a `migration` run. An item whose
 * state key changed fires ORDER.FLOW_STATE_CHANGED, so systems that track flow states stay in step; no
 * notification or ORDER.* status event runs (the item took no step of its flow). Returns how many items moved.
 */
export async function migrateItems(
  db: Db,
  now: number,
  flowId: string,
  fromVersion: number,
  toVersion: number,
  stateOf: (state: string) => string,
): Promise<number> {
  const def = await definitionOf(db, flowId, toVersion);
  const rows = await db
    .select()
    .from(orderItemFlows)
    .where(and(eq(orderItemFlows.flowId, flowId), eq(orderItemFlows.version, fromVersion), notInArray(orderItemFlows.coreStatus, ENDED_CORE_STATUSES)))
    .all();
  const touchedOrders = new Map<string, OrderRow>();
  for (const old of rows) {
    const state = stateOf(old.state);
    const row: ItemFlowRow = {
      ...old,
      version: toVersion,
      state,
      coreStatus: def.states[state].coreStatus,
      enteredAt: state === old.state ? old.enteredAt : now,
      updatedAt: now,
    };
    await db
      .update(orderItemFlows)
      .set({ version: row.version, state: row.state, coreStatus: row.coreStatus, enteredAt: row.enteredAt, updatedAt: now })
      .where(eq(orderItemFlows.orderItemId, row.orderItemId))
      .run();
    const order = touchedOrders.get(row.orderId) ?? (await findOrder(db, row.orderId))!;
    touchedOrders.set(row.orderId, order);
    const item = (await findOrderItem(db, row.orderItemId))!;
    if (row.coreStatus !== old.coreStatus) await setItemStatus(db, row.orderItemId, row.coreStatus, now);
    await clearTimers(db, now, row.orderItemId);
    const { timersSet } = entering(def, itemState(row, order, item, false), state, now);
    await armTimers(db, now, row, timersSet);
    const eventIds =
      state === old.state
        ? []
        : [
            (
              await emitEvent(db, now, {
                storeId: row.storeId,
                type: 'ORDER.FLOW_STATE_CHANGED',
                resource: { type: 'ORDER', id: row.orderId },
                data: {
                  orderId: row.orderId,
                  orderItemIds: [row.orderItemId],
                  flowId,
                  flowVersion: toVersion,
                  from: old.state,
                  to: state,
                  label: def.states[state].label,
                  coreStatus: row.coreStatus,
                  changedAt: isoAt(now),
                },
              })
            ).eventId,
          ];
    await db
      .insert(flowRuns)
      .values({
        id: newId('frn', now),
        storeId: row.storeId,
        orderId: row.orderId,
        orderItemId: row.orderItemId,
        flowId,
        version: toVersion,
        trigger: { kind: 'migration', fromVersion, toVersion },
        actor: { type: 'SELLER', id: null },
        input: {},
        from: old.state,
        to: state,
        coreStatus: row.coreStatus,
        notifications: [],
        timers: timersSet.map((t) => ({ transition: t.transition, kind: t.kind, dueAt: isoAt(t.dueAt), to: t.to })),
        eventIds,
        at: now,
      })
      .run();
  }
  for (const order of touchedOrders.values()) await refreshOrderStatus(db, order, now);
  return rows.length;
}

/** `data` of the ORDER.* events of spec 01 §6.2: order-level ones, and per-item ones for supply and decision. */
function orderEventData(type: string, order: OrderRow, item: OrderItemRow, row: ItemFlowRow): Record<string, unknown> {
  const base = { orderId: order.id, orderNo: order.orderNo, status: order.status, testPayment: order.testPayment };
  const perItem = type === 'ORDER.FULFILLED' || type === 'ORDER.PURCHASE_DECIDED';
  if (perItem) {
    return {
      orderId: order.id,
      orderNo: order.orderNo,
      orderItemId: item.id,
      status: order.status,
      fulfillmentSnapshot: item.fulfillmentSnapshot,
      fulfilledAt: row.fulfilledAt === null ? null : isoAt(row.fulfilledAt),
      testPayment: order.testPayment,
    };
  }
  // Non-physical supply also names the item and its fulfilment (rule of ORDER.DELIVERED).
  if (type === 'ORDER.DELIVERED' && item.fulfillmentSnapshot.type !== 'SHIPPING')
    return { ...base, orderItemId: item.id, fulfillmentSnapshot: item.fulfillmentSnapshot };
  return base;
}

/**
 * A cancel or claim ended the item (all of its quantity): its flow closes in `coreStatus` — timers cleared,
 * claim hold released, the order's status recomputed — inside the caller's transaction. The state key
 * stays where the item was, so its history reads where it left the flow.
 */
export async function closeItemFlow(db: Db, now: number, orderItemId: string, coreStatus: 'CANCELED' | 'RETURNED' | 'EXCHANGED') {
  const row = await findItemFlow(db, orderItemId);
  if (row) {
    if (row.claimHold) await releaseClaimHold(db, now, orderItemId);
    // Under groupClaim CONTINUE a canceled item leaves its group (spec 02 §4.4); the others go on without it.
    const leaves = coreStatus === 'CANCELED' && (await groupContinues(db, row));
    await db
      .update(orderItemFlows)
      .set({ coreStatus, ...(leaves && { groupId: null }), updatedAt: now })
      .where(eq(orderItemFlows.orderItemId, orderItemId))
      .run();
    await clearTimers(db, now, orderItemId);
  }
  await setItemStatus(db, orderItemId, coreStatus, now);
  const item = (await findOrderItem(db, orderItemId))!;
  return refreshOrderStatus(db, (await findOrder(db, item.orderId))!, now);
}
