import type { Module } from '../../server/module.js';
import { mountOAuth } from './oauth.js';
import { accountOperations } from './operations.js';
import { pruneExpiredGrants } from './service.js';

export const accountsModule: Module = {
  name: 'accounts',
  operations: accountOperations,
  mount: mountOAuth,
  jobs: [{ name: 'accounts.prune-grants', run: pruneExpiredGrants }],
};
