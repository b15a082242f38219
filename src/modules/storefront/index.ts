import type { Module } from '../../server/module.js';
import { buildJobs, settleBuilds } from './builds/build.js';
import { buildOperations } from './builds/build-operations.js';
import { checkJob, stopChecks } from './builds/checks.js';
import { checkOperations } from './builds/check-operations.js';
import { domainJob } from './domains/domain-job.js';
import { editingJob, mountEditing, stopEditingServers } from './editing/editing.js';
import { editingOperations } from './editing/editing-operations.js';
import { domainOperations } from './domains/domain-operations.js';
import { closingJob } from './sites/lifecycle.js';
import { lifecycleOperations } from './sites/lifecycle-operations.js';
import { siteOperations } from './sites/operations.js';
import { provisioningJob } from './domains/provisioning.js';
import { storefrontUrlOf } from './sites/sites.js';
import { closeSiteRuntime, mountSites, serveStaticFile } from './serving/serving.js';
import { mountPostcode } from './serving/postcode.js';

/**
 * The hosted storefront: sites from templates, source upload, builds under the dependency policy, versions,
 * publish and rollback, serving and preview; custom domains, slug changes, disable, verify and checks, editing.
 */
export const storefrontModule: Module = {
  name: 'storefront',
  operations: [...siteOperations, ...buildOperations, ...domainOperations, ...lifecycleOperations, ...checkOperations, ...editingOperations],
  jobs: [...buildJobs, provisioningJob, domainJob, closingJob, checkJob, editingJob],
  mount(app, services) {
    mountSites(app, services);
    mountEditing(app, services);
    mountPostcode(app, services);
  },
  serveEarly: serveStaticFile,
  answers: { storefrontUrlOf },
  async onClose(services) {
    await settleBuilds(services);
    await stopChecks(services);
    await stopEditingServers(services);
    await closeSiteRuntime(services);
  },
};
export { startLiveServer, type ProjectConfig } from './editing/live-server.js';
export type { BundleResult } from './builds/bundle.js';
export { packProject, projectFiles } from './builds/source.js';
export { templatesDir } from './sites/templates.js';
export { pendingSteps, runProjectChecks, STEP_NAMES, verifyProject, WALL_CLOCK_CAP_MS, type CheckStep, type VerifyResult } from './builds/project-checks.js';
export { bubblewrapAvailable } from './builds/seller-sandbox.js';

export { certificateFor } from './domains/certificates.js';
export { connectedOrigins } from './domains/domains.js';
export { allowedOrigins } from './serving/origins.js';
export { findSite, storefrontIsPublic } from './sites/sites.js';
export { isPreviewAddress } from './serving/preview.js';
export { sitesLine } from './sites/sites.js';
export { sellerSandboxLine } from './builds/seller-sandbox.js';
export { isPreviewBrowser } from './serving/preview.js';
export { DAUM_POSTCODE_SCRIPT } from './serving/postcode.js';
