import { transaction } from '../../db/client.js';
import type { Module } from '../../server/module.js';
import { collectorScript, COLLECTOR_PATH } from './collector.js';
import { purgeOldEvents, recordCartAdd, recordCheckoutStart, recordPurchase } from './ingest.js';
import { recomputeIfDue } from './recompute.js';
import { analyticsOperations } from './operations.js';

/** Visit analytics: the collector and its ingest, per-date metrics computed by a job, the eight reports. */
export const analyticsModule: Module = {
  name: 'analytics',
  operations: analyticsOperations,
  jobs: [
    { name: 'analytics.aggregate', run: (services, now) => recomputeIfDue(services.db, now) },
    { name: 'analytics.retention', run: (services, now) => transaction(services.db, () => purgeOldEvents(services.db, now)) },
  ],
  on: {
    cartItemAdded: ({ db }, add) => recordCartAdd(db, add.headers, add.storeId, add.productId, add.at),
    checkoutStarted: ({ db }, start) => recordCheckoutStart(db, start.headers, start.storeId, start.checkoutId, start.at),
    orderPlaced: ({ db }, { order, items, at }) => recordPurchase(db, order, items, at),
  },
  mount(app) {
    app.get(
      COLLECTOR_PATH,
      () =>
        new Response(collectorScript, {
          headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' },
        }),
    );
  },
};
