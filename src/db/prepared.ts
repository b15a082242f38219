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
