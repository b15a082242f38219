import { fail } from './errors.js';

/**
 * Every store-owned row is looked up by id and then held against the request's store: a row of another
 * store is 403 `TENANT_MISMATCH` (spec 01 §7), a missing one 404 with the resource's own code.
 */
export function requireOwned<T extends { storeId: string }>(row: T | undefined, storeId: string, notFoundCode = 'NOT_FOUND'): T {
  if (!row) throw fail(404, notFoundCode);
  if (row.storeId !== storeId) throw fail(403, 'TENANT_MISMATCH');
  return row;
}
