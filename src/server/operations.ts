import { accountOperations } from '../modules/accounts/operations.js';
import { auditOperations } from '../modules/audit/operations.js';
import { storeOperations } from '../modules/stores/operations.js';
import type { Operation } from './registry.js';

/** The operation registry: every HTTP operation of the service, one module after another. */
export const operations: Operation[] = [
  ...accountOperations,
  ...storeOperations,
  ...auditOperations,
];
