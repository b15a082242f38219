import { gte, lt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { instantInput } from '../../server/validation.js';

/** The query fields both logs (audit and API) page by: a period and a cursor, newest first. */
export const periodQuery = {
  from: instantInput.optional(),
  to: instantInput.optional(),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
};

/**
 * Conditions of `from` (inclusive), `to` (exclusive) and the cursor — the id of the last record seen, since
 * ids sort by creation time. `to` before `from` is 400 INVALID_PARAMETER (spec 01 §7).
 */
export function periodAndCursor(
  columns: { id: SQLiteColumn; createdAt: SQLiteColumn },
  q: { from?: string; to?: string; cursor?: string },
): (SQL | undefined)[] {
  if (q.from && q.to && Date.parse(q.to) < Date.parse(q.from)) throw fail(400, 'INVALID_PARAMETER', { from: q.from, to: q.to });
  return [
    q.from ? gte(columns.createdAt, Date.parse(q.from)) : undefined,
    q.to ? lt(columns.createdAt, Date.parse(q.to)) : undefined,
    q.cursor ? lt(columns.id, q.cursor) : undefined,
  ];
}

/** One page of rows fetched with `limit + 1`: the extra row only says there is a next page. */
export function cursorPage<R extends { id: string }, T>(rows: R[], limit: number, present: (row: R) => T) {
  const page = rows.slice(0, limit);
  return { contents: page.map(present), nextCursor: rows.length > limit ? page[page.length - 1].id : null };
}
