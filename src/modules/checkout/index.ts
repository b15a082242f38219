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
