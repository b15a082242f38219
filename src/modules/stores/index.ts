import type { Module } from '../../server/module.js';
import { resolveStore } from './access.js';
import { storeOperations } from './operations.js';
import { assertAiActionsLeft, countAiAction, storeStillPrivate } from './usage.js';

export const storesModule: Module = {
  name: 'stores',
  operations: storeOperations,
  requestHooks: {
    storeAccess: resolveStore,
    storeNeverPublic: (services, storeId) => storeStillPrivate(services.db, storeId),
    assertAiActionsLeft: (services, storeId, now) => assertAiActionsLeft(services.db, storeId, now),
    aiActionDone: (services, storeId, now) => countAiAction(services.db, storeId, now),
  },
};
