import { and, eq, gte, lte } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { won } from '../../server/responses.js';
import { salesDays } from './schema.js';

/**
 * The sales report of spec 01 §5.7: gateway approvals on the Korean date they were approved, completed
 * cash refunds on the date the gateway finished them (a partial cancel is one refund, failed ones never
 * count), automatic cancels on both sides. It reads the daily totals written with each approval and
 * refund (ledger.ts), at most a few hundred rows for 92 days, and groups them as asked.
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

type Row = z.output<typeof salesReportView>['rows'][number];

export async function salesReport(db: Db, storeId: string, q: ReportQuery): Promise<z.output<typeof salesReportView>> {
  const days = await db
    .select()
    .from(salesDays)
    .where(
      and(
        eq(salesDays.storeId, storeId),
        gte(salesDays.date, q.from),
        lte(salesDays.date, q.to),
        q.includeTest ? undefined : eq(salesDays.testPayment, false),
        q.provider ? eq(salesDays.pg, q.provider) : undefined,
        q.method ? eq(salesDays.method, q.method) : undefined,
      ),
    )
    .all();
  const rows = new Map<string, Row>();
  for (const d of days) {
    const key = {
      date: q.groupBy === 'DAY' ? d.date : null,
      provider: q.groupBy === 'PROVIDER' || q.groupBy === 'PROVIDER_METHOD' ? d.pg : null,
      method: q.groupBy === 'METHOD' || q.groupBy === 'PROVIDER_METHOD' ? d.method : null,
    };
    const id = JSON.stringify(key);
    const row = rows.get(id) ?? { ...key, paymentCount: 0, paymentAmount: 0, refundCount: 0, refundAmount: 0, netAmount: 0, pgFeeAmount: null };
    row.paymentCount += d.paymentCount;
    row.paymentAmount += d.paymentAmount;
    row.refundCount += d.refundCount;
    row.refundAmount += d.refundAmount;
    row.netAmount = row.paymentAmount - row.refundAmount;
    rows.set(id, row);
  }
  const sorted = [...rows.values()].sort(
    (a, b) =>
      (a.date ?? '').localeCompare(b.date ?? '') || (a.provider ?? '').localeCompare(b.provider ?? '') || (a.method ?? '').localeCompare(b.method ?? ''),
  );
  const total = (field: 'paymentCount' | 'paymentAmount' | 'refundCount' | 'refundAmount') => sorted.reduce((n, r) => n + r[field], 0);
  const summary = {
    paymentCount: total('paymentCount'),
    paymentAmount: total('paymentAmount'),
    refundCount: total('refundCount'),
    refundAmount: total('refundAmount'),
    netAmount: 0,
    pgFeeAmount: null,
  };
  summary.netAmount = summary.paymentAmount - summary.refundAmount;
  return {
    from: q.from,
    to: q.to,
    timezone: 'Asia/Seoul',
    currency: 'KRW',
    groupBy: q.groupBy,
    provider: q.provider ?? null,
    method: q.method ?? null,
    includeTest: q.includeTest,
    summary,
    rows: sorted,
  };
}
