import { and, eq } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client.js';

/** A queue table of durable work: each row has an id and the time it is due. */
type DueTable = SQLiteTable & { id: SQLiteColumn; nextAttemptAt: SQLiteColumn };

/** How long a claimed row stays with the process that claimed it: longer than any one call it makes. */
export const CLAIM_LEASE_MS = 60_000;

/**
 * Claims a due row for this process before its work starts (of several processes on one database, the one
 * whose update still finds the due time it read wins): the due time moves a lease ahead, so the others
 * skip it, and a process that dies mid-call leaves it due again once the lease lapses.
 */
export function claimDue(db: Db, table: DueTable, id: string, dueAt: number | null, now: number): boolean {
  if (dueAt === null) return false;
  return db.update(table).set({ nextAttemptAt: now + CLAIM_LEASE_MS } as never).where(and(eq(table.id, id), eq(table.nextAttemptAt, dueAt))).run().changes === 1;
}
