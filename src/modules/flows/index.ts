import type { Module } from '../../server/module.js';
import { deliverAppNotifications } from './app-channels.js';
import { authoringOperations } from './authoring-operations.js';
import { flowOperations } from './operations.js';
import { fireDueTimers } from './due-timers.js';
import { ensureDefaultFlows } from './flow-catalogue.js';

/** Order flows: the engine every order item moves through after payment, its timers and its actions. */
export const flowsModule: Module = {
  name: 'flows',
  operations: [...flowOperations, ...authoringOperations],
  jobs: [{ name: 'flow-timers', run: fireDueTimers }, { name: 'flow-app-notifications', run: deliverAppNotifications }],
  onStoreCreated: (services, storeId) => ensureDefaultFlows(services.db, storeId, services.clock.now()),
};
