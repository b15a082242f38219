// Running flow actions for a seller or buyer: on one item (and its group) or on a whole order.
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { findOrder } from '../orders/index.js';
import { itemAndOrder, itemFlowsOfOrder, loadItemFlow, presentItemFlow, type ItemFlowRow } from './item-flows.js';
import { moveItem } from './item-moves.js';

type Actor = 'SELLER' | 'BUYER';

export async function itemView(db: Db, row: ItemFlowRow, now: number, actor?: Actor) {
  const { item, order } = await itemAndOrder(db, row);
  const view = await presentItemFlow(db, row, order, item, now);
  return actor ? { ...view, actions: view.actions.filter((a) => a.actor === actor) } : view;
}

/** An action on one item (and its group); answers the item's flow as it stands after. */
export async function runItemAction(
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
export async function runOrderAction(
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
