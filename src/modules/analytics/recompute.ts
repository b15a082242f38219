import { and, eq, inArray } from 'drizzle-orm';
import { sqliteOf, transaction, type Db } from '../../db/client.js';
import { addDays, today } from '../../kernel/dates.js';
import { kstDayStart } from '../orders/index.js';
import { analyticsDayRows, analyticsRuns, type EventData } from './schema.js';
import { lastComputedAt } from './metrics.js';
import { Accumulator, type RawEvent } from './sessions.js';

/** The job: a store's events of the latest Korean dates, cut into sessions, rebuilt into per-date rows. */

/** The job recomputes the latest 3 Korean dates (today included) every 10 minutes. */
export const RECOMPUTE_DAYS = 3;
export const RECOMPUTE_EVERY_MS = 10 * 60_000;
/** Sessions reaching into the window from before it are rebuilt from this much earlier. */
const LOOKBACK_MS = 24 * 3_600_000;

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

/**
 * The stores with events in [from, to). Walked store by store along the (store_id, at) index, one lookup
 * each: `SELECT DISTINCT store_id … WHERE at …` read a million events of the window (0.7 s) to find one store.
 */
const STORES_WITH_EVENTS = `WITH RECURSIVE stores(id) AS (
    SELECT (SELECT min(store_id) FROM analytics_events)
    UNION ALL SELECT (SELECT min(store_id) FROM analytics_events WHERE store_id > stores.id) FROM stores WHERE stores.id IS NOT NULL
  )
  SELECT id FROM stores WHERE id IS NOT NULL AND EXISTS (SELECT 1 FROM analytics_events WHERE store_id = stores.id AND at >= ? AND at < ?)`;

/** Rebuilds the rows of the latest 3 Korean dates for every store with events then; returns the stores done. */
export async function recompute(db: Db, now: number): Promise<number> {
  const last = today(now);
  const dates = Array.from({ length: RECOMPUTE_DAYS }, (_, i) => addDays(last, -i)).reverse();
  const from = kstDayStart(dates[0]);
  const to = kstDayStart(last, 1);
  const storeIds = (await db.$client.prepare(STORES_WITH_EVENTS).raw().all(from, to)).map((r) => r[0] as string);
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
