// The one place flows write `orders.status`: the order's status recomputed from its items' after a move.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor, placeholderValue } from '../../db/prepared.js';
import { leastAdvanced } from './definition.js';
import type { OrderRow } from './item-flows.js';
import { orderItems, orders } from '../orders/schema.js';

const q = preparedFor((db) => ({
  itemStatuses: db.select({ status: orderItems.status }).from(orderItems).where(eq(orderItems.orderId, sql.placeholder('orderId'))).prepare(),
  setOrderStatus: db.update(orders).set({ status: placeholderValue('status'), lastChangedAt: placeholderValue('now') }).where(eq(orders.id, sql.placeholder('id'))).prepare(),
}));

/** The order's status after a move: the least advanced non-canceled item (spec 01 §6.2 rule 2). */
export async function refreshOrderStatus(db: Db, order: OrderRow, now: number): Promise<OrderRow> {
  const statuses = (await q(db).itemStatuses.all({ orderId: order.id })).map((r) => r.status as string);
  const status = leastAdvanced(statuses) as OrderRow['status'];
  await q(db).setOrderStatus.run({ id: order.id, status, now });
  return { ...order, status, lastChangedAt: now };
}
