// Applying the engine's effects for moving items: their state, the order's status, timers, events, notifications, run history and announcements.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor, placeholderValue } from '../../db/prepared.js';
import { announce } from '../../server/hooks.js';
import { queueMail } from '../../server/mail.js';
import { findCustomer } from '../customers/index.js';
import { emitEvent } from '../events/index.js';
import { APP_CHANNEL } from './definition.js';
import type { Effects } from './engine.js';
import { enqueueAppNotification } from './app-channels.js';
import { releaseClaimHold } from './claim-holds.js';
import type { ItemFlowRow, OrderItemRow, OrderRow } from './item-flows.js';
import { armTimers, clearTimers } from './item-timers.js';
import { refreshOrderStatus, setItemStatus } from '../orders/index.js';
import { flowRuns, orderItemFlows, type RunActor, type RunNotification, type RunTrigger } from './schema.js';

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

export interface Application {
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
 * `orderItemMoved` and `claimWithdrawn` announcements. Answers the items as they moved and the order as
 * the move left it (its status refreshed).
 */
export async function applyEffects(db: Db, now: number, a: Application, tellOthers = false): Promise<{ moved: ItemFlowRow[]; order: OrderRow }> {
  const { order } = a;
  const moved: ItemFlowRow[] = [];
  const lead = a.members[0];
  if (!lead) return { moved, order };
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
  return { moved, order: freshOrder };
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
