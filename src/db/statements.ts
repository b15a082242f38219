import { eq, getTableColumns, getTableName, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client.js';

/**
 * Checkout writes a dozen rows per purchase; a drizzle statement rebuilt per call costs about ten times a
 * prepared one (TOOLCHAIN.md). These prepare each shape of insert and update-by-id once per database and
 * reuse it — values still pass through the columns' encoders (JSON, booleans).
 */
const cache = new WeakMap<Db, Map<string, { run(values: Record<string, unknown>): Promise<unknown> }>>();

function prepared(db: Db, key: string, build: () => { run(values: Record<string, unknown>): Promise<unknown> }) {
  let statements = cache.get(db);
  if (!statements) cache.set(db, (statements = new Map()));
  let statement = statements.get(key);
  if (!statement) statements.set(key, (statement = build()));
  return statement;
}

const placeholders = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, sql.placeholder(k)]));

export async function insertRow<T extends SQLiteTable>(db: Db, table: T, row: T['$inferInsert']): Promise<void> {
  const keys = Object.keys(row as object).sort();
  const key = `${getTableName(table)}+${keys.join(',')}`;
  await prepared(db, key, () =>
    db
      .insert(table)
      .values(placeholders(keys) as never)
      .prepare(),
  ).run(row as Record<string, unknown>);
}

/** `update … set <fields> where id = ?` (the table's `id` primary key, or `idColumn`). */
export async function updateById<T extends SQLiteTable>(db: Db, table: T, id: string, set: Partial<T['$inferSelect']>, idColumn = 'id'): Promise<void> {
  const keys = Object.keys(set).sort();
  const key = `${getTableName(table)}.${idColumn}=${keys.join(',')}`;
  const column = getTableColumns(table)[idColumn] as SQLiteColumn;
  await prepared(db, key, () =>
    db
      .update(table)
      .set(placeholders(keys) as never)
      .where(eq(column, sql.placeholder('__id')))
      .prepare(),
  ).run({ ...set, __id: id });
}

/** Several rows of one table in one statement (one round trip on PostgreSQL); a single row goes through `insertRow`. */
export async function insertRows<T extends SQLiteTable>(db: Db, table: T, rows: T['$inferInsert'][]): Promise<void> {
  if (rows.length <= 1) {
    if (rows.length === 1) await insertRow(db, table, rows[0]);
    return;
  }
  await db
    .insert(table)
    .values(rows as never)
    .run();
}
