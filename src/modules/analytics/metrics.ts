import { and, eq, gte, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
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

/** The rows of a period summed per key in SQL (a product report over 92 days reads one row per product). */
/**
 * One dimension's figures per key over a period. Only the figures a report shows are summed (the others
 * read 0): 92 days of a store's products are tens of thousands of rows, and each sum costs.
 */
export async function totalsByKey(
  db: Db,
  storeId: string,
  dimension: Dimension,
  from: string,
  to: string,
  figures: readonly Figure[],
): Promise<(Figures & { key: string })[]> {
  const sums = Object.fromEntries(figures.map((f) => [f, sql<number>`sum(${analyticsDayRows[f]})`.mapWith(Number)]));
  const rows = (await db
    .select({ key: analyticsDayRows.key, ...sums })
    .from(analyticsDayRows)
    .where(
      and(eq(analyticsDayRows.storeId, storeId), eq(analyticsDayRows.dimension, dimension), gte(analyticsDayRows.date, from), lte(analyticsDayRows.date, to)),
    )
    .groupBy(analyticsDayRows.key)
    .all()) as Partial<Figures & { key: string }>[];
  return rows.map((row) => ({ ...zeroFigures(), ...row }) as Figures & { key: string });
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
