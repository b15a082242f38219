import { z } from 'zod';
import { ApiError } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { Module } from '../../server/module.js';
import { defineOperation, reply } from '../../server/registry.js';
import { dateInput } from '../../server/validation.js';
import { periodOf, queryBool } from '../orders/index.js';
import { countPayment, countRefund } from './ledger.js';
import { GROUP_BY, REPORT_METHODS, salesReport, salesReportView } from './sales-report.js';

defineMessages({ SETTLEMENT_NOT_FOUND: '정산을 찾을 수 없습니다. 정산은 더 만들어지지 않습니다: /v1/sales-report를 쓰세요.' });

const REPORT_MAX_DAYS = 92;
/** Spec 01 §9: settlements are deprecated in favour of the sales report. */
const DEPRECATED = { deprecation: 'true', link: '</v1/sales-report>; rel=successor-version' };

const reportOperations = [
  defineOperation({
    operationId: 'getSalesReport',
    method: 'GET',
    path: '/v1/sales-report',
    summary: 'Payments and refunds by Korean date, gateway or method (default the last 30 days; at most 92)',
    tag: 'Reports',
    auth: 'store',
    scope: 'settlement:r',
    query: z
      .object({
        from: dateInput.optional(),
        to: dateInput.optional(),
        provider: z.enum(['pg_one', 'pg_two']).optional(),
        method: z.enum(REPORT_METHODS).optional(),
        groupBy: z.enum(GROUP_BY).default('DAY'),
        includeTest: queryBool.default(false),
      })
      .strict(),
    response: salesReportView,
    errors: { 400: ['INVALID_PARAMETER', 'RANGE_TOO_WIDE'] },
    handler: (ctx) => {
      const { from, to } = periodOf(ctx.query.from, ctx.query.to, ctx.now, REPORT_MAX_DAYS);
      return salesReport(ctx.db, ctx.store.id, { ...ctx.query, from, to });
    },
  }),
  defineOperation({
    operationId: 'listSettlements',
    method: 'GET',
    path: '/v1/settlements',
    summary: 'Deprecated: no settlements are made (gateways settle with the seller); use /v1/sales-report',
    tag: 'Reports',
    auth: 'store',
    scope: 'settlement:r',
    response: z.object({ contents: z.array(z.object({ settlementId: z.string() })) }),
    handler: () => reply(200, { contents: [] }, { headers: DEPRECATED }),
  }),
  defineOperation({
    operationId: 'getSettlement',
    method: 'GET',
    path: '/v1/settlements/{settlementId}',
    summary: 'Deprecated: settlements stay readable, none exist in this service; use /v1/sales-report',
    tag: 'Reports',
    auth: 'store',
    scope: 'settlement:r',
    params: z.object({ settlementId: z.string() }).strict(),
    response: z.object({ settlementId: z.string() }),
    errors: { 404: ['SETTLEMENT_NOT_FOUND'] },
    handler: () => {
      throw new ApiError(404, 'SETTLEMENT_NOT_FOUND', null, [], undefined, DEPRECATED);
    },
  }),
];

/** Reports over payments and refunds (the sales report); the deprecated settlements answer beside it. */
export const reportsModule: Module = {
  name: 'reports',
  operations: reportOperations,
  on: {
    paymentApproved: ({ db }, payment) => countPayment(db, payment),
    refundCompleted: ({ db }, refund) => countRefund(db, refund),
  },
};
