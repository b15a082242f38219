import type { Module } from '../../server/module.js';
import { cancelOperations } from './cancel-operations.js';
import { claimOperations } from './claim-operations.js';
import { fileImmediateCancel } from './immediate-cancel.js';
import { withdrawOpenClaim } from './service.js';

/** After the sale: seller cancels and buyers' claims (cancel, return, exchange) on one amounts module, refunds through the gateway. */
export const claimsModule: Module = {
  name: 'claims',
  operations: [...cancelOperations, ...claimOperations],
  answers: { fileImmediateCancel },
  on: { claimWithdrawn: (services, w) => withdrawOpenClaim(services.db, w.at, w.orderItemId) },
};
