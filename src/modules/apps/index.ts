import type { Module } from '../../server/module.js';
import { runDueDeliveries, runDueSchedules } from './jobs.js';
import { appOperations } from './operations.js';
import { mountAppRoutes } from './routes.js';
import { closeRuntime } from './sandbox.js';
import { eraseUninstalled, pruneExecutions } from './service.js';

export const appsModule: Module = {
  name: 'apps',
  operations: appOperations,
  mount: mountAppRoutes,
  onClose: closeRuntime,
  jobs: [
    { name: 'apps.erase-uninstalled', run: eraseUninstalled },
    { name: 'apps.schedules', run: runDueSchedules },
    { name: 'apps.deliveries', run: runDueDeliveries },
    { name: 'apps.prune-executions', run: pruneExecutions },
  ],
};
