// Moving order items through their flows: start, actions, events and moves, closing. The effects of a move are
// applied in item-effects.ts, timers stored in item-timers.ts, and version migration lives in item-migration.ts.
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { findProduct } from '../catalog/index.js';
import { foreignUploads, ORDER_INPUT } from '../uploads/index.js';
import type { Definition } from './definition.js';
import { step, type Refusal, type Trigger } from './engine.js';
import { groupContinues, releaseClaimHold } from './claim-holds.js';
import { definitionOf, resolveFlow } from './flow-catalogue.js';
import { findItemFlow, findOrder, findOrderItem, groupOf, itemState, type ItemFlowRow, type OrderItemRow, type OrderRow } from './item-flows.js';
import { applyEffects } from './item-effects.js';
import { clearTimers } from './item-timers.js';
import { refreshOrderStatus, setItemStatus } from '../orders/index.js';
import { orderItemFlows, type RunActor, type RunTrigger } from './schema.js';

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
  /** The item's order and order item as the caller read them in this transaction, so they are not read again. */
  known?: { order: OrderRow; item: OrderItemRow };
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
 * Returns the items that moved and the order as the move left it.
 */
export async function moveItem(services: Services, now: number, row: ItemFlowRow, request: MoveRequest): Promise<{ moved: ItemFlowRow[]; order: OrderRow }> {
  const { order, moving, input } = await planMove(services, now, row, request);
  return applyEffects(services.db, now, { order, members: moving, trigger: runTrigger(request.trigger), actor: request.actor, input }, true);
}

/** What a trigger would do to the item and its group, checked as `moveItem` checks it (a refusal throws); changes nothing. */
export async function planMove(services: Services, now: number, row: ItemFlowRow, request: MoveRequest) {
  const { db } = services;
  const order = request.known?.order ?? (await findOrder(db, row.orderId))!;
  const def = await definitionOf(db, row.flowId, row.version);
  const group = await groupOf(db, row);
  const groupClaim = group.some((r) => r.claimHold);
  // An item under a claim hold is never carried along by its group: it stays where the claim found it.
  const members = group.filter((r) => r.orderItemId === row.orderItemId || (r.state === row.state && r.version === row.version && !r.claimHold));
  const stepped = (
    await Promise.all(
      members.map(async (member) => {
        const known = member.orderItemId === row.orderItemId ? request.known?.item : undefined;
        const item = known ?? (await findOrderItem(db, member.orderItemId))!;
        return { row: member, item, result: step(def, itemState(member, order, item, groupClaim), request.trigger, now) };
      }),
    )
  ).sort((a, b) => a.item.orderItemNo - b.item.orderItemNo);
  const lead = stepped.find((s) => s.row.orderItemId === row.orderItemId)!;
  if (!lead.result.ok) throw refusalError(lead.result.refusal, triggerKey(request.trigger));
  if (request.trigger.kind === 'action') await requireInputUploads(db, order.storeId, def, request.trigger.key, request.trigger.input, request.actor);
  const moving = stepped.flatMap((s) => (s.result.ok ? [{ row: s.row, item: s.item, effects: s.result.effects }] : []));
  const input = request.trigger.kind === 'action' || request.trigger.kind === 'event' ? request.trigger.input : {};
  return { order, moving, input };
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
