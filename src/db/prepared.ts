import type { Statement } from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { sqliteOf, statementsRun, whenAnswered, type Db, type RawStatement } from './client.js';
import type { PgPool } from './pg/pool.js';

/**
 * Hot queries are prepared once per database and reused: a drizzle query rebuilt per call costs about
 * ten times a prepared one (TOOLCHAIN.md). Usage: `const q = preparedFor(db => ({ byId: db.select()…prepare() }))`
 * then `await q(ctx.db).byId.get({ id })`.
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

/** A placeholder in an update's `set` (drizzle types those as values; JSON columns take their text). */
export const placeholderValue = (name: string) => sql`${sql.placeholder(name)}`;

/**
 * A one-value read on a hot path (a version counter read per request): the driver's own statement,
 * plucked, costs about a third of a drizzle prepared query, whose row mapping dominates for one integer.
 */
export function pluckStatement<Params extends unknown[], Value>(db: Db, query: string): RawStatement<Params, Value> {
  return db.$client.prepare<Params, Value>(query).pluck();
}

interface SqliteVersions {
  totalChanges: Statement<[], number>;
  version: Statement<[string], number | undefined>;
  changes: number;
  /** `statementsRun` when `changes` was last read. */
  statements: number;
  versions: Map<string, number>;
}

/**
 * The version a cached read model of a store is keyed by (a counter that triggers grow, read by `query`
 * with the store's id), or null inside a transaction: its writes may roll back and the number then comes
 * again with other writes, so nothing built there may be remembered.
 *
 * On SQLite the answer is synchronous, so a cache hit costs no promise: the version is read once per write.
 * SQLite counts every row this connection changes, triggers included, and the service is the file's only
 * connection (EXCLUSIVE locking, see client.ts), so an unchanged count means an unchanged file. The count
 * costs a quarter of the version read it spares, and is itself asked only when a statement ran since it
 * was last read (`statementsRun`): a request whose reads all hit their caches asks SQLite nothing. A version
 * read then still holds inside a transaction, which has written nothing yet. On PostgreSQL other processes
 * write too: the version is read each time, asynchronously.
 */
export function cacheVersion(query: string): (db: Db, storeId: string) => number | null | Promise<number | null> {
  const sqliteVersion = sqliteVersionReader(query);
  const readPostgres = async (db: Db, storeId: string) => (await db.$client.prepare<[string], number>(query).pluck().get(storeId)) ?? 0;
  return (db, storeId) => {
    if (sqliteOf(db)) return sqliteVersion(db, storeId);
    return db.$client.inTransaction ? null : readPostgres(db, storeId);
  };
}

/** Every scope's version of one store, in one round trip. */
const STORE_VERSIONS = 'SELECT scope, version FROM store_versions WHERE store_id = ?';

/**
 * A store's version of one `store_versions` scope, for the caches keyed by it:
 * - `cached`: as `cacheVersion` answers (null inside a transaction that may have written);
 * - `current`: as the current transaction sees it, its own writes included.
 * On PostgreSQL both read every scope of the store at once, and the request or transaction remembers them
 * until it writes (`PgPool.versionsSeen`): a purchase's steps check the settings, customers and sheets
 * versions a dozen times between them, each a round trip before.
 */
export function storeVersionReader(scope: string): {
  cached: (db: Db, storeId: string) => number | null | Promise<number | null>;
  current: (db: Db, storeId: string) => number | Promise<number>;
} {
  const query = `SELECT version FROM store_versions WHERE store_id = ? AND scope = '${scope}'`;
  const sqliteVersion = sqliteVersionReader(query);
  const sqliteCurrent = preparedFor((db: Db) => db.$client.prepare<[string], number | undefined>(query).pluck());
  const postgres = (db: Db, storeId: string): number | Promise<number> => {
    const key = `${storeId} ${scope}`;
    const seen = (db.$client as unknown as PgPool).versionsSeen();
    const known = seen?.get(key);
    if (known !== undefined) return known;
    return db.$client
      .prepare<[string]>(STORE_VERSIONS)
      .raw()
      .all(storeId)
      .then((rows) => {
        let version = 0;
        for (const [name, value] of rows as [string, number][]) {
          seen?.set(`${storeId} ${name}`, value);
          if (name === scope) version = value;
        }
        seen?.set(key, version);
        return version;
      });
  };
  return {
    cached: (db, storeId) => {
      if (sqliteOf(db)) return sqliteVersion(db, storeId);
      return db.$client.inTransaction ? null : postgres(db, storeId);
    },
    current: (db, storeId) =>
      sqliteOf(db) ? (sqliteVersion(db, storeId) ?? whenAnswered(sqliteCurrent(db).get(storeId), (version) => version ?? 0)) : postgres(db, storeId),
  };
}

/**
 * SQLite's version reads (see `cacheVersion`): once per write to the file, and none while no statement ran
 * since the last one. A remembered version still holds inside a transaction that has run nothing since;
 * otherwise a transaction gets null.
 */
function sqliteVersionReader(query: string): (db: Db, storeId: string) => number | null {
  const perDb = new WeakMap<Db, SqliteVersions>();
  return (db, storeId) => {
    let memo = perDb.get(db);
    if (memo !== undefined && memo.statements === statementsRun(db)) {
      const version = memo.versions.get(storeId);
      if (version !== undefined) return version;
    }
    if (db.$client.inTransaction) return null;
    if (!memo) {
      const sqlite = sqliteOf(db)!;
      perDb.set(
        db,
        (memo = {
          totalChanges: sqlite.prepare<[], number>('SELECT total_changes()').pluck(),
          version: sqlite.prepare<[string], number | undefined>(query).pluck(),
          changes: -1,
          statements: -1,
          versions: new Map(),
        }),
      );
    }
    const changes = memo.totalChanges.get()!;
    memo.statements = statementsRun(db)!;
    if (memo.changes !== changes) {
      memo.changes = changes;
      memo.versions = new Map();
    }
    let version = memo.versions.get(storeId);
    if (version === undefined) memo.versions.set(storeId, (version = memo.version.get(storeId) ?? 0));
    return version;
  };
}
