/**
 * PostgreSQL's errors, apart from the pool (pool.ts) that raises them: what must recognise them on every start
 * (the job loop, svc dev's start failure) imports these without loading pg, ~25 ms of a SQLite start (issue 31).
 */

/** A PostgreSQL error as the server sent it: `code` is the SQLSTATE (40001 serialization failure, 23505 unique…). */
export class PgError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly detail?: string,
    readonly sql?: string,
  ) {
    super(message);
  }
}

/** The server could not be reached or refused the connection (wrong address, credentials or database). */
export class PgConnectError extends PgError {}
