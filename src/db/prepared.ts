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
