import type { Module } from '../../server/module.js';
import { couponOperations } from './operations.js';
import { endExpiredCoupons } from './service.js';
import { issueSignupCoupons } from './coupon-issuing.js';

/** Coupons: rules, the items buyers hold, and (through checkout/discounts.ts) their use in payments. */
export const couponsModule: Module = {
  name: 'coupons',
  operations: couponOperations,
  jobs: [{ name: 'coupons.end', run: (services, now) => endExpiredCoupons(services.db, now) }],
  on: { customerSignedUp: (services, signUp) => issueSignupCoupons(services.db, signUp.storeId, signUp.customerId, signUp.at) },
};

export { type AppliedCoupons, applyCoupons, type CouponLine, holdCoupons, linkCouponsToOrder, releaseCoupons } from './checkout-coupons.js';
