import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { H3, H3Event } from 'h3';
import { FastResponse } from 'srvx/node';
import { z } from 'zod';
import { onPostgres, transaction, whenAnswered } from '../../db/client.js';
import { preparedFor, pluckStatement } from '../../db/prepared.js';
import { RuntimeCallbackError, RuntimeHost, type FetchRequest, type FetchResponse } from '../../runtime-host/index.js';
import { devRoute, operatorRoute } from '../../server/dev.js';
import { fail } from '../../server/errors.js';
import { escapeHtml } from '../../server/html.js';
import { hostName } from '../../server/request-guard.js';
import type { Services } from '../../server/services.js';
import { parseWith } from '../../server/validation.js';
import { stores } from '../stores/schema.js';
import { BlobCache, readBlob, sha256 } from './blobs.js';
import { ACME_CHALLENGE_PATH, mountAcmeChallenges } from './certificates.js';
import { customDomainSlug } from './domains.js';
import { heldRedirect } from './lifecycle.js';
import { mountBuyerApiCors } from './origins.js';
import { previewLinks, sites, versions, type VersionAsset } from './schema.js';
import { changeSite, siteUrl, siteWriteCount, type Site, type Version } from './service.js';

/** Limits of one page render (spec 02 §8 leaves them to us; decisions.md). */
const RENDER_LIMITS = { cpuMs: 500, wallMs: 10_000, memoryMb: 128, resultBytes: 5 * 1024 * 1024 };
const MAX_REQUEST_BODY = 1024 * 1024;
/**
 * An isolate runs one call at a time on its own thread: a busy site gets a few, so its pages render on
 * several cores (each is a warm isolate of the same version, compiled from V8's code cache).
 */
const ISOLATES_PER_VERSION = 4;
export const PREVIEW_TRUST_MS = 12 * 3_600_000;
/** Request headers a site's server code sees; cookies and credentials of the service's own origin never. */
const FORWARDED = ['accept', 'accept-language', 'content-type', 'user-agent', 'referer', 'x-svc-visitor', 'x-svc-session'];
/** Headers a site's answer cannot set (svc dev serves sites on the service's origin). */
const DROPPED = new Set(['set-cookie', 'set-cookie2', 'clear-site-data', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length']);
const NULL_BODY = new Set([204, 205, 304]);
/** RFC 9110 field names and values (no control characters): anything else would break the response. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

interface Served {
  site: Site;
  version: Version | null;
  storeSuspended: boolean;
}

interface SiteRuntime {
  host: RuntimeHost;
  app: H3;
  blobs: BlobCache;
  /** slug → the site and its served version, revalidated by the site's revision; `writes` = the site write count it is current for (-1: none). */
  sites: Map<string, { revision: number; writes: number; served: Served }>;
  versions: Map<string, { version: Version; code: string; map: string | undefined }>;
  /** Round-robin over a version's isolates. */
  lane: number;
  /** The service's own scheme and host: its own host is never a custom domain. */
  protocol: string;
  ownHost: string;
}

const runtimes = new WeakMap<Services, SiteRuntime>();
const statements = preparedFor((db) => ({ revision: pluckStatement<[string], number>(db, 'SELECT revision FROM storefront_sites WHERE slug = ?') }));

function runtimeOf(services: Services): SiteRuntime {
  const runtime = runtimes.get(services);
  if (!runtime) throw new Error('storefront serving is not mounted');
  return runtime;
}

export async function closeSiteRuntime(services: Services) {
  await runtimes.get(services)?.host.close();
  runtimes.delete(services);
}

async function loadVersion(services: Services, runtime: SiteRuntime, versionId: string) {
  let hit = runtime.versions.get(versionId);
  if (!hit) {
    const version = await services.db.select().from(versions).where(eq(versions.id, versionId)).get();
    if (!version) return null;
    hit = { version, code: readBlob(services, version.server.bundle.hash).toString('utf8'), map: version.server.map ? readBlob(services, version.server.map.hash).toString('utf8') : undefined };
    if (runtime.versions.size > 200) runtime.versions.clear();
    runtime.versions.set(versionId, hit);
  }
  return hit;
}

/**
 * The site at `slug` as visitors get it. On SQLite nothing is read while no site was written since the
 * entry was made, and the revision read after a write answers at once (no promise on the static-file path);
 * on PostgreSQL, where other processes write, one indexed read of the revision.
 */
function servedSite(services: Services, runtime: SiteRuntime, slug: string): Served | null | Promise<Served | null> {
  const { db } = services;
  const hit = runtime.sites.get(slug);
  const writes = siteWriteCount();
  if (hit?.writes === writes) return hit.served;
  return whenAnswered(statements(db).revision.get(slug), (revision) => {
    if (revision === undefined) return null;
    const trusted = onPostgres(db) || db.$client.inTransaction ? -1 : writes;
    if (hit && hit.revision === revision) {
      hit.writes = trusted;
      return hit.served;
    }
    return loadServed(services, runtime, slug, trusted);
  });
}

async function loadServed(services: Services, runtime: SiteRuntime, slug: string, trusted: number): Promise<Served | null> {
  const { db } = services;
  const site = await db.select().from(sites).where(eq(sites.slug, slug)).get();
  if (!site) return null;
  const store = await db.select({ suspendedAt: stores.suspendedAt }).from(stores).where(eq(stores.id, site.storeId)).get();
  const served = { site, version: site.servedVersionId ? (await loadVersion(services, runtime, site.servedVersionId))?.version ?? null : null, storeSuspended: store?.suspendedAt != null };
  if (runtime.sites.size > 10_000) runtime.sites.clear();
  runtime.sites.set(slug, { revision: site.revision, writes: trusted, served });
  return served;
}

// ── pages of the platform ────────────────────────────────────────────────────

function page(status: number, title: string, text: string, extra: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,-apple-system,"Apple SD Gothic Neo","Noto Sans KR",sans-serif;display:grid;place-items:center;min-height:100vh;margin:0;background:#f7f7f8;color:#222}main{text-align:center;padding:2rem}h1{font-size:1.6rem}p{color:#666}</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;
  return new FastResponse(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra } }) as unknown as Response;
}
const comingSoon = () => page(200, '곧 문을 엽니다', '상점을 준비하고 있습니다. 조금만 기다려 주세요.', { 'x-robots-tag': 'noindex' });
const suspended = () => page(503, '이용할 수 없는 상점', '이 상점은 운영 정책에 따라 잠시 정지되었습니다.');
const closing = () => page(410, '문을 닫은 상점', '이 상점은 운영을 마쳤습니다. 그동안 이용해 주셔서 감사합니다.', { 'x-robots-tag': 'noindex' });
const notFoundPage = () => page(404, '페이지를 찾을 수 없습니다', '주소를 다시 확인해 주세요.');
const renderFailed = (slow: boolean) => page(slow ? 504 : 500, '페이지를 보여 줄 수 없습니다', slow ? '페이지를 만드는 데 너무 오래 걸렸습니다. 잠시 뒤 다시 시도해 주세요.' : '일시적인 오류입니다. 잠시 뒤 다시 시도해 주세요.');

// ── preview ──────────────────────────────────────────────────────────────────

const PREVIEW_COOKIE = 'svc_preview';
const previewSignature = (services: Services, value: string) => createHmac('sha256', services.keys.formKey).update(`storefront-preview\n${value}`).digest('base64url');

/** The preview trust of this browser for `site`: the version it may see, or null. */
function previewVersion(services: Services, event: H3Event, site: Site): string | null {
  const cookie = event.req.headers.get('cookie') ?? '';
  const raw = /(?:^|;\s*)svc_preview=([^;]+)/.exec(cookie)?.[1];
  if (!raw) return null;
  const [siteId, versionId, expires, signature] = decodeURIComponent(raw).split('.');
  if (siteId !== site.id || !versionId || !signature) return null;
  const expected = Buffer.from(previewSignature(services, `${siteId}.${versionId}.${expires}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || Number(expires) < services.clock.now()) return null;
  return versionId;
}

/** Opens a one-time preview link: marks it used and trusts this browser for 12 hours. */
async function openPreview(services: Services, site: Site, token: string, base: string, cookiePath: string): Promise<Response> {
  const now = services.clock.now();
  const link = await transaction(services.db, async () => {
    const row = await services.db.select().from(previewLinks).where(and(eq(previewLinks.tokenHash, sha256(token)), eq(previewLinks.storeId, site.storeId), isNull(previewLinks.usedAt), gt(previewLinks.expiresAt, now))).get();
    if (!row) return null;
    await services.db.update(previewLinks).set({ usedAt: now }).where(eq(previewLinks.id, row.id)).run();
    return row;
  });
  if (!link) return page(410, '미리보기 링크가 만료되었습니다', '미리보기 링크는 한 번, 만든 뒤 5분 안에만 열 수 있습니다. 새 링크를 만들어 주세요.');
  const expires = now + PREVIEW_TRUST_MS;
  const value = `${site.id}.${link.versionId}.${expires}`;
  const secure = base.startsWith('https:') ? '; Secure' : '';
  return new Response(null, {
    status: 303,
    headers: { location: base, 'set-cookie': `${PREVIEW_COOKIE}=${encodeURIComponent(`${value}.${previewSignature(services, value)}`)}; Path=${cookiePath}; Max-Age=${PREVIEW_TRUST_MS / 1000}; HttpOnly; SameSite=Lax${secure}`, 'cache-control': 'no-store' },
  });
}

/** Preview pages live under `{site}/_preview/`: checkout return addresses there are refused with live payment. */
export const PREVIEW_SEGMENT = '_preview/';

// ── serving ──────────────────────────────────────────────────────────────────

async function serveFromVersion(services: Services, runtime: SiteRuntime, event: H3Event, site: Site, versionId: string, base: string, path: string): Promise<Response> {
  const loaded = await loadVersion(services, runtime, versionId);
  if (!loaded) return notFoundPage();
  const asset = event.req.method === 'GET' || event.req.method === 'HEAD' ? loaded.version.assets[path] : undefined;
  if (asset) {
    const { status, headers, body } = assetAnswer(runtime, asset, event.req.method, event.req.headers.get('if-none-match'));
    // srvx's response goes straight to the socket: a web Response would copy the bytes into a stream first.
    return new FastResponse(body as Uint8Array<ArrayBuffer> | null, { status, headers }) as unknown as Response;
  }
  return render(services, runtime, event, site, loaded, base);
}

/** A static file of a version: immutable caching for hashed names, revalidation by ETag for the rest. */
function assetAnswer(runtime: SiteRuntime, asset: VersionAsset, method: string, ifNoneMatch: string | null | undefined) {
  const etag = `"${asset.hash}"`;
  const headers = { 'content-type': asset.contentType, etag, 'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate', 'x-content-type-options': 'nosniff' };
  if (ifNoneMatch === etag) return { status: 304, headers, body: null };
  return { status: 200, headers: { ...headers, 'content-length': String(asset.size) }, body: method === 'HEAD' ? null : runtime.blobs.get(asset.hash) };
}

async function render(services: Services, runtime: SiteRuntime, event: H3Event, site: Site, loaded: { version: Version; code: string; map: string | undefined }, base: string): Promise<Response> {
  const { version } = loaded;
  const method = event.req.method;
  const body = method === 'GET' || method === 'HEAD' ? null : await event.req.text();
  if (body !== null && body.length > MAX_REQUEST_BODY) return page(413, '요청이 너무 큽니다', '1 MiB보다 작게 보내 주세요.');
  const headers: [string, string][] = [];
  for (const name of FORWARDED) {
    const value = event.req.headers.get(name);
    if (value !== null) headers.push([name, value]);
  }
  const requestUrl = new URL(base);
  const result = await runtime.host.invoke({
    installationId: `site:${version.id}:${(runtime.lane = (runtime.lane + 1) % ISOLATES_PER_VERSION)}`,
    appId: `site:${site.id}`,
    bundleId: version.id,
    bundleCode: loaded.code,
    sourceMap: loaded.map,
    kind: 'site',
    name: 'fetch',
    input: { method, url: `${requestUrl.origin}${event.url.pathname}${event.url.search}`, headers, body },
    context: { storeId: site.storeId, storefrontApiUrl: `${requestUrl.origin}/storefront/v1`, siteUrl: base, version: `v${version.number}`, assets: version.clientEntries },
    limits: RENDER_LIMITS,
  }, { fetch: (request) => buyerApiFetch(runtime, site.storeId, requestUrl.origin, request) });
  if (!result.ok) {
    console.error(`[svc] site ${site.slug} v${version.number} ${method} ${event.url.pathname}: ${result.error.code} ${result.error.message}${result.error.stack ? `\n${result.error.stack}` : ''}`);
    return renderFailed(result.error.code === 'TIMEOUT' || result.error.code === 'CPU_LIMIT');
  }
  const answer = result.result as { status: number; headers: [string, string][]; body: string };
  const status = Number.isInteger(answer.status) && answer.status >= 200 && answer.status <= 599 ? answer.status : 200;
  const out: Record<string, string> = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
  for (const [raw, value] of answer.headers) {
    const name = raw.toLowerCase();
    if (DROPPED.has(name)) continue;
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) {
      console.error(`[svc] site ${site.slug}: dropped an invalid response header ${JSON.stringify(raw)}`);
      continue;
    }
    out[name] = name in out && name !== 'cache-control' && name !== 'x-content-type-options' ? `${out[name]}, ${value}` : value;
  }
  return new FastResponse(NULL_BODY.has(status) || method === 'HEAD' ? null : answer.body, { status, headers: out }) as unknown as Response;
}

/**
 * `fetch` of a site's server code: only the service's own buyer API, as the site's store, answered
 * in-process (no socket, no second trip through the network stack).
 */
async function buyerApiFetch(runtime: SiteRuntime, storeId: string, siteOrigin: string, request: FetchRequest): Promise<FetchResponse> {
  const api = `${siteOrigin}/storefront/v1`;
  const url = new URL(request.url, api);
  if (url.origin !== siteOrigin || !url.pathname.startsWith('/storefront/v1/')) {
    throw new RuntimeCallbackError('FETCH_BLOCKED', `a site's server code may fetch only the buyer API (${api}/…)`);
  }
  const headers = new Headers(request.headers.filter(([name]) => !['cookie', 'authorization-override', 'host'].includes(name.toLowerCase())));
  headers.set('x-store-id', storeId);
  const response = await runtime.app.fetch(new Request(url, { method: request.method, headers, body: request.body }));
  return { status: response.status, statusText: response.statusText, url: url.href, headers: [...response.headers], body: await response.text() };
}

/** Where a visitor request of a site goes: the site's slug, its root URL, the path below it and its cookie path. */
interface SiteAddress {
  slug: string;
  base: string;
  path: string;
  cookiePath: string;
}

/** The version the public sees, or null while a page of the platform shows instead (suspended, closing, coming soon). */
const publicVersion = ({ site, version, storeSuspended }: Served) =>
  site.status === 'ACTIVE' && !storeSuspended && site.visibility === 'PUBLIC' ? version : null;

/** One visitor request of a site, whatever address it came by. */
async function serveSite(services: Services, event: H3Event, { slug, base, path, cookiePath }: SiteAddress): Promise<Response> {
  const runtime = runtimeOf(services);
  const served = await servedSite(services, runtime, slug);
  if (!served) return (await heldRedirect(services, slug, `${path}${event.url.search}`)) ?? notFoundPage();
  const { site } = served;
  if (site.status === 'SUSPENDED' || served.storeSuspended) return suspended();
  if (site.status === 'CLOSED') return closing();
  if (path.startsWith(PREVIEW_SEGMENT)) {
    const open = /^_preview\/open\/([A-Za-z0-9_-]{20,100})$/.exec(path);
    if (open) return openPreview(services, site, open[1], `${base}${PREVIEW_SEGMENT}`, `${cookiePath}${PREVIEW_SEGMENT}`);
    const versionId = previewVersion(services, event, site);
    if (!versionId) return page(403, '미리보기 권한이 없습니다', '관리자가 만든 미리보기 링크로 열어 주세요. 한 번 연 브라우저는 12시간 동안 볼 수 있습니다.');
    return serveFromVersion(services, runtime, event, site, versionId, `${base}${PREVIEW_SEGMENT}`, path.slice(PREVIEW_SEGMENT.length));
  }
  const version = publicVersion(served);
  if (!version) return comingSoon();
  return serveFromVersion(services, runtime, event, site, version.id, base, path);
}

/**
 * On a site's own host (`{slug}.{SVC_SITES_DOMAIN}`, a custom domain) the buyer API and the analytics
 * collector answer too, so the site's pages call them on their own origin — no cross-origin requests.
 */
const servedBesideSites = (path: string) => path.startsWith('/storefront/v1/') || path === '/_svc/analytics.js' || path.startsWith(ACME_CHALLENGE_PATH);

function sitesDomainSlug(hostHeader: string | null, sitesDomain: string): string | null {
  const host = hostName(hostHeader ?? '').replace(/\.$/, '');
  if (!host.endsWith(`.${sitesDomain}`)) return null;
  const label = host.slice(0, -sitesDomain.length - 1);
  return label.includes('.') ? null : label;
}

/**
 * The site a request's host names: `{slug}.{sitesDomain}` (svc serve) or a connected custom domain. Known at
 * once on the service's own host and for `{slug}.{sitesDomain}`; a custom domain takes a look-up.
 */
function hostAddress(services: Services, host: string | null, pathname: string, req: object | undefined): SiteAddress | null | Promise<SiteAddress | null> {
  if (servedBesideSites(pathname)) return null;
  const { sitesDomain } = services.config.storefront;
  const slug = sitesDomain ? sitesDomainSlug(host, sitesDomain) : null;
  if (slug !== null) return { slug, base: siteUrl(services, slug), path: pathname.slice(1), cookiePath: '/' };
  const { ownHost, protocol } = runtimeOf(services);
  return whenAnswered(customDomainSlug(services, host, ownHost, req), (connected) =>
    connected === null ? null : { slug: connected, base: `${protocol}//${host}/`, path: pathname.slice(1), cookiePath: '/' });
}

const SITE_PATH = /^\/sites\/([a-z0-9-]{1,40})(\/.*)?$/;

/** The site a path on the service names: `/sites/{slug}/…`. */
function pathAddress(services: Services, pathname: string): SiteAddress | null {
  const match = SITE_PATH.exec(pathname);
  if (!match || match[2] === undefined) return null;
  const slug = match[1];
  return { slug, base: `${services.config.origin}/sites/${slug}/`, path: match[2].slice(1), cookiePath: `/sites/${slug}/` };
}

/**
 * A public site's static file, answered before the API's framework sees the request: the commonest request
 * of a storefront (scripts, styles, images) costs map look-ups and one write, as from a CDN's edge. The
 * answer is the one serveSite gives; anything else — pages, previews, a site that is not public, a file the
 * version lacks, a path that is not in normal form — goes on to it. True when answered.
 */
export function serveStaticFile(services: Services, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
  const { method } = req;
  if ((method !== 'GET' && method !== 'HEAD') || !runtimes.has(services)) return false;
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const pathname = query < 0 ? url : url.slice(0, query);
  // Answered without a promise unless a look-up has to wait (PostgreSQL): most requests are no site's.
  return whenAnswered(hostAddress(services, req.headers.host ?? null, pathname, req), (byHost) => {
    const address = byHost ?? pathAddress(services, pathname);
    if (!address || address.path.startsWith(PREVIEW_SEGMENT)) return false;
    const runtime = runtimeOf(services);
    return whenAnswered(servedSite(services, runtime, address.slug), (served) => {
      const version = served && publicVersion(served);
      // Asset paths are stored in normal form, so a path with dot segments or escapes finds none here.
      const asset = version?.assets[address.path];
      if (!asset) return false;
      const { status, headers, body } = assetAnswer(runtime, asset, method, req.headers['if-none-match']);
      res.writeHead(status, headers).end(body);
      return true;
    });
  });
}

export function mountSites(app: H3, services: Services) {
  const { protocol, hostname: ownHost } = new URL(services.config.origin);
  runtimes.set(services, {
    host: new RuntimeHost({ onCallbackError: (error, where) => console.error(`[svc] site ${where.op} callback failed (${where.installationId}):`, error) }),
    app,
    blobs: new BlobCache(services),
    sites: new Map(),
    versions: new Map(),
    lane: 0,
    protocol,
    ownHost,
  });
  mountAcmeChallenges(app, services);
  mountBuyerApiCors(app, services);
  app.use((event: H3Event) => {
    const byHost = hostAddress(services, event.req.headers.get('host'), event.url.pathname, event.runtime?.node?.req);
    return whenAnswered(byHost, (address) => (address ? serveSite(services, event, address) : undefined));
  });
  mountSuspension(app, services);
  app.all('/sites/**', (event: H3Event) => {
    const address = pathAddress(services, event.url.pathname);
    if (address) return serveSite(services, event, address);
    // Only `/sites/{slug}` itself matches without being an address: it gets its trailing slash.
    const slug = SITE_PATH.exec(event.url.pathname)?.[1];
    return slug ? new Response(null, { status: 308, headers: { location: `/sites/${slug}/${event.url.search}` } }) : notFoundPage();
  });
}

/** The preview address of a store's site, for the checkout's return-address rule. */
export function isPreviewAddress(services: Services, slug: string, url: URL): boolean {
  const base = new URL(siteUrl(services, slug));
  return url.origin === base.origin && url.pathname.startsWith(`${base.pathname}${PREVIEW_SEGMENT}`);
}

/**
 * The operator's suspension of a site or a store's hosting (spec 02 §3): the operator API of a deployment
 * (`/_operator/v1/storefront/…`, `svc operator sites|stores suspend|resume`) and svc dev's `/_dev` helpers.
 */
function mountSuspension(app: H3, services: Services) {
  const routes: [string, typeof devRoute][] = [];
  if (services.config.mode === 'dev') routes.push(['/_dev/v1', devRoute]);
  if (services.config.operatorToken) routes.push(['/_operator/v1', operatorRoute]);
  const target = z.object({ slug: z.string(), reason: z.string().min(1).max(200).optional() }).strict();
  const suspend = (suspended: boolean) => (raw: unknown) => {
    const { slug, reason } = parseWith(target, raw);
    return transaction(services.db, async () => {
      const site = await services.db.select().from(sites).where(eq(sites.slug, slug)).get();
      if (!site) throw fail(404, 'STOREFRONT_SITE_NOT_FOUND', { slug });
      const changed = await changeSite(services.db, site, suspended ? { status: 'SUSPENDED', suspensionReason: reason ?? 'OPERATOR' } : { status: 'ACTIVE', suspensionReason: null }, services.clock.now());
      return { slug, status: changed.status, reason: changed.suspensionReason };
    });
  };
  // The whole store's hosting: its site (if any) shows the suspension page and every storefront change is refused.
  const storeTarget = z.object({ storeId: z.string(), reason: z.string().min(1).max(200).optional() }).strict();
  const suspendStore = (suspended: boolean) => (raw: unknown) => {
    const { storeId, reason } = parseWith(storeTarget, raw);
    return transaction(services.db, async () => {
      const now = services.clock.now();
      const changed = (await services.db.update(stores).set(suspended ? { suspendedAt: now, suspensionReason: reason ?? 'OPERATOR', updatedAt: now } : { suspendedAt: null, suspensionReason: null, updatedAt: now }).where(eq(stores.id, storeId)).run()).changes;
      if (changed === 0) throw fail(404, 'STORE_NOT_FOUND', { storeId });
      const site = await services.db.select().from(sites).where(eq(sites.storeId, storeId)).get();
      if (site) await changeSite(services.db, site, {}, now);
      return { storeId, suspended, reason: suspended ? reason ?? 'OPERATOR' : null };
    });
  };
  for (const [prefix, route] of routes) {
    app.post(`${prefix}/storefront/suspension`, route(services, suspend(true)));
    app.delete(`${prefix}/storefront/suspension`, route(services, suspend(false)));
    app.post(`${prefix}/storefront/store-suspension`, route(services, suspendStore(true)));
    app.delete(`${prefix}/storefront/store-suspension`, route(services, suspendStore(false)));
  }
}
