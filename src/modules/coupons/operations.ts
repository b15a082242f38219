import { couponRuleOperations, couponStatusOperations } from './coupon-operations.js';
import { grantCouponOperation } from './coupon-grant-operations.js';
import { storefrontCouponOperations } from './storefront-coupon-operations.js';

/** The module's operations, in the order the API document lists them. */
export const couponOperations = [...couponRuleOperations, grantCouponOperation, ...couponStatusOperations, ...storefrontCouponOperations];
