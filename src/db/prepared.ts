import type { Statement } from 'better-sqlite3';
import type { Db } from './client.js';

/**
 * Hot queries are prepared once per database and reused: a drizzle query rebuilt per call costs about
 * ten times a prepared one (TOOLCHAIN.md). Usage: `const q = preparedFor(db => ({ byId: db.select()…prepare() }))`
 * then `q(ctx.db).byId.get({ id })`.
 */
export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let statements = cache.get(db);
    if (!statements) {
      statements = build(db);
      cache.set(db, statements);
    }
    return statements;
  };
}

/**
 * A one-value read on a hot path (a version counter read per request): the driver's own statement,
 * plucked, costs about a third of a drizzle prepared query, whose row mapping dominates for one integer.
 */
export function pluckStatement<Params extends unknown[], Value>(db: Db, query: string): Statement<Params, Value> {
  return db.$client.prepare<Params, Value>(query).pluck();
}

const totalChanges = preparedFor((db) => pluckStatement<[], number>(db, 'SELECT total_changes()'));

/**
 * A per-store read (a version counter) remembered until the next write. SQLite counts every row this
 * connection changes, triggers included, and the service is the file's only connection (EXCLUSIVE
 * locking, see client.ts): an unchanged count means an unchanged file, and the count costs a quarter
 * of the version read it spares. Reads inside a transaction are never remembered: its writes may roll
 * back, and the count does not go down when they do.
 */
export function rememberedUntilWrite<T>(read: (db: Db, storeId: string) => T): (db: Db, storeId: string) => T {
  const memos = new WeakMap<Db, { changes: number; values: Map<string, T> }>();
  return (db, storeId) => {
    if (db.$client.inTransaction) return read(db, storeId);
    const changes = totalChanges(db).get()!;
    let memo = memos.get(db);
    if (memo?.changes !== changes) memos.set(db, (memo = { changes, values: new Map() }));
    const known = memo.values.get(storeId);
    if (known !== undefined) return known;
    const value = read(db, storeId);
    memo.values.set(storeId, value);
    return value;
  };
}
