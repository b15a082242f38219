import { and, asc, getTableName, notInArray, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { onPostgres, transaction, type Db } from './client.js';

/** A table of due work whose due time or key may go by other names (`Pick.due`, `Pick.key`). */
type QueueTable = SQLiteTable & { id?: SQLiteColumn; nextAttemptAt?: SQLiteColumn };

/** How long a claimed row stays with the process that claimed it: longer than any one call it makes. */
export const CLAIM_LEASE_MS = 60_000;

/**
 * The pick of rows to claim, as a subquery: on PostgreSQL it locks them, and passes over rows another process
 * is claiming at that moment instead of waiting for them (`FOR UPDATE SKIP LOCKED`). SQLite has one writer.
 */
export const claimPick = (db: Db, pick: SQLWrapper): SQLWrapper => (onPostgres(db) ? sql`(${pick} for update skip locked)` : pick);

/**
 * Runs a batch of claims, and the writes around them, at the cost each database does best: on SQLite as one
 * transaction (one commit for the batch); on PostgreSQL each claim commits on its own, at READ COMMITTED,
 * where SKIP LOCKED passes over the rows other processes are claiming. In a SERIALIZABLE transaction a row
 * another process claimed and committed meanwhile would fail the whole batch (40001) instead. Writes that
 * must hold together go through `together`: their own transaction on PostgreSQL, the batch's on SQLite.
 */
export function claimingBatch<T>(db: Db, work: (together: (writes: () => Promise<void>) => Promise<void>) => Promise<T>): Promise<T> {
  if (onPostgres(db)) return work((writes) => transaction(db, writes));
  return transaction(db, () => work((writes) => writes()));
}

interface Pick {
  /** What else a row must be to be taken (its status, say; or its id, for work a request starts on a known row). */
  where?: SQL;
  /** The time the row is due, when the table calls it something else than `nextAttemptAt` (or it is worked out). */
  due?: SQLiteColumn | SQL;
  /** The row's key, when it is not `id`. */
  key?: SQLiteColumn[];
  /** What the claim writes, when it is more or other than the lease (a timer turns FIRED, a schedule takes its next run). */
  set?: Record<string, unknown>;
  /** Rows this process is already working on: their lease only looks lapsed (a manual clock moved past it). */
  skip?: string[];
}

/**
 * Claims the earliest due row of a queue table in one statement that picks it and writes the claim (by
 * default, its due time moves a lease ahead), and returns the row as it now is; undefined when none is due.
 * On PostgreSQL the pick is `FOR UPDATE SKIP LOCKED`: processes claiming at the same moment take different
 * rows instead of reading the same one and losing it to each other, and none waits for another's claim. A
 * process that dies mid-call leaves its row due again once the lease lapses. Inside a transaction, the claim
 * commits or rolls back with the work it guards.
 */
export async function claimNextDue<T extends QueueTable>(db: Db, table: T, now: number, pick: Pick = {}): Promise<T['$inferSelect'] | undefined> {
  const due = pick.due ?? table.nextAttemptAt;
  const key = pick.key ?? (table.id && [table.id]);
  if (!due || !key) throw new Error(`${getTableName(table)}: name its due time and key (Pick.due, Pick.key)`);
  const next = db
    .select(Object.fromEntries(key.map((column, i) => [`k${i}`, column])))
    .from(table)
    .where(and(sql`${due} <= ${now}`, pick.where, pick.skip?.length ? notInArray(key[0], pick.skip) : undefined))
    // By the due time alone, which its index gives in order: a tie-break would sort every row due at once.
    .orderBy(asc(due))
    .limit(1);
  return (await db
    .update(table)
    .set((pick.set ?? { nextAttemptAt: now + CLAIM_LEASE_MS }) as never)
    .where(sql`(${sql.join(key, sql`, `)}) = ${claimPick(db, next)}`)
    .returning()
    .get()) as T['$inferSelect'] | undefined;
}

/** Rows one job takes in one run unless it says otherwise, so one backlog cannot hold the job loop. */
const CLAIMS_PER_RUN = 100;

/**
 * A job's due rows, earliest first, each claimed (`claimNextDue`) only when the caller moves on to it, so a
 * long call never outlives the lease of rows still waiting behind it; at most `limit` in one run.
 */
export async function* claimEachDue<T extends QueueTable>(
  db: Db,
  table: T,
  now: number,
  pick: Pick & { limit?: number } = {},
): AsyncGenerator<T['$inferSelect']> {
  for (let claimed = 0; claimed < (pick.limit ?? CLAIMS_PER_RUN); claimed++) {
    const row = await claimNextDue(db, table, now, pick);
    if (!row) return;
    yield row;
  }
}
