import { and, desc, eq, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { defineOperation } from '../../server/registry.js';
import { calendarDate, instant, won } from '../../server/responses.js';
import { requireOwned } from '../../server/tenancy.js';
import { cashReceiptOf, cashReceiptView, presentCashReceipt } from '../orders/index.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { dateInput } from '../../server/validation.js';
import { EASY_PAY_PROVIDERS, METHODS, merchantOfCredential, PROVIDERS } from '../payments/index.js';
import { kstDayStart, periodOf, queryBool } from '../orders/index.js';
import { attemptsOf, findPayment, type PaymentRow } from './payment-records.js';
import { failureView, paymentResult, paymentResultEnum, presentFailure } from './payment-views.js';
import { amountsView } from '../orders/index.js';
import { paymentAttempts, paymentRefunds, payments } from './schema.js';

const tag = 'Payments';
const PAYMENT_LIST_MAX_DAYS = 92;

/** Payment record states (spec 01 §3.3); names beyond PARTIALLY_REFUNDED are ours (decisions.md). */
const ADMIN_STATUSES = ['READY', 'CONFIRMING', 'APPROVED', 'PARTIALLY_REFUNDED', 'CANCELED', 'FAILED'] as const;
type AdminStatus = (typeof ADMIN_STATUSES)[number];

// Spelled out with table names: inside a select from payments drizzle would leave the columns unqualified.
// Only the approving attempt's money decides a completed payment's status: a duplicate approval's automatic
// cancel is that attempt's own refund and shows in `refunds[]` without touching it.
const refundedAmount = sql.raw(`coalesce((select sum(r.amount) from payment_refunds r join payment_attempts a on a.id = r.attempt_id
  where r.payment_id = payments.id and r.status = 'COMPLETED' and a.status = 'APPROVED'), 0)`);
const adminStatusSql = (now: number) => sql<AdminStatus>`case
  when ${payments.status} = 'COMPLETED' then case when ${refundedAmount} = 0 then 'APPROVED' when ${refundedAmount} >= cast(json_extract(${payments.amounts}, '$.totalAmount') as integer) then 'CANCELED' else 'PARTIALLY_REFUNDED' end
  when ${payments.status} = 'CONFIRMING' then 'CONFIRMING'
  when ${payments.status} = 'FAILED' then case when exists (select 1 from payment_refunds r where r.payment_id = payments.id) then 'CANCELED' else 'FAILED' end
  when ${payments.expiresAt} <= ${now} then 'FAILED'
  else 'READY' end`;

/** A refund as payments show it (issue 13 Shapes); automatic cancels, seller cancels and claims alike. */
export const refundView = z.object({
  refundId: z.string(),
  paymentId: z.string(),
  attemptId: z.string().nullable().describe('The approving attempt refunded; null when everything went back as points'),
  claimId: z.string().nullable(),
  orderItemIds: z.array(z.string()),
  amount: won.describe('Cash given back through the gateway'),
  pointRefundAmount: won,
  reason: z
    .string()
    .describe('Automatic cancels: DUPLICATE_APPROVAL, AMOUNT_MISMATCH, OUT_OF_STOCK, PAYMENT_ENDED, PAYMENT_EXPIRED; seller cancels: SELLER_CANCEL:<reason>.'),
  status: z.enum(['REQUESTED', 'PROCESSING', 'COMPLETED', 'FAILED', 'HELD']),
  heldReason: z.string().nullable(),
  failure: failureView.nullable(),
  requestedAt: instant,
  createdAt: instant,
  completedAt: instant.nullable(),
});

export const presentRefund = (r: typeof paymentRefunds.$inferSelect): z.output<typeof refundView> => ({
  refundId: r.id,
  paymentId: r.paymentId,
  attemptId: r.attemptId || null,
  claimId: r.claimId,
  orderItemIds: r.orderItemIds,
  amount: r.amount,
  pointRefundAmount: r.pointRefundAmount,
  reason: r.reason,
  status: r.status,
  heldReason: r.heldReason,
  failure: presentFailure(r.failure),
  requestedAt: isoAt(r.createdAt),
  createdAt: isoAt(r.createdAt),
  completedAt: r.completedAt === null ? null : isoAt(r.completedAt),
});

const listQuery = z
  .object({
    ...pageQuery(100),
    status: z
      .string()
      .transform((v) => v.split(','))
      .pipe(z.array(z.enum(ADMIN_STATUSES)))
      .optional(),
    provider: z.enum(['pg_one', 'pg_two']).optional(),
    method: z.enum(['CARD', 'BANK_TRANSFER', 'VIRTUAL_ACCOUNT', 'MOBILE', 'EASY_PAY', 'POINT']).optional(),
    includeTest: queryBool.default(false),
    from: dateInput.optional(),
    to: dateInput.optional(),
    keyword: z.string().trim().min(1).max(100).optional(),
  })
  .strict();

/** Order number, transaction number, payment id, attempt id (exact) or buyer name (partial). */
function searchFilter(db: Db, keyword: string): SQL {
  const digits = keyword.replace(/-/g, '');
  const attempt = db
    .select({ paymentId: paymentAttempts.paymentId })
    .from(paymentAttempts)
    .where(or(eq(paymentAttempts.id, keyword), eq(paymentAttempts.pgTransactionId, keyword), eq(paymentAttempts.pgOrderId, keyword)));
  return or(
    /^\d{14}$/.test(digits) ? eq(payments.orderNo, Number(digits)) : undefined,
    eq(payments.id, keyword),
    eq(payments.pgTransactionId, keyword),
    inArray(payments.id, attempt),
    sql`${payments.buyerName} like ${`%${keyword.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`,
  )!;
}

/** Methods of payment records: the gateways' ones, and POINT for an order paid wholly with points. */
const RECORD_METHODS = [...METHODS, 'POINT'] as const;

/** A payment record as the admin API shows it (`presentPayment`). */
export const paymentView = z.object({
  paymentId: z.string(),
  status: z
    .enum(ADMIN_STATUSES)
    .describe('Payment record state (spec 01 §3.3): READY while windows may open, then CONFIRMING, APPROVED, PARTIALLY_REFUNDED, CANCELED or FAILED.'),
  result: paymentResultEnum.describe('The payment status buyers poll (spec 02 §2.4).'),
  provider: z.enum(PROVIDERS).nullable().describe("The approving attempt's gateway, else the last one's; null for an order paid wholly with points."),
  method: z.enum(RECORD_METHODS),
  pgTransactionId: z.string().nullable(),
  pgOrderId: z.string().nullable().describe('`<orderNo>-<attempt>` of the approving attempt (else the last one).'),
  orderId: z.string().nullable(),
  orderNo: z.number().int().describe('The 14-digit order number (YYYYMMDD + 6), given out when the payment started.'),
  checkoutId: z.string(),
  testPayment: z.boolean(),
  environment: z.enum(['TEST', 'LIVE']),
  merchant: z
    .string()
    .nullable()
    .describe("Whose gateway keys took the payment: pg_one's client key, pg_two's Store ID (never a secret); null when paid wholly with points."),
  heldRefundAmount: won.describe(
    'Sum of the HELD refunds: cash the gateway could not give back yet, waiting for the seller (`POST /payments/refunds/{refundId}/process`).',
  ),
  amount: won.describe('`amounts.totalAmount`.'),
  amounts: amountsView,
  buyerName: z.string().nullable().describe("The guest's name, else the member's name in lower case (what the keyword search matches)."),
  customerId: z.string().nullable(),
  lastFailure: failureView.nullable(),
  createdAt: instant,
  approvedAt: instant.nullable(),
  expiresAt: instant,
});

/** One payment with its attempts, refunds and cash receipt (`GET /v1/payments/{paymentId}`). */
export const paymentDetailView = paymentView.extend({
  attempts: z.array(
    z.object({
      attemptId: z.string(),
      seq: z.number().int().describe('Window order, from 1.'),
      pgOrderId: z.string(),
      provider: z.enum(PROVIDERS),
      method: z.enum(METHODS).describe('The method asked for.'),
      easyPayProvider: z.enum(EASY_PAY_PROVIDERS).nullable(),
      approvedMethod: z.enum(METHODS).nullable().describe('The method the gateway approved (e.g. a card inside an easy-pay window).'),
      status: z
        .enum(['READY', 'CONFIRMING', 'APPROVED', 'REFUSED', 'CANCELED', 'WINDOW_ERROR', 'FAILED', 'AUTO_CANCELED'])
        .describe('AUTO_CANCELED: approved, then given back because it could not become the order (see `failure.code`).'),
      pgTransactionId: z.string().nullable(),
      approvedAmount: won.nullable(),
      testPayment: z.boolean(),
      failure: failureView.nullable(),
      createdAt: instant,
      approvedAt: instant.nullable(),
    }),
  ),
  refunds: z.array(refundView),
  cashReceipt: cashReceiptView.nullable(),
});

/** Cash of a payment's refunds the gateway holds (spec 01 §5.4 `heldRefundAmount`). */
const heldRefundAmountOf = async (db: Db, paymentId: string) =>
  Number(
    (await db
      .select({ amount: sql<number>`coalesce(sum(${paymentRefunds.amount}), 0)` })
      .from(paymentRefunds)
      .where(and(eq(paymentRefunds.paymentId, paymentId), eq(paymentRefunds.status, 'HELD')))
      .get())!.amount,
  );

async function presentPayment(db: Db, p: PaymentRow & { adminStatus: AdminStatus }, now: number) {
  const attempts = await attemptsOf(db, p.id);
  const approving =
    attempts.find((a) => a.approvedAt !== null && a.status !== 'AUTO_CANCELED') ?? attempts.find((a) => a.approvedAt !== null) ?? attempts.at(-1);
  return {
    paymentId: p.id,
    status: p.adminStatus,
    result: paymentResult(p, attempts.at(-1), now),
    provider: p.pg,
    method: p.method,
    pgTransactionId: p.pgTransactionId,
    pgOrderId: approving?.pgOrderId ?? null,
    orderId: p.orderId,
    orderNo: p.orderNo,
    checkoutId: p.checkoutId,
    testPayment: p.testPayment,
    environment: p.testPayment ? 'TEST' : 'LIVE',
    merchant: await merchantOfCredential(db, approving?.credentialId ?? null),
    heldRefundAmount: await heldRefundAmountOf(db, p.id),
    amount: p.amounts.totalAmount,
    amounts: p.amounts,
    buyerName: p.guest?.name ?? p.buyerName,
    customerId: p.customerId,
    lastFailure: presentFailure(p.lastFailure),
    createdAt: isoAt(p.createdAt),
    approvedAt: approving?.approvedAt ? isoAt(approving.approvedAt) : null,
    expiresAt: isoAt(p.expiresAt),
  };
}

export const paymentAdminOperations = [
  defineOperation({
    operationId: 'listPayments',
    method: 'GET',
    path: '/v1/payments',
    summary: 'Payment records: status, provider, method, includeTest, period (default last 30 days, at most 92), keyword search',
    tag,
    auth: 'store',
    scope: 'settlement:r',
    query: listQuery,
    response: pageOf(paymentView)
      .extend({ from: calendarDate, to: calendarDate })
      .describe('`from`/`to`: the period listed (Korean calendar days), defaults filled in.'),
    errors: { 400: ['INVALID_PARAMETER', 'RANGE_TOO_WIDE'] },
    handler: async (ctx) => {
      const { from, to } = periodOf(ctx.query.from, ctx.query.to, ctx.now, PAYMENT_LIST_MAX_DAYS);
      const status = adminStatusSql(ctx.now);
      const filters: (SQL | undefined)[] = [
        eq(payments.storeId, ctx.store.id),
        gte(payments.createdAt, kstDayStart(from)),
        lt(payments.createdAt, kstDayStart(to, 1)),
        ctx.query.includeTest ? undefined : eq(payments.testPayment, false),
        ctx.query.provider ? eq(payments.pg, ctx.query.provider) : undefined,
        ctx.query.method ? eq(payments.method, ctx.query.method) : undefined,
        ctx.query.status ? inArray(status, ctx.query.status) : undefined,
        ctx.query.keyword ? searchFilter(ctx.db, ctx.query.keyword) : undefined,
      ];
      const where = and(...filters);
      const { page, size } = ctx.query;
      const rows = await ctx.db
        .select({ p: payments, adminStatus: status })
        .from(payments)
        .where(where)
        .orderBy(desc(payments.createdAt))
        .limit(size)
        .offset((page - 1) * size)
        .all();
      const total = (await ctx.db
        .select({ n: sql<number>`count(*)` })
        .from(payments)
        .where(where)
        .get())!.n;
      const views = await Promise.all(rows.map((r) => presentPayment(ctx.db, { ...r.p, adminStatus: r.adminStatus }, ctx.now)));
      return { from, to, ...paginated(views, page, size, total) };
    },
  }),
  defineOperation({
    operationId: 'getPayment',
    method: 'GET',
    path: '/v1/payments/{paymentId}',
    summary: 'A payment record with attempts (in window order), refunds and cash receipt',
    tag,
    auth: 'store',
    scope: 'settlement:r',
    params: z.object({ paymentId: z.string() }).strict(),
    response: paymentDetailView,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['PAYMENT_NOT_FOUND'] },
    handler: async (ctx) => {
      const payment = requireOwned(await findPayment(ctx.db, ctx.params.paymentId), ctx.store.id, 'PAYMENT_NOT_FOUND');
      const adminStatus = (await ctx.db
        .select({ s: adminStatusSql(ctx.now) })
        .from(payments)
        .where(eq(payments.id, payment.id))
        .get())!.s;
      const refunds = await ctx.db.select().from(paymentRefunds).where(eq(paymentRefunds.paymentId, payment.id)).orderBy(paymentRefunds.createdAt).all();
      return {
        ...(await presentPayment(ctx.db, { ...payment, adminStatus }, ctx.now)),
        attempts: (await attemptsOf(ctx.db, payment.id)).map((a) => ({
          attemptId: a.id,
          seq: a.seq,
          pgOrderId: a.pgOrderId,
          provider: a.pg,
          method: a.method,
          easyPayProvider: a.provider,
          approvedMethod: a.approvedMethod,
          status: a.status,
          pgTransactionId: a.pgTransactionId,
          approvedAmount: a.approvedAmount,
          testPayment: a.testPayment,
          failure: presentFailure(a.failure),
          createdAt: isoAt(a.createdAt),
          approvedAt: a.approvedAt === null ? null : isoAt(a.approvedAt),
        })),
        refunds: refunds.map(presentRefund),
        cashReceipt: presentCashReceipt(await cashReceiptOf(ctx.db, payment.id)),
      };
    },
  }),
];
