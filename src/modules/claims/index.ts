import type { Module } from '../../server/module.js';
import { cancelOperations } from './cancel-operations.js';
import { claimOperations } from './claim-operations.js';
import { withdrawOpenClaim } from './service.js';

/** After the sale: seller cancels and buyers' claims (cancel, return, exchange) on one amounts module, refunds through the gateway. */
export const claimsModule: Module = {
  name: 'claims',
  operations: [...cancelOperations, ...claimOperations],
  on: { claimWithdrawn: (services, w) => withdrawOpenClaim(services.db, w.at, w.orderItemId) },
};
