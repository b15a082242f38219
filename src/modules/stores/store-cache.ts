import { whenAnswered, type Db } from '../../db/client.js';
import { cacheVersion, preparedFor } from '../../db/prepared.js';

const SETTINGS_VERSION = "SELECT version FROM store_versions WHERE store_id = ? AND scope = 'settings'";
const settingsVersion = cacheVersion(SETTINGS_VERSION);
/** The version as the current transaction sees it (its own writes included). */
const versionStatement = preparedFor((db: Db) => db.$client.prepare<[string], number>(SETTINGS_VERSION).pluck());

const MAX_ENTRIES = 10_000;

/**
 * Read models built from a store's settings (the store document, payment routing) are computed once per
 * settings version: SQLite triggers grow the version on every write to the tables they come from (see the
 * store_versions migration; a module whose tables feed such a model adds its triggers there), so a read
 * costs one primary-key lookup (none while nothing was written) and no write path can leave it stale. Values are shared: never mutate one.
 */
export function cachedPerStoreSettings<A, T>(
  dbOf: (owner: A) => Db,
  build: (owner: A, storeId: string) => Promise<T>,
): (owner: A, storeId: string) => T | Promise<T> {
  const caches = new WeakMap<Db, Map<string, { version: number; value: T }>>();
  const remember = async (db: Db, cache: Map<string, { version: number; value: T }>, owner: A, storeId: string, version: number) => {
    const value = await build(owner, storeId);
    // SQLite has one connection: a build that ends inside another request's transaction may have read its rows.
    if (db.$client.inTransaction) return value;
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(storeId, { version, value });
    return value;
  };
  /**
   * Inside a transaction a value is never remembered (its writes may roll back), but one remembered outside
   * is still good when the version the transaction sees is the one it was built at: one primary-key read
   * instead of the model's queries, several times per purchase.
   */
  const inTransaction = async (cache: Map<string, { version: number; value: T }>, owner: A, storeId: string, db: Db) => {
    const hit = cache.get(storeId);
    if (hit && hit.version === ((await versionStatement(db).get(storeId)) ?? 0)) return hit.value;
    return build(owner, storeId);
  };
  // A hit on SQLite is answered at once: the version is known without a query while nothing was written.
  return (owner, storeId) => {
    const db = dbOf(owner);
    let cache = caches.get(db);
    if (!cache) caches.set(db, (cache = new Map()));
    return whenAnswered(settingsVersion(db, storeId), (version) => {
      if (version === null) return inTransaction(cache, owner, storeId, db);
      const hit = cache.get(storeId);
      return hit && hit.version === version ? hit.value : remember(db, cache, owner, storeId, version);
    });
  };
}
