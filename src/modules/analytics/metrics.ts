import { and, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { sqliteOf, transaction, type Db } from '../../db/client.js';
import { seoulDateOf } from '../../db/clock.js';
import { addDays, today } from '../../kernel/dates.js';
import { kstDayStart } from '../orders/index.js';
import { analyticsDayRows, analyticsRuns, type EventData } from './schema.js';

/**
 * Sessions and metrics of spec 01 §5.8, computed from raw events into per-Korean-date rows. Pure over an
 * ordered event stream (`accumulate`), so the test suite and the bench drive the same code as the job.
 */

export const IDLE_MS = 30 * 60_000;
export const PAGE_DWELL_CAP_MS = 30 * 60_000;
export const ENGAGED_DWELL_MS = 10_000;
/** The job recomputes the latest 3 Korean dates (today included) every 10 minutes. */
export const RECOMPUTE_DAYS = 3;
export const RECOMPUTE_EVERY_MS = 10 * 60_000;
/** Sessions reaching into the window from before it are rebuilt from this much earlier. */
const LOOKBACK_MS = 24 * 3_600_000;

export interface RawEvent {
  visitorId: string;
  name: string;
  at: number;
  path: string | null;
  referrerHost: string | null;
  utmSource: string | null;
  utmCampaign: string | null;
  device: string;
  bot: boolean;
  test: boolean;
  productId: string | null;
  query: string | null;
  resultCount: number | null;
  amount: number | null;
  data: EventData | null;
}

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

interface Cell extends Figures {
  visitorIds: Set<string>;
}

/** Spec 01 §5.8: search terms lower-cased, whitespace normalised. */
export const searchTerm = (query: string) => query.trim().replace(/\s+/g, ' ').toLowerCase();

/** Collects rows per `date|dimension|key` for the dates in `dates` only. */
export class Accumulator {
  readonly cells = new Map<string, Cell>();
  constructor(readonly dates: Set<string>) {}

  private cell(date: string, dimension: Dimension, key: string): Cell {
    const id = `${date}\u0000${dimension}\u0000${key}`;
    let cell = this.cells.get(id);
    if (!cell) this.cells.set(id, (cell = { ...zeroFigures(), visitorIds: new Set() }));
    return cell;
  }

  private add(date: string, dimension: Dimension, key: string, figures: Partial<Figures>, visitorId?: string) {
    const cell = this.cell(date, dimension, key);
    for (const [f, n] of Object.entries(figures) as [Figure, number][]) cell[f] += n;
    if (visitorId) cell.visitorIds.add(visitorId);
  }

  /** One visitor's events, ordered by time: cut into sessions and counted. */
  visitor(events: RawEvent[]) {
    let session: RawEvent[] = [];
    let campaign: string | null = null;
    for (const e of events) {
      const last = session.at(-1);
      const newCampaign = e.name === 'page' && e.utmCampaign !== null && e.utmCampaign !== campaign;
      if (last && (e.at - last.at >= IDLE_MS || newCampaign)) {
        this.session(session);
        session = [];
        campaign = null;
      }
      if (e.name === 'page' && e.utmCampaign !== null) campaign = e.utmCampaign;
      session.push(e);
    }
    if (session.length) this.session(session);
  }

  private session(events: RawEvent[]) {
    const dates = new Set(events.map((e) => seoulDateOf(e.at)).filter((d) => this.dates.has(d)));
    if (dates.size === 0) return;
    if (events.some((e) => e.bot)) {
      for (const date of dates) this.add(date, 'day', '', { excludedBotSessions: 1 });
      return;
    }
    const visitorId = events[0].visitorId;
    const first = events[0].at;
    const last = events.at(-1)!.at;
    const pages = events.filter((e) => e.name === 'page');
    const dwell = this.dwell(events, first, last);
    const dwellTotal = [...dwell.values()].reduce((n, d) => n + d, 0);
    const engaged =
      pages.length >= 2 || dwellTotal >= ENGAGED_DWELL_MS || events.some((e) => e.name === 'cart_add' || e.name === 'checkout_start' || e.name === 'purchase');
    const firstPage = pages[0];
    const source = !firstPage ? 'UNKNOWN' : (firstPage.utmSource ?? firstPage.referrerHost ?? 'DIRECT');
    const device = events[0].device;
    const sessionFigures = { sessions: 1, engagedSessions: engaged ? 1 : 0 };

    for (const date of dates) {
      const own = events.filter((e) => seoulDateOf(e.at) === date);
      const figures = { ...sessionFigures, ...this.eventFigures(own, dwell) };
      for (const [dimension, key] of [
        ['day', ''],
        ['source', source],
        ['device', device],
      ] as const)
        this.add(date, dimension, key, figures, visitorId);
      this.pages(date, own, dwell, visitorId);
      this.products(date, own, visitorId);
      this.terms(date, own, visitorId);
      this.steps(date, own, visitorId);
    }
  }

  /**
   * Each page's dwell: until the session's next page (or the page being hidden), else its last event; at
   * most 30 minutes per page and, in all, the session's length plus 30 minutes.
   */
  private dwell(events: RawEvent[], first: number, last: number): Map<RawEvent, number> {
    const out = new Map<RawEvent, number>();
    let budget = last - first + PAGE_DWELL_CAP_MS;
    events.forEach((e, i) => {
      if (e.name !== 'page') return;
      const next = events.slice(i + 1).find((n) => n.name === 'page' || n.name === 'page_hide');
      const ms = Math.min(Math.max(0, (next?.at ?? last) - e.at), PAGE_DWELL_CAP_MS, budget);
      budget -= ms;
      out.set(e, ms);
    });
    return out;
  }

  /** What the session's events of one date add up to (the session-level figures come separately). */
  private eventFigures(events: RawEvent[], dwell: Map<RawEvent, number>): Partial<Figures> {
    const f: Partial<Figures> = {
      pageViews: 0,
      productViews: 0,
      listViews: 0,
      cartAdds: 0,
      checkoutStarts: 0,
      searches: 0,
      zeroResultSearches: 0,
      purchases: 0,
      purchaseAmount: 0,
      testPurchases: 0,
      testPurchaseAmount: 0,
    };
    let dwellMs = 0;
    for (const e of events) {
      if (e.name === 'page') {
        f.pageViews!++;
        dwellMs += dwell.get(e) ?? 0;
      } else if (e.name === 'product_view') f.productViews!++;
      else if (e.name === 'product_list_view') f.listViews!++;
      else if (e.name === 'cart_add') f.cartAdds!++;
      else if (e.name === 'checkout_start') f.checkoutStarts!++;
      else if (e.name === 'search') {
        f.searches!++;
        if (e.resultCount === 0) f.zeroResultSearches!++;
      } else if (e.name === 'purchase') {
        if (e.test) {
          f.testPurchases!++;
          f.testPurchaseAmount! += e.amount ?? 0;
        } else {
          f.purchases!++;
          f.purchaseAmount! += e.amount ?? 0;
        }
      }
    }
    f.dwellSeconds = Math.floor(dwellMs / 1000);
    return f;
  }

  private pages(date: string, events: RawEvent[], dwell: Map<RawEvent, number>, visitorId: string) {
    const seen = new Set<string>();
    for (const e of events) {
      if (e.name !== 'page' || e.path === null) continue;
      this.add(date, 'path', e.path, { pageViews: 1, dwellSeconds: Math.floor((dwell.get(e) ?? 0) / 1000), sessions: seen.has(e.path) ? 0 : 1 }, visitorId);
      seen.add(e.path);
    }
  }

  private products(date: string, events: RawEvent[], visitorId: string) {
    const seen = new Set<string>();
    const touch = (productId: string, figures: Partial<Figures>) => {
      this.add(date, 'product', productId, { ...figures, sessions: seen.has(productId) ? 0 : 1 }, visitorId);
      seen.add(productId);
    };
    for (const e of events) {
      if (e.name === 'product_view' && e.productId) touch(e.productId, { productViews: 1 });
      else if (e.name === 'product_list_view') for (const id of new Set(e.data?.productIds ?? [])) touch(id, { listViews: 1 });
      else if (e.name === 'cart_add' && e.productId) touch(e.productId, { cartAdds: 1 });
      else if (e.name === 'purchase') {
        for (const item of e.data?.items ?? [])
          touch(item.productId, e.test ? { testPurchases: 1, testPurchaseAmount: item.amount } : { purchases: 1, purchaseAmount: item.amount });
      }
    }
  }

  /** Searches per term; a purchase later in the same session and date counts for every term searched before it. */
  private terms(date: string, events: RawEvent[], visitorId: string) {
    const searched = new Set<string>();
    for (const e of events) {
      if (e.name === 'search' && e.query !== null) {
        const term = searchTerm(e.query);
        if (!term) continue;
        this.add(date, 'term', term, { searches: 1, zeroResultSearches: e.resultCount === 0 ? 1 : 0, sessions: searched.has(term) ? 0 : 1 }, visitorId);
        searched.add(term);
      } else if (e.name === 'purchase') {
        for (const term of searched) {
          this.add(date, 'term', term, e.test ? { testPurchases: 1, testPurchaseAmount: e.amount ?? 0 } : { purchases: 1, purchaseAmount: e.amount ?? 0 });
        }
      }
    }
  }

  /** The funnel: sessions that did each step on the date, whatever steps they skipped. */
  private steps(date: string, events: RawEvent[], visitorId: string) {
    const did = (name: string) => events.some((e) => e.name === name);
    this.add(date, 'step', 'SESSION', { sessions: 1 }, visitorId);
    if (did('product_view')) this.add(date, 'step', 'PRODUCT_VIEW', { sessions: 1 }, visitorId);
    if (did('cart_add')) this.add(date, 'step', 'CART_ADD', { sessions: 1 }, visitorId);
    if (did('checkout_start')) this.add(date, 'step', 'CHECKOUT_START', { sessions: 1 }, visitorId);
    const purchases = events.filter((e) => e.name === 'purchase');
    // A session paying only with test payments shows in the funnel only with includeTest.
    if (purchases.some((e) => !e.test)) this.add(date, 'step', 'PURCHASE', { sessions: 1 }, visitorId);
    else if (purchases.length) this.add(date, 'step', 'PURCHASE', { testPurchases: 1 }, visitorId);
  }

  rows(storeId: string) {
    return [...this.cells].map(([id, { visitorIds, ...figures }]) => {
      const [date, dimension, key] = id.split('\u0000');
      return { storeId, date, dimension, key, ...figures, visitors: visitorIds.size };
    });
  }
}

// ---------------------------------------------------------------------------------------------------
// The job

const EVENT_COLUMNS = 'visitor_id, name, at, path, referrer_host, utm_source, utm_campaign, device, bot, test, product_id, query, result_count, amount, data';

function toEvent(r: unknown[]): RawEvent {
  const data = r[14];
  return {
    visitorId: r[0] as string,
    name: r[1] as string,
    at: Number(r[2]),
    path: r[3] as string | null,
    referrerHost: r[4] as string | null,
    utmSource: r[5] as string | null,
    utmCampaign: r[6] as string | null,
    device: r[7] as string,
    bot: Boolean(Number(r[8])),
    test: Boolean(Number(r[9])),
    productId: r[10] as string | null,
    query: r[11] as string | null,
    resultCount: r[12] === null ? null : Number(r[12]),
    amount: r[13] === null ? null : Number(r[13]),
    data: typeof data === 'string' ? JSON.parse(data) : (data as EventData | null),
  };
}

/** Streams a store's events of [from, to) per visitor, in time order, into the accumulator. */
export async function accumulateStore(db: Db, storeId: string, from: number, to: number, acc: Accumulator) {
  const query = `SELECT ${EVENT_COLUMNS} FROM analytics_events WHERE store_id = ? AND at >= ? AND at < ? ORDER BY visitor_id, at, id`;
  const sqlite = sqliteOf(db);
  // SQLite streams the rows (a store may hold a million events in the window); PostgreSQL's driver answers them whole.
  const rows = sqlite
    ? (sqlite.prepare(query).raw().iterate(storeId, from, to) as Iterable<unknown[]>)
    : await db.$client.prepare(query).raw().all(storeId, from, to);
  let visitor: RawEvent[] = [];
  for (const row of rows) {
    const e = toEvent(row);
    if (visitor.length && visitor[0].visitorId !== e.visitorId) {
      acc.visitor(visitor);
      visitor = [];
    }
    visitor.push(e);
  }
  if (visitor.length) acc.visitor(visitor);
}

/** Rebuilds the rows of the latest 3 Korean dates for every store with events then; returns the stores done. */
export async function recompute(db: Db, now: number): Promise<number> {
  const last = today(now);
  const dates = Array.from({ length: RECOMPUTE_DAYS }, (_, i) => addDays(last, -i)).reverse();
  const from = kstDayStart(dates[0]);
  const to = kstDayStart(last, 1);
  const storeIds = (await db.$client.prepare('SELECT DISTINCT store_id FROM analytics_events WHERE at >= ? AND at < ?').raw().all(from, to)).map(
    (r) => r[0] as string,
  );
  const stale = (await db.$client.prepare('SELECT DISTINCT store_id FROM analytics_day_rows WHERE date >= ?').raw().all(dates[0])).map((r) => r[0] as string);
  const all = [...new Set([...storeIds, ...stale])];
  for (const storeId of all) {
    const acc = new Accumulator(new Set(dates));
    await accumulateStore(db, storeId, from - LOOKBACK_MS, to, acc);
    const rows = acc.rows(storeId);
    await transaction(db, async () => {
      await db
        .delete(analyticsDayRows)
        .where(and(eq(analyticsDayRows.storeId, storeId), inArray(analyticsDayRows.date, dates)))
        .run();
      for (let i = 0; i < rows.length; i += 200)
        await db
          .insert(analyticsDayRows)
          .values(rows.slice(i, i + 200))
          .run();
    });
  }
  await db
    .insert(analyticsRuns)
    .values({ id: 'aggregate', computedAt: now })
    .onConflictDoUpdate({ target: analyticsRuns.id, set: { computedAt: now } })
    .run();
  return all.length;
}

export const lastComputedAt = async (db: Db): Promise<number | null> =>
  (await db.select({ computedAt: analyticsRuns.computedAt }).from(analyticsRuns).where(eq(analyticsRuns.id, 'aggregate')).get())?.computedAt ?? null;

/**
 * Takes the run at `now` for this process: of several processes on one database, only the one whose write
 * still finds the time it read (`last`) wins. The figures are as of `now`, so that is also the time reports show.
 */
async function claimRun(db: Db, last: number | null, now: number): Promise<boolean> {
  const claim =
    last === null
      ? db.insert(analyticsRuns).values({ id: 'aggregate', computedAt: now }).onConflictDoNothing()
      : db
          .update(analyticsRuns)
          .set({ computedAt: now })
          .where(and(eq(analyticsRuns.id, 'aggregate'), eq(analyticsRuns.computedAt, last)));
  return (await claim.run()).changes === 1;
}

/** The job's tick: a recompute when the last one is 10 minutes old (or none ran yet), by one process. */
export async function recomputeIfDue(db: Db, now: number): Promise<number> {
  const last = await lastComputedAt(db);
  if (last !== null && now - last < RECOMPUTE_EVERY_MS && now >= last) return 0;
  if (!(await claimRun(db, last, now))) return 0;
  return recompute(db, now);
}

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
