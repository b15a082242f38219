import { and, desc, eq, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { defineOperation } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { cashReceiptOf, presentCashReceipt } from '../orders/service.js';
import { pageQuery, paginated } from '../../server/paging.js';
import { dateInput } from '../../server/validation.js';
import { kstDayStart, periodOf, queryBool } from '../orders/queries.js';
import { attemptsOf, findPayment, paymentResult, type PaymentRow } from './payments.js';
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
  when ${payments.status} = 'COMPLETED' then case when ${refundedAmount} = 0 then 'APPROVED' when ${refundedAmount} >= ${payments.amounts}->>'totalAmount' then 'CANCELED' else 'PARTIALLY_REFUNDED' end
  when ${payments.status} = 'CONFIRMING' then 'CONFIRMING'
  when ${payments.status} = 'FAILED' then case when exists (select 1 from payment_refunds r where r.payment_id = payments.id) then 'CANCELED' else 'FAILED' end
  when ${payments.expiresAt} <= ${now} then 'FAILED'
  else 'READY' end`;

const listQuery = z.object({
  ...pageQuery(100),
  status: z.string().transform((v) => v.split(',')).pipe(z.array(z.enum(ADMIN_STATUSES))).optional(),
  provider: z.enum(['pg_one', 'pg_two']).optional(),
  method: z.enum(['CARD', 'BANK_TRANSFER', 'VIRTUAL_ACCOUNT', 'MOBILE', 'EASY_PAY', 'POINT']).optional(),
  includeTest: queryBool.default(false),
  from: dateInput.optional(),
  to: dateInput.optional(),
  keyword: z.string().trim().min(1).max(100).optional(),
}).strict();

/** Order number, transaction number, payment id, attempt id (exact) or buyer name (partial). */
function searchFilter(db: Db, keyword: string): SQL {
  const digits = keyword.replace(/-/g, '');
  const attempt = db.select({ paymentId: paymentAttempts.paymentId }).from(paymentAttempts)
    .where(or(eq(paymentAttempts.id, keyword), eq(paymentAttempts.pgTransactionId, keyword), eq(paymentAttempts.pgOrderId, keyword)));
  return or(
    /^\d{14}$/.test(digits) ? eq(payments.orderNo, Number(digits)) : undefined,
    eq(payments.id, keyword),
    eq(payments.pgTransactionId, keyword),
    inArray(payments.id, attempt),
    sql`${payments.buyerName} like ${`%${keyword.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`,
  )!;
}

function presentPayment(db: Db, p: PaymentRow & { adminStatus: AdminStatus }, now: number) {
  const attempts = attemptsOf(db, p.id);
  const approving = attempts.find((a) => a.approvedAt !== null && a.status !== 'AUTO_CANCELED') ?? attempts.find((a) => a.approvedAt !== null) ?? attempts.at(-1);
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
    amount: p.amounts.totalAmount,
    amounts: p.amounts,
    buyerName: p.guest?.name ?? p.buyerName,
    customerId: p.customerId,
    lastFailure: p.lastFailure && { ...p.lastFailure, at: isoAt(p.lastFailure.at) },
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
    handler: (ctx) => {
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
      const rows = ctx.db.select({ p: payments, adminStatus: status }).from(payments).where(where).orderBy(desc(payments.createdAt)).limit(size).offset((page - 1) * size).all();
      const total = ctx.db.select({ n: sql<number>`count(*)` }).from(payments).where(where).get()!.n;
      return { from, to, ...paginated(rows.map((r) => presentPayment(ctx.db, { ...r.p, adminStatus: r.adminStatus }, ctx.now)), page, size, total) };
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
    handler: (ctx) => {
      const payment = requireOwned(findPayment(ctx.db, ctx.params.paymentId), ctx.store.id, 'PAYMENT_NOT_FOUND');
      const adminStatus = ctx.db.select({ s: adminStatusSql(ctx.now) }).from(payments).where(eq(payments.id, payment.id)).get()!.s;
      const refunds = ctx.db.select().from(paymentRefunds).where(eq(paymentRefunds.paymentId, payment.id)).orderBy(paymentRefunds.createdAt).all();
      return {
        ...presentPayment(ctx.db, { ...payment, adminStatus }, ctx.now),
        attempts: attemptsOf(ctx.db, payment.id).map((a) => ({
          attemptId: a.id, seq: a.seq, pgOrderId: a.pgOrderId, provider: a.pg, method: a.method, easyPayProvider: a.provider, approvedMethod: a.approvedMethod,
          status: a.status, pgTransactionId: a.pgTransactionId, approvedAmount: a.approvedAmount, testPayment: a.testPayment,
          failure: a.failure && { ...a.failure, at: isoAt(a.failure.at) }, createdAt: isoAt(a.createdAt), approvedAt: a.approvedAt === null ? null : isoAt(a.approvedAt),
        })),
        refunds: refunds.map((r) => ({
          refundId: r.id, attemptId: r.attemptId, amount: r.amount, pointRefundAmount: r.pointRefundAmount, reason: r.reason, status: r.status,
          failure: r.failure && { ...r.failure, at: isoAt(r.failure.at) }, createdAt: isoAt(r.createdAt), completedAt: r.completedAt === null ? null : isoAt(r.completedAt),
        })),
        heldRefundAmount: refunds.filter((r) => r.status === 'HELD').reduce((n, r) => n + r.amount, 0),
        cashReceipt: presentCashReceipt(cashReceiptOf(ctx.db, payment.id)),
      };
    },
  }),
];
