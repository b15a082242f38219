import { today } from '../../../kernel/dates.js';
import type { Services } from '../../../server/services.js';
import { catalogVersion } from '../../catalog/index.js';
import { storeScopeVersion } from '../../stores/index.js';
import type { Rendered } from '../editing/render.js';

/**
 * Buyer-API reads whose answer, for a request without credentials, is a function of the request and of the
 * store's public stamp below: the store's public settings (`settings` scope: the store, its settings and
 * payment routing), a product (products and variants: the catalog version; the day, for discounts) and a
 * collection's products (the same, and collections and categories: the `collections` scope). A route that
 * reads anything more cannot join this list without its data joining the stamp.
 */
const PUBLIC_READS = [/^\/storefront\/v1\/store$/, /^\/storefront\/v1\/products\/[^/?]+$/, /^\/storefront\/v1\/collections\/[^/?]+\/products(?:\?|$)/];

const settingsVersion = storeScopeVersion('settings');
const collectionsVersion = storeScopeVersion('collections');

/**
 * What every public read of a store depends on, read before the render it stamps: a write during the render
 * leaves the page under a stamp that is never current again. Null inside a transaction (nothing is cached).
 */
export function publicStamp(services: Services, storeId: string): string | null | Promise<string | null> {
  const { db } = services;
  const day = today(services.clock.now());
  // Known at once on SQLite while nothing was written; on PostgreSQL three reads at once.
  const versions = [catalogVersion(db, storeId), settingsVersion(db, storeId), collectionsVersion(db, storeId)];
  const stamp = (read: (number | null)[]) => (read.includes(null) ? null : `${day} ${read.join(' ')}`);
  return versions.some((v) => v instanceof Promise) ? Promise.all(versions).then(stamp) : stamp(versions as (number | null)[]);
}

type Answered = Extract<Rendered, { outcome: 'ANSWERED' }>;
export type CachedPage = Pick<Answered, 'status' | 'headers' | 'body'>;

/**
 * A page the service may answer again without running the site's code: a 200 whose render read no clock,
 * randomness or header (the guest tells) and only public reads, each answered 2xx — so the same version,
 * address and stamp render it byte for byte — and that the site let be stored.
 */
export function reusable(rendered: Answered): boolean {
  if (rendered.status !== 200 || rendered.volatile) return false;
  if (/no-store|private/i.test(rendered.headers['cache-control'] ?? '')) return false;
  return rendered.reads.every(
    (read) => read.method === 'GET' && !read.credentialed && read.status >= 200 && read.status < 300 && PUBLIC_READS.some((route) => route.test(read.path)),
  );
}

/** The cache holds at most this many characters of pages (about twice as many bytes). */
const MAX_CACHED_CHARS = 16 * 1024 * 1024;

/**
 * Rendered pages of published versions, keyed by everything their render read: the site's revision and
 * version, the address (origin, path, query) and the store's public stamp. A stale page is never found (its
 * stamp is gone) and leaves by the size bound, least recently used first.
 */
export class PageCache {
  readonly #pages = new Map<string, CachedPage>();
  #chars = 0;

  get(key: string): CachedPage | undefined {
    const page = this.#pages.get(key);
    if (page) {
      // Most recently used last: the size bound drops pages from the front.
      this.#pages.delete(key);
      this.#pages.set(key, page);
    }
    return page;
  }

  set(key: string, { status, headers, body }: CachedPage) {
    const old = this.#pages.get(key);
    if (old) {
      this.#pages.delete(key);
      this.#chars -= old.body?.length ?? 0;
    }
    this.#chars += body?.length ?? 0;
    for (const [oldKey, page] of this.#pages) {
      if (this.#chars <= MAX_CACHED_CHARS) break;
      this.#pages.delete(oldKey);
      this.#chars -= page.body?.length ?? 0;
    }
    this.#pages.set(key, { status, headers, body });
  }
}
