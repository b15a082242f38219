import type { Module } from '../../server/module.js';
import { paymentAdminOperations } from './admin-operations.js';
import { releaseExpiredHolds } from './discounts.js';
import { checkoutOperations } from './operations.js';
import { mountPayPages } from './pay-page.js';
import { issueCashReceipts } from './cash-receipts.js';
import { resolveConfirming } from './payment-confirmation.js';
import { retryRefunds } from './refunds.js';

export const checkoutModule: Module = {
  name: 'checkout',
  operations: [...checkoutOperations, ...paymentAdminOperations],
  jobs: [
    { name: 'checkout.confirming', run: resolveConfirming },
    { name: 'checkout.refunds', run: retryRefunds },
    { name: 'checkout.cash-receipts', run: issueCashReceipts },
    { name: 'checkout.discount-holds', run: releaseExpiredHolds },
  ],
  mount: mountPayPages,
};

declare module '../../server/module.js' {
  interface Happenings {
    /** A buyer put a product in the cart (analytics counts it as the visit's cart add). */
    cartItemAdded: { storeId: string; productId: string; headers: Headers; at: number };
    /** A buyer opened an order sheet. */
    checkoutStarted: { storeId: string; checkoutId: string; headers: Headers; at: number };
    /** A gateway approved a payment: money was taken, even when the payment is then canceled automatically. */
    paymentApproved: MoneyMoved;
    /** A refund went through at the gateway. */
    refundCompleted: MoneyMoved;
  }
}

/** Money that moved at a gateway, as the sales report counts it. */
export interface MoneyMoved {
  storeId: string;
  at: number;
  pg: string;
  /** The actual method (the approved one, else the one asked for). */
  method: string;
  testPayment: boolean;
  amount: number;
}

export { presentRefund, refundView } from './admin-operations.js';
export { runRefund } from './refunds.js';
export { findRefund, recordRefund, resumeHeldRefund, type RefundRow } from './refunds.js';
export { approvedAttemptIdOf, paymentsWithLastAttempt } from './payment-records.js';
