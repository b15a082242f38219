import type { Statement } from 'better-sqlite3';
import { onPostgres, type Db } from './client.js';

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
 * The version a cached read model of a store is keyed by (a counter that triggers grow), or null inside a
 * transaction: its writes may roll back and the number then comes again with other writes, so nothing
 * built there may be remembered. Outside transactions the version is read once per write: SQLite counts
 * every row this connection changes, triggers included, and the service is the file's only connection
 * (EXCLUSIVE locking, see client.ts), so an unchanged count means an unchanged file. The count costs a
 * quarter of the version read it spares. On PostgreSQL other processes write too: the version is read each time.
 */
export function cacheVersion(read: (db: Db, storeId: string) => number): (db: Db, storeId: string) => number | null {
  const memos = new WeakMap<Db, { changes: number; versions: Map<string, number> }>();
  return (db, storeId) => {
    if (db.$client.inTransaction) return null;
    if (onPostgres(db)) return read(db, storeId);
    const changes = totalChanges(db).get()!;
    let memo = memos.get(db);
    if (memo?.changes !== changes) memos.set(db, (memo = { changes, versions: new Map() }));
    let version = memo.versions.get(storeId);
    if (version === undefined) memo.versions.set(storeId, (version = read(db, storeId)));
    return version;
  };
}
