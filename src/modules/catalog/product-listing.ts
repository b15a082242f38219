// Listing products: pages with their variants, and the list pages cached per catalog version.
import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { whenAnswered, type Db } from '../../db/client.js';
import { preparedFor, cacheVersion } from '../../db/prepared.js';
import { RawJson } from '../../server/envelope.js';
import type { ProductListQuery } from './inputs.js';
import type { ProductRow, VariantRow } from './product-rows.js';
import { catalogSequences, products, productVariants } from './schema.js';

const q = preparedFor((db) => ({
  // One query for a whole page: the ids arrive as one JSON array parameter.
  variantsOfMany: db
    .select()
    .from(productVariants)
    .where(sql`${productVariants.productId} in (select value from json_each(${sql.placeholder('ids')}))`)
    .orderBy(asc(productVariants.productId), asc(productVariants.position))
    .prepare(),
  page: db
    .select()
    .from(products)
    .where(eq(products.storeId, sql.placeholder('storeId')))
    .orderBy(desc(products.productNo))
    .limit(sql.placeholder('limit'))
    .offset(sql.placeholder('offset'))
    .prepare(),
  productCount: db
    .select({ productCount: catalogSequences.productCount })
    .from(catalogSequences)
    .where(eq(catalogSequences.storeId, sql.placeholder('storeId')))
    .prepare(),
}));

/** Variants of many products in one query, grouped by product. */
export async function variantsByProduct(db: Db, productIds: string[]) {
  const grouped = new Map<string, VariantRow[]>(productIds.map((id) => [id, []]));
  if (productIds.length) for (const v of await q(db).variantsOfMany.all({ ids: JSON.stringify(productIds) })) grouped.get(v.productId)!.push(v);
  return grouped;
}

/** `GET /products`: the unfiltered page (the hot path) uses prepared statements; filters build a query. */
export function listProducts(db: Db, storeId: string, query: ProductListQuery) {
  const offset = (query.page - 1) * query.size;
  const filters: SQL[] = [];
  if (query.productNo !== undefined) filters.push(eq(products.productNo, query.productNo));
  if (query.keyword) filters.push(sql`${products.name} like ${`%${query.keyword.replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`);
  if (query.status) filters.push(inArray(products.status, query.status));
  if (query.categoryId) filters.push(eq(products.categoryId, query.categoryId));
  if (query.inventoryMode) filters.push(eq(products.inventoryMode, query.inventoryMode));
  return pageOf(db, storeId, filters, query.page, query.size, offset);
}

export async function pageOf(db: Db, storeId: string, filters: SQL[], page: number, size: number, offset = (page - 1) * size) {
  let rows: ProductRow[];
  let total: number;
  if (filters.length === 0) {
    rows = await q(db).page.all({ storeId, limit: size, offset });
    total = (await q(db).productCount.get({ storeId }))?.productCount ?? 0;
  } else {
    const where = and(eq(products.storeId, storeId), ...filters);
    rows = await db.select().from(products).where(where).orderBy(desc(products.productNo)).limit(size).offset(offset).all();
    total = (await db.select({ n: count() }).from(products).where(where).get())!.n;
  }
  return {
    rows,
    variants: await variantsByProduct(
      db,
      rows.map((r) => r.id),
    ),
    page,
    size,
    total,
  };
}

/** A store's catalog version: grown by every product or variant write (drizzle/0001_triggers.sql); null inside a transaction. */
export const catalogVersion = cacheVersion('SELECT version FROM catalog_sequences WHERE store_id = ?');

/** The cache holds at most this many characters of pages (about twice as many bytes with their encoding). */
const MAX_CACHED_CHARS = 16 * 1024 * 1024;
const pageCaches = new WeakMap<Db, { pages: Map<string, RawJson>; chars: number }>();

/**
 * List pages, serialized once per catalog version of the store (a counter the database's triggers grow on
 * every product or variant change, whoever writes): a repeated read costs one primary-key lookup, or none
 * while nothing was written.
 * `key` must hold everything else the page depends on (query, today's date for discounts). LRU, bounded by size.
 */
export function cachedPage(db: Db, storeId: string, key: string, build: () => Promise<unknown>): RawJson | Promise<RawJson> {
  // A hit on SQLite is answered at once, with no promise: the version is known without a query while nothing was written.
  return whenAnswered(catalogVersion(db, storeId), (version) => {
    if (version === null) return buildPage(build);
    let cache = pageCaches.get(db);
    if (!cache) pageCaches.set(db, (cache = { pages: new Map(), chars: 0 }));
    const full = `${storeId} ${version} ${key}`;
    const page = cache.pages.get(full);
    if (page === undefined) return buildAndRemember(db, cache, full, build);
    // Most recently used last: the size bound drops pages from the front.
    cache.pages.delete(full);
    cache.pages.set(full, page);
    return page;
  });
}

const buildPage = async (build: () => Promise<unknown>) => new RawJson(JSON.stringify(await build()));

async function buildAndRemember(db: Db, cache: { pages: Map<string, RawJson>; chars: number }, full: string, build: () => Promise<unknown>) {
  const page = await buildPage(build);
  // SQLite has one connection: a build that ends inside another request's transaction may have read its rows.
  if (db.$client.inTransaction) return page;
  // A concurrent request may have cached the same page while this one built it.
  const raced = cache.pages.get(full);
  if (raced) {
    cache.pages.delete(full);
    cache.chars -= raced.json.length;
  }
  cache.chars += page.json.length;
  for (const [oldKey, old] of cache.pages) {
    if (cache.chars <= MAX_CACHED_CHARS) break;
    cache.pages.delete(oldKey);
    cache.chars -= old.json.length;
  }
  cache.pages.set(full, page);
  return page;
}
