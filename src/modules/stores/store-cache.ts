import type { Db } from '../../db/client.js';
import { storeVersionReader } from '../../db/prepared.js';

/**
 * The scopes of `store_versions`, each grown by SQLite triggers (drizzle/0001_triggers.sql, 0029) and their
 * PostgreSQL twins (drizzle/postgres/setup.sql) on every write to the tables its read models come from:
 * - `settings`: stores, payment settings, providers and credentials, the point policy;
 * - `coupons`: coupons and coupon items;
 * - `customers`: customers (their buyer tokens' checks);
 * - `points`: point lots (the balance the price preview checks);
 * - `sheets`: checkout sheets, updated or deleted (src/modules/checkout/sheet-cache.ts);
 * - `collections`: collections and categories (drizzle/0031; src/modules/storefront/serving/page-cache.ts).
 */
export type StoreVersionScope = 'settings' | 'coupons' | 'customers' | 'points' | 'collections';

/** The version of a store's scope (0 before its first write) as `cacheVersion` reads it: null inside a transaction. */
export const storeScopeVersion = (scope: StoreVersionScope) => storeVersionReader(scope).cached;

const MAX_ENTRIES = 10_000;

interface Entry<T> {
  version: number;
  value: T;
}

/**
 * Remembered values by store, then by key: a key is looked up as the caller's own string (a code, a customer
 * id), never joined with the store's into a new one per read. At most MAX_ENTRIES in all.
 */
class Remembered<T> {
  private readonly stores = new Map<string, Map<string, Entry<T>>>();
  private size = 0;

  get(storeId: string, key: string): Entry<T> | undefined {
    return this.stores.get(storeId)?.get(key);
  }

  set(storeId: string, key: string, entry: Entry<T>) {
    if (this.size >= MAX_ENTRIES) {
      this.stores.clear();
      this.size = 0;
    }
    let ofStore = this.stores.get(storeId);
    if (!ofStore) this.stores.set(storeId, (ofStore = new Map()));
    if (!ofStore.has(key)) this.size++;
    ofStore.set(key, entry);
  }
}

/**
 * Read models of a store are computed once per version of their scope: no write path can leave them stale,
 * and a read costs one primary-key lookup of the version (none on SQLite while nothing was written). `key`
 * tells models of one store apart (a coupon by its code); a store-wide model leaves it out. Values are
 * shared: never mutate one.
 */
export function cachedPerStoreVersion<A, T, K extends string = never>(
  scope: StoreVersionScope,
  dbOf: (owner: A) => Db,
  build: (owner: A, storeId: string, key: K) => Promise<T>,
): (owner: A, storeId: string, key?: K) => T | Promise<T> {
  const storeVersion = storeVersionReader(scope);
  const caches = new WeakMap<Db, Remembered<T>>();

  const remember = async (db: Db, cache: Remembered<T>, owner: A, storeId: string, key: K, version: number) => {
    const value = await build(owner, storeId, key);
    // SQLite has one connection: a build that ends inside another request's transaction may have read its rows.
    if (db.$client.inTransaction) return value;
    cache.set(storeId, key, { version, value });
    return value;
  };
  /**
   * Inside a transaction a value is never remembered (its writes may roll back), but one remembered outside
   * is still good when the version the transaction sees is the one it was built at: one primary-key read
   * instead of the model's queries, several times per purchase.
   */
  const inTransaction = async (cache: Remembered<T>, owner: A, storeId: string, key: K, db: Db) => {
    const hit = cache.get(storeId, key);
    if (hit && hit.version === (await storeVersion.current(db, storeId))) return hit.value;
    return build(owner, storeId, key);
  };
  const answer = (db: Db, cache: Remembered<T>, owner: A, storeId: string, key: K, version: number | null) => {
    if (version === null) return inTransaction(cache, owner, storeId, key, db);
    const hit = cache.get(storeId, key);
    return hit && hit.version === version ? hit.value : remember(db, cache, owner, storeId, key, version);
  };
  // A hit on SQLite is answered at once: the version is known without a query while nothing was written.
  return (owner, storeId, key = '' as K) => {
    const db = dbOf(owner);
    let cache = caches.get(db);
    if (!cache) caches.set(db, (cache = new Remembered()));
    const version = storeVersion.cached(db, storeId);
    return version instanceof Promise
      ? version.then((known) => answer(db, cache, owner, storeId, key, known))
      : answer(db, cache, owner, storeId, key, version);
  };
}

/**
 * Read models built from a store's settings (the store document, payment routing, the settings themselves,
 * the point policy), computed once per settings version (see `cachedPerStoreVersion`).
 */
export const cachedPerStoreSettings = <A, T>(dbOf: (owner: A) => Db, build: (owner: A, storeId: string) => Promise<T>) =>
  cachedPerStoreVersion<A, T>('settings', dbOf, (owner, storeId) => build(owner, storeId)) as (owner: A, storeId: string) => T | Promise<T>;
