import type { Module } from '../../server/module.js';
import { resolveInstallationPrincipal } from './installation-tokens.js';
import { runDueDeliveries, runDueSchedules } from './jobs.js';
import { appOperations } from './operations.js';
import { mountAppRoutes } from './routes.js';
import { closeRuntime } from './isolates.js';
import { pruneExecutions } from './executions.js';
import { eraseUninstalled } from './installations.js';

export const appsModule: Module = {
  name: 'apps',
  operations: appOperations,
  mount: mountAppRoutes,
  onClose: closeRuntime,
  tokenPrincipals: { installation: resolveInstallationPrincipal },
  jobs: [
    { name: 'apps.erase-uninstalled', run: eraseUninstalled },
    { name: 'apps.schedules', run: runDueSchedules },
    { name: 'apps.deliveries', run: runDueDeliveries },
    { name: 'apps.prune-executions', run: pruneExecutions },
  ],
};

export { activeInstallation, findApp, findAppByHandle, findInstallation, findVersion } from './app-records.js';
export { recordIfNotRunnable } from './executions.js';
export { notifyStoreApps } from './installations.js';
export { invokeAndRecord } from './invoke.js';
export { appBaseUrl } from './app-views.js';
export { activeInstallationsOfStore } from './app-records.js';
