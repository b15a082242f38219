import { and, eq, gte, lte } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { addDays, daysBetween } from '../../kernel/dates.js';
import { analyticsDayRows, analyticsRuns } from './schema.js';

/**
 * The metrics of spec 01 §5.8 (figures per Korean date and dimension) and how reports read them back. The
 * rows are computed by the job (`recompute.ts`) from sessions (`sessions.ts`).
 */

export const DIMENSIONS = ['day', 'product', 'source', 'device', 'path', 'term', 'step'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const STEPS = ['SESSION', 'PRODUCT_VIEW', 'CART_ADD', 'CHECKOUT_START', 'PURCHASE'] as const;

export const FIGURES = [
  'sessions',
  'engagedSessions',
  'visitors',
  'pageViews',
  'dwellSeconds',
  'productViews',
  'listViews',
  'cartAdds',
  'checkoutStarts',
  'purchases',
  'purchaseAmount',
  'testPurchases',
  'testPurchaseAmount',
  'searches',
  'zeroResultSearches',
  'excludedBotSessions',
] as const;
export type Figure = (typeof FIGURES)[number];
export type Figures = Record<Figure, number>;
export const zeroFigures = (): Figures => Object.fromEntries(FIGURES.map((f) => [f, 0])) as Figures;

export const lastComputedAt = async (db: Db): Promise<number | null> =>
  (await db.select({ computedAt: analyticsRuns.computedAt }).from(analyticsRuns).where(eq(analyticsRuns.id, 'aggregate')).get())?.computedAt ?? null;

/**
 * How a period reads from the month rows: whole months from their rows; a month the period cuts either
 * from the day rows inside the period or as the month's row less the day rows outside it, whichever
 * reads fewer rows (92 days from the 2nd: 1 day row out of September, 2 months, 2 day rows of December).
 */
export function periodParts(from: string, to: string) {
  const months: string[] = [];
  const added: [string, string][] = [];
  const taken: [string, string][] = [];
  for (let start = `${from.slice(0, 7)}-01`; start <= to;) {
    const next = addDays(start, 32).slice(0, 7) + '-01';
    const end = addDays(next, -1);
    const first = from > start ? from : start;
    const last = to < end ? to : end;
    const inside = daysBetween(first, last) + 1;
    const outside = daysBetween(start, end) + 1 - inside;
    if (outside > 0 && inside <= outside + 1) added.push([first, last]);
    else {
      months.push(start.slice(0, 7));
      if (first > start) taken.push([start, addDays(first, -1)]);
      if (last < end) taken.push([addDays(last, 1), end]);
    }
    start = next;
  }
  return { months, added, taken };
}

/**
 * One dimension's figures per key over a period, summed in SQL from month and day rows (`periodParts`).
 * Only the figures a report shows are summed (the others read 0): 92 days of a store's products are tens
 * of thousands of day rows, and each sum costs.
 */
export async function totalsByKey(
  db: Db,
  storeId: string,
  dimension: Dimension,
  from: string,
  to: string,
  figures: readonly Figure[],
): Promise<(Figures & { key: string })[]> {
  const { months, added, taken } = periodParts(from, to);
  const columns = figures.map((f) => analyticsDayRows[f].name);
  const selects: string[] = [];
  const params: unknown[] = [];
  if (months.length) {
    selects.push(
      `SELECT key, days, ${columns.join(', ')} FROM analytics_month_rows WHERE store_id = ? AND dimension = ? AND month IN (${months.map(() => '?').join(', ')})`,
    );
    params.push(storeId, dimension, ...months);
  }
  for (const [sign, ranges] of [
    ['', added],
    ['-', taken],
  ] as const)
    for (const [first, last] of ranges) {
      selects.push(
        `SELECT key, ${sign}1 AS days, ${columns.map((c) => `${sign}${c} AS ${c}`).join(', ')} FROM analytics_day_rows WHERE store_id = ? AND dimension = ? AND date >= ? AND date <= ?`,
      );
      params.push(storeId, dimension, first, last);
    }
  const query = `SELECT key, ${columns.map((c) => `sum(${c})`).join(', ')} FROM (${selects.join(' UNION ALL ')}) AS period_rows GROUP BY key HAVING sum(days) > 0`;
  const rows = (await db.$client
    .prepare(query)
    .raw()
    .all(...params)) as unknown[][];
  return rows.map(([key, ...sums]) => {
    const row = { ...zeroFigures(), key: key as string };
    figures.forEach((f, i) => (row[f] = Number(sums[i])));
    return row;
  });
}

/** The stored rows of a period. */
export function dayRows(db: Db, storeId: string, dimension: Dimension, from: string, to: string) {
  return db
    .select()
    .from(analyticsDayRows)
    .where(
      and(eq(analyticsDayRows.storeId, storeId), eq(analyticsDayRows.dimension, dimension), gte(analyticsDayRows.date, from), lte(analyticsDayRows.date, to)),
    )
    .orderBy(analyticsDayRows.date, analyticsDayRows.key)
    .all();
}
