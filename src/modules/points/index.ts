import { eq } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import type { Module } from '../../server/module.js';
import { customers } from '../customers/schema.js';
import { orderItems, orders } from '../orders/schema.js';
import { pointOperations } from './operations.js';
import { earnOnPurchaseDecision, expireLots } from './service.js';

/** Points: the policy, the ledger, earning on purchase decision and expiry; their use at checkout is in checkout/discounts.ts. */
export const pointsModule: Module = {
  name: 'points',
  operations: pointOperations,
  jobs: [{ name: 'points.expiry', run: (services, now) => transaction(services.db, () => expireLots(services.db, now)) }],
  onOrderItemMoved: async (_services, db, move) => {
    if (move.coreStatus !== 'PURCHASE_DECIDED' || move.previousCoreStatus === 'PURCHASE_DECIDED') return;
    const item = (await db.select().from(orderItems).where(eq(orderItems.id, move.orderItemId)).get())!;
    const order = (await db.select({ customerId: orders.customerId, withdrawnAt: customers.withdrawnAt }).from(orders)
      .leftJoin(customers, eq(customers.id, orders.customerId)).where(eq(orders.id, move.orderId)).get())!;
    await earnOnPurchaseDecision(db, move.at, { storeId: move.storeId, orderId: move.orderId, orderItemId: move.orderItemId }, order, item);
  },
};
