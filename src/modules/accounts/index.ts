import type { Module } from '../../server/module.js';
import { mountOAuth } from './oauth.js';
import { accountOperations } from './operations.js';
import { authenticate } from './principal.js';
import { pruneExpiredGrants } from './service.js';

export const accountsModule: Module = {
  name: 'accounts',
  operations: accountOperations,
  mount: mountOAuth,
  requestHooks: { principalOf: authenticate },
  jobs: [{ name: 'accounts.prune-grants', run: pruneExpiredGrants }],
};
