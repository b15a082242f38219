import { accountsModule } from '../modules/accounts/index.js';
import { auditModule } from '../modules/audit/index.js';
import { storesModule } from '../modules/stores/index.js';
import { catalogModule } from '../modules/catalog/index.js';
import { uploadsModule } from '../modules/uploads/index.js';
import { eventsModule } from '../modules/events/index.js';
import { webhooksModule } from '../modules/webhooks/index.js';
import { appsModule } from '../modules/apps/index.js';
import { customersModule } from '../modules/customers/index.js';
import { approvalsModule } from '../modules/approvals/index.js';
import { paymentsModule } from '../modules/payments/index.js';
import { checkoutModule } from '../modules/checkout/index.js';
import { ordersModule } from '../modules/orders/index.js';
import { flowsModule } from '../modules/flows/index.js';
import { couponsModule } from '../modules/coupons/index.js';
import { pointsModule } from '../modules/points/index.js';
import { reviewsModule } from '../modules/reviews/index.js';
import { inquiriesModule } from '../modules/inquiries/index.js';
import { claimsModule } from '../modules/claims/index.js';
import { reportsModule } from '../modules/reports/index.js';
import { storefrontModule } from '../modules/storefront/index.js';
import { mcpModule } from '../modules/mcp/index.js';
import { analyticsModule } from '../modules/analytics/index.js';
import type { Module } from './module.js';
import type { Operation } from './registry.js';

/** Every domain module of the service. A new module is one line here. */
export const modules: Module[] = [
  accountsModule,
  storesModule,
  auditModule,
  catalogModule,
  uploadsModule,
  eventsModule,
  webhooksModule,
  appsModule,
  customersModule,
  approvalsModule,
  paymentsModule,
  checkoutModule,
  ordersModule,
  flowsModule,
  couponsModule,
  pointsModule,
  reviewsModule,
  inquiriesModule,
  claimsModule,
  reportsModule,
  storefrontModule,
  mcpModule,
  analyticsModule,
];

/** The operation registry: every HTTP operation of the service. */
export const operations: Operation[] = modules.flatMap((m) => m.operations ?? []);
