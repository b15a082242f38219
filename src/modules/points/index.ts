import { transaction } from '../../db/client.js';
import type { Module } from '../../server/module.js';
import { findCustomer } from '../customers/index.js';
import { findOrder, findOrderItem } from '../orders/index.js';
import { pointOperations } from './operations.js';
import { earnOnPurchaseDecision, expireLots } from './service.js';

/** Points: the policy, the ledger, earning on purchase decision and expiry; their use at checkout is in checkout/discounts.ts. */
export const pointsModule: Module = {
  name: 'points',
  operations: pointOperations,
  jobs: [{ name: 'points.expiry', run: (services, now) => transaction(services.db, () => expireLots(services.db, now)) }],
  on: {
    orderItemMoved: async ({ db }, move) => {
      if (move.coreStatus !== 'PURCHASE_DECIDED' || move.previousCoreStatus === 'PURCHASE_DECIDED') return;
      const item = (await findOrderItem(db, move.orderItemId))!;
      const { customerId } = (await findOrder(db, move.orderId))!;
      const withdrawnAt = customerId ? ((await findCustomer(db, customerId))?.withdrawnAt ?? null) : null;
      await earnOnPurchaseDecision(
        db,
        move.at,
        { storeId: move.storeId, orderId: move.orderId, orderItemId: move.orderItemId },
        { customerId, withdrawnAt },
        item,
      );
    },
  },
};

export { assertPointUse, pointsOfSheet, returnPaymentPoints, returnPoints, spend } from './service.js';
