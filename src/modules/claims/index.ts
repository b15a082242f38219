import type { Module } from '../../server/module.js';
import { claimOperations } from './operations.js';

/** After the sale: seller cancels (claims, refunds and the sales report build on the same amounts). */
export const claimsModule: Module = { name: 'claims', operations: claimOperations };
