import type { RunResult } from 'better-sqlite3';
import { entityKind } from 'drizzle-orm';
import { fillPlaceholders, type Query } from 'drizzle-orm/sql';
import { BaseSQLiteDatabase, SQLiteAsyncDialect, SQLitePreparedQuery, SQLiteSession, type SelectedFieldsOrdered } from 'drizzle-orm/sqlite-core';
import * as drizzleUtils from 'drizzle-orm/utils';
import { rowObject, toPostgresSql, type PgPool } from './pool.js';

type RowMapper = (rows: unknown[][]) => unknown;
/** drizzle's own row mapping (in its utils, not in their typings). */
const { mapResultRow } = drizzleUtils as unknown as {
  mapResultRow: (fields: SelectedFieldsOrdered, row: unknown[], joinsNotNullableMap: Record<string, boolean> | undefined) => unknown;
};

/**
 * drizzle's SQLite query builders over the PostgreSQL pool: the modules write their queries once, against
 * their `sqliteTable`s, and each statement's SQL is turned into PostgreSQL's when it is prepared (pool.ts).
 * Modelled on drizzle's better-sqlite3 session, asynchronous.
 */
class PgPreparedQuery extends SQLitePreparedQuery<{ type: 'async'; run: RunResult; all: unknown; get: unknown; values: unknown; execute: unknown }> {
  static override readonly [entityKind] = 'SvcPgPreparedQuery';
  private readonly text: string;
  /** Set by drizzle's select builder after preparing: which joined tables' columns may all be null. */
  joinsNotNullableMap?: Record<string, boolean>;

  constructor(
    private readonly pool: PgPool,
    query: Query,
    private readonly fields: SelectedFieldsOrdered | undefined,
    executeMethod: 'run' | 'all' | 'get',
    private readonly customResultMapper: RowMapper | undefined,
  ) {
    super('async', executeMethod, query);
    this.text = toPostgresSql(query.sql);
  }

  private rows(placeholderValues?: Record<string, unknown>) {
    return this.pool.query(this.text, fillPlaceholders(this.query.params, placeholderValues ?? {}));
  }

  async run(placeholderValues?: Record<string, unknown>): Promise<RunResult> {
    const result = await this.rows(placeholderValues);
    return { changes: result.rowCount, lastInsertRowid: 0 };
  }

  async all(placeholderValues?: Record<string, unknown>): Promise<unknown> {
    const { fields, rows } = await this.rows(placeholderValues);
    if (!this.fields && !this.customResultMapper) return rows.map((row) => rowObject(fields, row));
    return this.mapRows(rows);
  }

  async get(placeholderValues?: Record<string, unknown>): Promise<unknown> {
    const { fields, rows } = await this.rows(placeholderValues);
    const row = rows[0];
    if (!this.fields && !this.customResultMapper) return row && rowObject(fields, row);
    if (!row) return undefined;
    return this.customResultMapper ? this.customResultMapper([row]) : mapResultRow(this.fields!, row, this.joinsNotNullableMap);
  }

  async values(placeholderValues?: Record<string, unknown>): Promise<unknown> {
    return (await this.rows(placeholderValues)).rows;
  }

  private mapRows(rows: unknown[][]): unknown {
    if (this.customResultMapper) return this.customResultMapper(rows);
    return rows.map((row) => mapResultRow(this.fields!, row, this.joinsNotNullableMap));
  }

  /** @internal drizzle asks this of relational queries. */
  isResponseInArrayMode(): boolean {
    return false;
  }
}

class PgSession extends SQLiteSession<'async', RunResult, Record<string, never>, Record<string, never>> {
  static override readonly [entityKind] = 'SvcPgSession';

  constructor(
    private readonly pool: PgPool,
    dialect: SQLiteAsyncDialect,
  ) {
    super(dialect);
  }

  prepareQuery(
    query: Query,
    fields: SelectedFieldsOrdered | undefined,
    executeMethod: 'run' | 'all' | 'get',
    _isResponseInArrayMode: boolean,
    customResultMapper?: RowMapper,
  ) {
    return new PgPreparedQuery(this.pool, query, fields, executeMethod, customResultMapper);
  }

  /** The code's transactions go through `transaction()` (src/db/transaction.ts), never drizzle's. */
  override transaction(): never {
    throw new Error('use transaction() from src/db/transaction.ts');
  }
}

/** The drizzle database the modules query on PostgreSQL, with the pool as its `$client`. */
export function drizzlePostgres(pool: PgPool): BaseSQLiteDatabase<'async', RunResult> & { $client: PgPool } {
  const dialect = new SQLiteAsyncDialect();
  const db = new BaseSQLiteDatabase<'async', RunResult>('async', dialect, new PgSession(pool, dialect) as never, undefined);
  return Object.assign(db, { $client: pool });
}
