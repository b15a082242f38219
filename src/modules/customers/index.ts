import type { Module } from '../../server/module.js';
import { defineMessages } from '../../server/messages.js';
import { memberOperations } from './members.js';
import { customerOperations } from './operations.js';
import { buyerContext } from './service.js';

defineMessages({
  CUSTOMER_NOT_FOUND: '구매자를 찾을 수 없습니다.',
  STORE_NOT_FOUND: '상점을 찾을 수 없습니다.',
});

export const customersModule: Module = { name: 'customers', operations: [...customerOperations, ...memberOperations], requestHooks: { buyerOf: buyerContext } };

declare module '../../server/module.js' {
  interface Happenings {
    /** A buyer signed up as a member of a store (inside the sign-up transaction): sign-up coupons, welcome points. */
    customerSignedUp: { storeId: string; customerId: string; at: number };
  }
}

export { findCustomer, loadCustomer } from './service.js';

export { type Customer, resolveBuyer } from './service.js';
export { storeCustomersByIds } from './service.js';
