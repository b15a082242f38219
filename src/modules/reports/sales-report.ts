import { and, eq, gte, inArray, lt, sql, type Column } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { won } from '../../server/responses.js';
import { paymentAttempts, paymentRefunds } from '../checkout/schema.js';
import { kstDayStart } from '../orders/queries.js';

/**
 * The sales report of spec 01 §5.7: gateway approvals on the Korean date they were approved, completed
 * cash refunds on the date the gateway finished them (a partial cancel is one refund, failed ones never
 * count), automatic cancels on both sides. Two grouped queries over the store's approval and refund
 * indexes; the rows merge in memory.
 */

export const GROUP_BY = ['DAY', 'PROVIDER', 'METHOD', 'PROVIDER_METHOD'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
export const REPORT_METHODS = ['CARD', 'BANK_TRANSFER', 'VIRTUAL_ACCOUNT', 'MOBILE', 'EASY_PAY'] as const;

const figures = {
  paymentCount: z.number().int(),
  paymentAmount: won,
  refundCount: z.number().int(),
  refundAmount: won,
  netAmount: z.number().int().describe('payments − refunds'),
  pgFeeAmount: won.nullable().describe("The gateway's fee; null when the gateway gives none (sandbox, and the adapters today)"),
};
export const salesReportView = z.object({
  from: z.string(),
  to: z.string(),
  timezone: z.literal('Asia/Seoul'),
  currency: z.literal('KRW'),
  groupBy: z.enum(GROUP_BY),
  provider: z.enum(['pg_one', 'pg_two']).nullable(),
  method: z.enum(REPORT_METHODS).nullable(),
  includeTest: z.boolean(),
  summary: z.object(figures),
  rows: z.array(z.object({ date: z.string().nullable(), provider: z.string().nullable(), method: z.string().nullable(), ...figures })),
});

export interface ReportQuery {
  from: string;
  to: string;
  provider?: 'pg_one' | 'pg_two';
  method?: (typeof REPORT_METHODS)[number];
  groupBy: GroupBy;
  includeTest: boolean;
}

const DAY_MS = 86_400_000;
const KST_MS = 9 * 3_600_000;
/** The Korean date of an instant column, as YYYY-MM-DD. */
const kstDate = (column: Column) => sql<string>`date((${column} + ${KST_MS}) / 1000, 'unixepoch')`;
const actualMethod = sql<string>`coalesce(${paymentAttempts.approvedMethod}, ${paymentAttempts.method})`;

export function salesReport(db: Db, storeId: string, q: ReportQuery): z.output<typeof salesReportView> {
  const start = kstDayStart(q.from);
  const end = kstDayStart(q.to) + DAY_MS;
  // The attempt decides test, gateway and method, for its approval and for its refunds alike.
  const filters = [
    eq(paymentAttempts.storeId, storeId),
    q.includeTest ? undefined : eq(paymentAttempts.testPayment, false),
    q.provider ? eq(paymentAttempts.pg, q.provider) : undefined,
    q.method ? sql`${actualMethod} = ${q.method}` : undefined,
  ];
  const payments = db.select({ date: kstDate(paymentAttempts.approvedAt), provider: paymentAttempts.pg, method: actualMethod, count: sql<number>`count(*)`, amount: sql<number>`sum(${paymentAttempts.approvedAmount})` })
    .from(paymentAttempts)
    .where(and(...filters, inArray(paymentAttempts.status, ['APPROVED', 'AUTO_CANCELED']), gte(paymentAttempts.approvedAt, start), lt(paymentAttempts.approvedAt, end)))
    .groupBy(sql`1, 2, 3`).all();
  const refunds = db.select({ date: kstDate(paymentRefunds.completedAt), provider: paymentAttempts.pg, method: actualMethod, count: sql<number>`count(*)`, amount: sql<number>`sum(${paymentRefunds.amount})` })
    .from(paymentRefunds).innerJoin(paymentAttempts, eq(paymentAttempts.id, paymentRefunds.attemptId))
    .where(and(eq(paymentRefunds.storeId, storeId), ...filters, eq(paymentRefunds.status, 'COMPLETED'), gte(paymentRefunds.completedAt, start), lt(paymentRefunds.completedAt, end), sql`${paymentRefunds.amount} > 0`))
    .groupBy(sql`1, 2, 3`).all();

  const keyOf = (r: { date: string; provider: string; method: string }) => ({
    date: q.groupBy === 'DAY' ? r.date : null,
    provider: q.groupBy === 'PROVIDER' || q.groupBy === 'PROVIDER_METHOD' ? r.provider : null,
    method: q.groupBy === 'METHOD' || q.groupBy === 'PROVIDER_METHOD' ? r.method : null,
  });
  const rows = new Map<string, z.output<typeof salesReportView>['rows'][number]>();
  const rowFor = (r: { date: string; provider: string; method: string }) => {
    const key = keyOf(r);
    const id = JSON.stringify(key);
    let row = rows.get(id);
    if (!row) rows.set(id, (row = { ...key, paymentCount: 0, paymentAmount: 0, refundCount: 0, refundAmount: 0, netAmount: 0, pgFeeAmount: null }));
    return row;
  };
  for (const p of payments) {
    const row = rowFor(p);
    row.paymentCount += p.count;
    row.paymentAmount += p.amount;
  }
  for (const r of refunds) {
    const row = rowFor(r);
    row.refundCount += r.count;
    row.refundAmount += r.amount;
  }
  const sorted = [...rows.values()].map((r) => ({ ...r, netAmount: r.paymentAmount - r.refundAmount }))
    .sort((a, b) => (a.date ?? '').localeCompare(b.date ?? '') || (a.provider ?? '').localeCompare(b.provider ?? '') || (a.method ?? '').localeCompare(b.method ?? ''));
  const total = (field: 'paymentCount' | 'paymentAmount' | 'refundCount' | 'refundAmount') => sorted.reduce((n, r) => n + r[field], 0);
  const summary = { paymentCount: total('paymentCount'), paymentAmount: total('paymentAmount'), refundCount: total('refundCount'), refundAmount: total('refundAmount'), netAmount: 0, pgFeeAmount: null };
  summary.netAmount = summary.paymentAmount - summary.refundAmount;
  return { from: q.from, to: q.to, timezone: 'Asia/Seoul', currency: 'KRW', groupBy: q.groupBy, provider: q.provider ?? null, method: q.method ?? null, includeTest: q.includeTest, summary, rows: sorted };
}
