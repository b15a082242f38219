import type { Module } from '../../server/module.js';
import { buildJobs, settleBuilds } from './build.js';
import { checkJob, stopChecks } from './checks.js';
import { checkOperations } from './check-operations.js';
import { domainJob } from './domains.js';
import { editingJob, mountEditing, stopEditingServers } from './editing.js';
import { editingOperations } from './editing-operations.js';
import { domainOperations } from './domain-operations.js';
import { closingJob } from './lifecycle.js';
import { lifecycleOperations } from './lifecycle-operations.js';
import { storefrontOperations } from './operations.js';
import { provisioningJob } from './provisioning.js';
import { closeSiteRuntime, mountSites, serveStaticFile } from './serving.js';

/**
 * The hosted storefront: sites from templates, source upload, builds under the dependency policy, versions,
 * publish and rollback, serving and preview; custom domains, slug changes, disable, verify and checks, editing.
 */
export const storefrontModule: Module = {
  name: 'storefront',
  operations: [...storefrontOperations, ...domainOperations, ...lifecycleOperations, ...checkOperations, ...editingOperations],
  jobs: [...buildJobs, provisioningJob, domainJob, closingJob, checkJob, editingJob],
  mount(app, services) {
    mountSites(app, services);
    mountEditing(app, services);
  },
  serveEarly: serveStaticFile,
  async onClose(services) {
    await settleBuilds(services);
    await stopChecks(services);
    await stopEditingServers(services);
    await closeSiteRuntime(services);
  },
};
