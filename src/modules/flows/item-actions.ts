// Running flow actions for a seller or buyer: on one item (and its group) or on a whole order.
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { findOrder } from '../orders/index.js';
import { cancelByAction, type ImmediateCancel, type RefundsAfterCommit } from './immediate-cancel.js';
import { itemAndOrder, itemFlowsOfOrder, loadItemFlow, presentItemFlow, type ItemFlowRow, type OrderItemRow, type OrderRow } from './item-flows.js';
import { moveItem } from './item-moves.js';

type Actor = 'SELLER' | 'BUYER';

/** The item's flow as it answers an action; `known` are its order item and order as they stand now, not read again. */
export async function itemView(db: Db, row: ItemFlowRow, now: number, actor?: Actor, known?: { item: OrderItemRow; order: OrderRow }) {
  const { item, order } = known ?? (await itemAndOrder(db, row));
  const view = await presentItemFlow(db, row, order, item, now);
  return actor ? { ...view, actions: view.actions.filter((a) => a.actor === actor) } : view;
}

/** The item's view after a buyer's immediate cancel: the claim that canceled it beside its closed flow. */
async function canceledView(db: Db, storeId: string, orderItemId: string, now: number, canceled: ImmediateCancel) {
  const { row } = await loadItemFlow(db, storeId, orderItemId, now);
  return { ...(await itemView(db, row, now, 'BUYER')), claim: canceled.claim };
}

/**
 * An action on one item (and its group); answers the item's flow as it stands after. A buyer's
 * IMMEDIATE_CANCEL files a cancel claim instead, whose refund joins `refunds` for after the commit.
 * `known` are the item's order item and order as the caller read them in this transaction.
 */
export async function runItemAction(
  services: Services,
  now: number,
  row: ItemFlowRow,
  key: string,
  actor: { type: Actor; id: string | null },
  input: Record<string, unknown>,
  refunds: RefundsAfterCommit = [],
  known?: { item: OrderItemRow; order: OrderRow },
) {
  const canceled = await cancelByAction(services, now, row, { key, actor, scope: 'ITEM', input });
  if (canceled) {
    refunds.push(canceled.sendRefund);
    return canceledView(services.db, row.storeId, row.orderItemId, now, canceled);
  }
  const { moved, order } = await moveItem(services, now, row, { trigger: { kind: 'action', key, actor: actor.type, scope: 'ITEM', input }, actor, known });
  const after = moved.find((m) => m.orderItemId === row.orderItemId) ?? row;
  // A move writes only the item's status of its order item, which the view does not read; the order is as the move left it.
  return itemView(services.db, after, now, actor.type === 'BUYER' ? 'BUYER' : undefined, known && { item: known.item, order });
}

/**
 * A whole-order action: run on each item (once per progression group) whose state offers it; items that
 * do not are left alone. None offering it is ACTION_NOT_AVAILABLE; any other refusal changes nothing.
 * A buyer's IMMEDIATE_CANCEL cancels each item offering it by a claim of its own.
 */
export async function runOrderAction(
  services: Services,
  now: number,
  orderId: string,
  key: string,
  actor: { type: Actor; id: string | null },
  input: Record<string, unknown>,
  refunds: RefundsAfterCommit = [],
) {
  const { db } = services;
  const touched = new Set<string>();
  const cancels = new Map<string, ImmediateCancel>();
  let firstRefusal: unknown = null;
  for (const candidate of await itemFlowsOfOrder(db, orderId, now)) {
    if (touched.has(candidate.orderItemId)) continue;
    const { row } = await loadItemFlow(db, candidate.storeId, candidate.orderItemId, now);
    try {
      const canceled = await cancelByAction(services, now, row, { key, actor, scope: 'ORDER', input });
      if (canceled) {
        refunds.push(canceled.sendRefund);
        cancels.set(row.orderItemId, canceled);
        touched.add(row.orderItemId);
        continue;
      }
      const { moved } = await moveItem(services, now, row, { trigger: { kind: 'action', key, actor: actor.type, scope: 'ORDER', input }, actor });
      for (const m of moved) touched.add(m.orderItemId);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ACTION_NOT_AVAILABLE') throw error;
      firstRefusal ??= error;
    }
  }
  if (touched.size === 0) throw firstRefusal ?? fail(409, 'ACTION_NOT_AVAILABLE', { key, reason: 'NOT_IN_STATE' });
  const order = (await findOrder(db, orderId))!;
  const buyer = actor.type === 'BUYER' ? 'BUYER' : undefined;
  const rows = (await itemFlowsOfOrder(db, orderId, now)).filter((r) => touched.has(r.orderItemId));
  const views = await Promise.all(
    rows.map(async (r) => {
      const canceled = cancels.get(r.orderItemId);
      return canceled ? { ...(await itemView(db, r, now, buyer)), claim: canceled.claim } : itemView(db, r, now, buyer);
    }),
  );
  return { orderId, status: order.status, items: views };
}
