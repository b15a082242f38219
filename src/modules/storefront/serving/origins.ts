import { isPreflightRequest, type H3, type H3Event } from 'h3';
import type { Db } from '../../../db/client.js';
import type { Services } from '../../../server/services.js';
import { storeNamedBy, storeSettings } from '../../stores/index.js';
import { connectedOrigins } from '../domains/domains.js';
import { findSite, siteUrl } from '../sites/sites.js';

/** Origin settings are re-read at most this often: spec 02 §6 wants changes applied within a minute. */
const ORIGIN_TTL_MS = 60_000;
const originCache = new WeakMap<Db, Map<string, { at: number; origins: Set<string> | null }>>();

/**
 * The origins a store's storefronts run on: `storefrontOrigins`, the hosted site's own and its connected
 * domains; null (the list is empty) allows every origin (spec 02 §6).
 */
export async function allowedOrigins(services: Services, storeId: string, now: number): Promise<Set<string> | null> {
  let byStore = originCache.get(services.db);
  if (!byStore) originCache.set(services.db, (byStore = new Map()));
  const cached = byStore.get(storeId);
  if (cached && now - cached.at < ORIGIN_TTL_MS && now >= cached.at) return cached.origins;
  const listed = (await storeSettings(services.db, storeId)).storefrontOrigins;
  let origins: Set<string> | null = null;
  if (listed.length > 0) {
    origins = new Set(listed.map((o) => o.toLowerCase()));
    const site = await findSite(services.db, storeId);
    const address = site && siteUrl(services, site.slug);
    if (address) origins.add(new URL(address).origin);
    // Connected custom domains are allowed analytics origins too (spec 02 §4.2).
    for (const origin of await connectedOrigins(services.db, storeId)) origins.add(origin);
  }
  byStore.set(storeId, { at: now, origins });
  return origins;
}

const BUYER_API = '/storefront/v1/';
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
  'access-control-allow-headers': 'authorization, content-type, idempotency-key, x-store-id, x-svc-visitor, x-svc-session, x-svc-cart',
  'access-control-max-age': '600',
};
const EXPOSED = 'x-request-id, x-trace-id, idempotent-replayed, retry-after';

/**
 * CORS for the buyer API, so a storefront on another origin (a seller's own web app listed in
 * `storefrontOrigins`, the collector included with `data-api`) can call it from the browser. A preflight
 * carries no store, so it is answered for any origin and reveals nothing; an answer names the origin in
 * `Access-Control-Allow-Origin` only when the store of `X-Store-Id` allows it — every origin while its list
 * is empty, as for the collector. No credentials: the buyer API takes tokens, never cookies.
 */
export function mountBuyerApiCors(app: H3, services: Services) {
  // Matched by hand, and only a request with an Origin waits for the answer: h3's route pattern for the
  // middleware, and an async middleware on every request, cost each buyer request about 1 µs and a promise.
  app.use((event: H3Event, next) => {
    const origin = event.req.headers.get('origin');
    if (!origin || !inBuyerApi(event.url.pathname)) return next();
    return withCors(services, event, next, origin);
  });
}

/** What h3's `/storefront/v1/**` matched: the buyer API's paths and its root. */
const inBuyerApi = (path: string) => path.startsWith(BUYER_API) || path === '/storefront/v1';

async function withCors(services: Services, event: H3Event, next: () => unknown, origin: string) {
  if (isPreflightRequest(event)) {
    return new Response(null, { status: 204, headers: { ...PREFLIGHT_HEADERS, 'access-control-allow-origin': origin, vary: 'origin' } });
  }
  const response = await next();
  if (!(response instanceof Response)) return response;
  // No store or an unknown one: the answer is an error that concerns no store, readable anywhere.
  const named = event.req.headers.get('x-store-id');
  const store = named ? await storeNamedBy(services.db, named) : undefined;
  const allowed = store ? await allowedOrigins(services, store.id, services.clock.now()) : null;
  response.headers.append('vary', 'origin');
  if (allowed === null || allowed.has(origin.toLowerCase())) {
    response.headers.set('access-control-allow-origin', origin);
    response.headers.set('access-control-expose-headers', EXPOSED);
  }
  return response;
}
