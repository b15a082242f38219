/**
 * Statements and round trips a piece of work costs the database, counted for the bench and for the tests that
 * keep a hot path's count down (docs/scale.md). Counting is off until something asks for it: the clients hold
 * no counter then, and each statement pays one property check.
 *
 * A round trip is one exchange with the server: on PostgreSQL one query sent and answered (a multi-statement
 * text such as `BEGIN …; SELECT pg_advisory_xact_lock_shared(…)` is one round trip and two statements); on
 * SQLite, in process, every statement is one. Not counted on SQLite: what goes through the driver itself
 * (`sqliteOf`: pragmas, the synchronous version reads of cached read models).
 */
export interface StatementCount {
  statements: number;
  roundTrips: number;
}

/** What a client keeps: its counter, once counting was asked for. */
export interface Counted {
  counted?: StatementCount;
}

/** The counter of a client (`db.$client`), started at zero on the first call; later calls answer the same one. */
export function statementCounter(client: object): StatementCount {
  const counting = client as Counted;
  return (counting.counted ??= { statements: 0, roundTrips: 0 });
}

/** Counts one round trip of `statements` statements, when counting is on. */
export function countRoundTrip(counting: Counted, statements = 1): void {
  const count = counting.counted;
  if (count === undefined) return;
  count.statements += statements;
  count.roundTrips++;
}
