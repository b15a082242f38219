// Core statuses — where an order item stands whatever flow it follows — and the order's status made of its items'.
// Flows decide when an item moves; orders keep the item's and the order's status (flows ask through here).
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { placeholderValue, preparedFor } from '../../db/prepared.js';
import { orderItems, orders } from './schema.js';

/** Core statuses, least advanced first; readers tolerate values beyond these (spec 01 §6.2 rule 2). */
export const CORE_STATUSES = ['PAID', 'CONFIRMED', 'DISPATCHED', 'DELIVERED', 'FULFILLED', 'PURCHASE_DECIDED', 'CANCELED', 'RETURNED', 'EXCHANGED'] as const;
export type CoreStatus = (typeof CORE_STATUSES)[number];

const RANK: Record<string, number> = { PAID: 0, CONFIRMED: 1, DISPATCHED: 2, DELIVERED: 3, FULFILLED: 3, PURCHASE_DECIDED: 4, EXCHANGED: 4, RETURNED: 5 };
/** How far a core status is along (unknown ones count as just paid, so they never hide a lagging item). */
export const coreRank = (status: string) => RANK[status] ?? 0;

/**
 * An order's representative status (spec 01 §6.2 rule 2): the least advanced among its non-canceled
 * items; CANCELED when every item is.
 */
export function leastAdvanced(statuses: string[]): string {
  const live = statuses.filter((s) => s !== 'CANCELED');
  if (live.length === 0) return statuses.length ? 'CANCELED' : 'PAID';
  return live.reduce((least, s) => (coreRank(s) < coreRank(least) ? s : least));
}

/**
 * How far the order has begun to move: the most advanced among its non-canceled items; CANCELED when
 * every item is. Beside `status` (the least advanced) it tells a partly moved order from one in step.
 */
export function mostAdvanced(statuses: string[]): string {
  const live = statuses.filter((s) => s !== 'CANCELED');
  if (live.length === 0) return statuses.length ? 'CANCELED' : 'PAID';
  return live.reduce((most, s) => (coreRank(s) > coreRank(most) ? s : most));
}

type OrderRow = typeof orders.$inferSelect;

const q = preparedFor((db) => ({
  itemStatuses: db
    .select({ status: orderItems.status })
    .from(orderItems)
    .where(eq(orderItems.orderId, sql.placeholder('orderId')))
    .prepare(),
  setItemStatus: db
    .update(orderItems)
    .set({ status: placeholderValue('status'), updatedAt: placeholderValue('now') })
    .where(eq(orderItems.id, sql.placeholder('id')))
    .prepare(),
  setOrderStatus: db
    .update(orders)
    .set({ status: placeholderValue('status'), lastChangedAt: placeholderValue('now') })
    .where(eq(orders.id, sql.placeholder('id')))
    .prepare(),
}));

/** The core statuses of the order's items (unordered). */
export async function itemStatusesOfOrder(db: Db, orderId: string): Promise<string[]> {
  return (await q(db).itemStatuses.all({ orderId })).map((r) => r.status as string);
}

/** The item's core status after its flow moved it (the order's is refreshed separately, once per move). */
export async function setItemStatus(db: Db, orderItemId: string, status: string, now: number): Promise<void> {
  await q(db).setItemStatus.run({ id: orderItemId, status, now });
}

/** The order's status after a move: the least advanced non-canceled item (spec 01 §6.2 rule 2). */
export async function refreshOrderStatus(db: Db, order: OrderRow, now: number): Promise<OrderRow> {
  const statuses = (await q(db).itemStatuses.all({ orderId: order.id })).map((r) => r.status as string);
  const status = leastAdvanced(statuses) as OrderRow['status'];
  await q(db).setOrderStatus.run({ id: order.id, status, now });
  return { ...order, status, lastChangedAt: now };
}
