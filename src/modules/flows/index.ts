import type { Module } from '../../server/module.js';
import { flowOperations } from './operations.js';
import { ensureDefaultFlows, fireDueTimers } from './service.js';

/** Order flows: the engine every order item moves through after payment, its timers and its actions. */
export const flowsModule: Module = {
  name: 'flows',
  operations: flowOperations,
  jobs: [{ name: 'flow-timers', run: fireDueTimers }],
  onStoreCreated: (services, storeId) => ensureDefaultFlows(services.db, storeId, services.clock.now()),
};
