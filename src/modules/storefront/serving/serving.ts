import type { IncomingMessage, ServerResponse } from 'node:http';
import { eq } from 'drizzle-orm';
import type { H3, H3Event } from 'h3';
import { FastResponse } from 'srvx/node';
import { onPostgres, whenAnswered } from '../../../db/client.js';
import { preparedFor, pluckStatement } from '../../../db/prepared.js';
import { RuntimeHost } from '../../../runtime-host/index.js';
import { errorResponse, newTraceId } from '../../../server/envelope.js';
import { fail } from '../../../server/errors.js';
import { devSiteHost, hostName } from '../../../server/request-guard.js';
import type { Services } from '../../../server/services.js';
import { findStore } from '../../stores/index.js';
import { ACME_CHALLENGE_PATH, mountAcmeChallenges } from '../domains/certificates.js';
import { customDomainSlug, primaryUrl } from '../domains/domains.js';
import { renderPage } from '../editing/render.js';
import { sites, versions, type VersionAsset } from '../schema.js';
import { heldRedirect } from '../sites/lifecycle.js';
import { siteUrl, siteWriteCount, type Site } from '../sites/sites.js';
import { mountSuspension } from '../sites/suspension.js';
import type { Version } from '../sites/versions.js';
import { BlobCache, readBlob } from './blobs.js';
import { PageCache, publicStamp, reusable, type CachedPage } from './page-cache.js';
import { mountBuyerApiCors } from './origins.js';
import { closing, comingSoon, notFoundPage, page, renderFailed, suspended } from './pages.js';
import { openPreview, previewCookieOf, PREVIEW_SEGMENT, previewVersion } from './preview.js';
import { FONTS_PREFIX } from '../../../server/fonts.js';
import { POSTCODE_PATH } from './postcode.js';

/**
 * An isolate runs one call at a time on its own thread: a busy site gets a few, so its pages render on
 * several cores (each is a warm isolate of the same version, compiled from V8's code cache).
 */
const ISOLATES_PER_VERSION = 4;

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
  /** Public pages of published versions, answered again while nothing they read changed. */
  pages: PageCache;
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
    hit = {
      version,
      code: readBlob(services, version.server.bundle.hash).toString('utf8'),
      map: version.server.map ? readBlob(services, version.server.map.hash).toString('utf8') : undefined,
    };
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
  const store = await findStore(db, site.storeId);
  const served = {
    site,
    version: site.servedVersionId ? ((await loadVersion(services, runtime, site.servedVersionId))?.version ?? null) : null,
    storeSuspended: store?.suspendedAt != null,
  };
  if (runtime.sites.size > 10_000) runtime.sites.clear();
  runtime.sites.set(slug, { revision: site.revision, writes: trusted, served });
  return served;
}

// ── serving ──────────────────────────────────────────────────────────────────

async function serveFromVersion(
  services: Services,
  runtime: SiteRuntime,
  event: H3Event,
  site: Site,
  versionId: string,
  base: string,
  path: string,
): Promise<Response> {
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
  const headers = {
    'content-type': asset.contentType,
    etag,
    'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate',
    'x-content-type-options': 'nosniff',
  };
  if (ifNoneMatch === etag) return { status: 304, headers, body: null };
  return { status: 200, headers: { ...headers, 'content-length': String(asset.size) }, body: method === 'HEAD' ? null : runtime.blobs.get(asset.hash) };
}

const pageAnswer = ({ status, headers, body }: CachedPage) => new FastResponse(body, { status, headers: { ...headers } }) as unknown as Response;

/**
 * A page of the site's code. A public GET is answered from the page cache when the same version rendered
 * the same address while the store's public data was what it is now (serving/page-cache.ts); previews,
 * other methods and pages whose render read more than that run the code every time.
 */
async function render(
  services: Services,
  runtime: SiteRuntime,
  event: H3Event,
  site: Site,
  loaded: { version: Version; code: string; map: string | undefined },
  base: string,
): Promise<Response> {
  const { version } = loaded;
  const preview = base.endsWith(`/${PREVIEW_SEGMENT}`);
  const stamp = event.req.method === 'GET' && !preview ? await publicStamp(services, site.storeId) : null;
  const key = stamp === null ? null : `${site.storeId} ${site.revision} ${version.id} ${base} ${event.url.pathname}${event.url.search} ${stamp}`;
  const hit = key === null ? undefined : runtime.pages.get(key);
  if (hit) return pageAnswer(hit);
  const rendered = await renderPage(event, {
    host: runtime.host,
    installationId: `site:${version.id}:${(runtime.lane = (runtime.lane + 1) % ISOLATES_PER_VERSION)}`,
    appId: `site:${site.id}`,
    storeId: site.storeId,
    bundle: { id: version.id, code: loaded.code, map: loaded.map, clientEntries: version.clientEntries },
    base,
    version: `v${version.number}`,
    label: `site ${site.slug}`,
    // Answered in-process: no socket, no second trip through the network stack.
    buyerApi: (request) => Promise.resolve(runtime.app.fetch(request)),
    previewCookie: preview ? previewCookieOf(event.req.headers.get('cookie')) : null,
  });
  if (rendered.outcome === 'BODY_TOO_LARGE') return page(413, '요청이 너무 큽니다', '1 MiB보다 작게 보내 주세요.', { connection: 'close' });
  if (rendered.outcome === 'FAILED') {
    const { error } = rendered;
    console.error(
      `[svc] site ${site.slug} v${version.number} ${event.req.method} ${event.url.pathname}: ${error.code} ${error.message}${error.stack ? `\n${error.stack}` : ''}`,
    );
    return renderFailed(error.code === 'TIMEOUT' || error.code === 'CPU_LIMIT');
  }
  if (key !== null && reusable(rendered)) runtime.pages.set(key, rendered);
  return pageAnswer(rendered);
}

/** Where a visitor request of a site goes: the site's slug, its root URL (the root of its own origin) and the path below it. */
interface SiteAddress {
  slug: string;
  base: string;
  path: string;
}

/** The version the public sees, or null while a page of the platform shows instead (suspended, closing, coming soon). */
const publicVersion = ({ site, version, storeSuspended }: Served) =>
  site.status === 'ACTIVE' && !storeSuspended && site.visibility === 'PUBLIC' ? version : null;

/** One visitor request of a site, whatever address it came by. */
async function serveSite(services: Services, event: H3Event, { slug, base, path }: SiteAddress): Promise<Response> {
  const runtime = runtimeOf(services);
  const served = await servedSite(services, runtime, slug);
  if (!served) return (await heldRedirect(services, slug, `${path}${event.url.search}`)) ?? notFoundPage();
  const { site } = served;
  if (site.status === 'SUSPENDED' || served.storeSuspended) return suspended();
  if (site.status === 'CLOSED') return closing();
  if (path.startsWith(PREVIEW_SEGMENT)) {
    const open = /^_preview\/open\/([A-Za-z0-9_-]{20,100})$/.exec(path);
    if (open) return openPreview(services, event, site, open[1], `${base}${PREVIEW_SEGMENT}`);
    const versionId = previewVersion(services, event, site);
    if (!versionId) return page(403, '미리보기 권한이 없습니다', '관리자가 만든 미리보기 링크로 열어 주세요. 한 번 연 브라우저는 12시간 동안 볼 수 있습니다.');
    return serveFromVersion(services, runtime, event, site, versionId, `${base}${PREVIEW_SEGMENT}`, path.slice(PREVIEW_SEGMENT.length));
  }
  const version = publicVersion(served);
  if (!version) return comingSoon();
  return serveFromVersion(services, runtime, event, site, version.id, base, path);
}

/**
 * On a site's own host (`{slug}.{sitesDomain}`, a custom domain) the buyer API, the analytics collector, the
 * address search and the Korean webfont answer too, so the site's pages call them on their own origin — no cross-origin requests. Nothing else of
 * the service does: its API, pages and dev helpers are never same-origin with a site's code.
 */
const servedBesideSites = (path: string) =>
  path.startsWith('/storefront/v1/') ||
  path === '/_svc/analytics.js' ||
  path === POSTCODE_PATH ||
  path.startsWith(FONTS_PREFIX) ||
  path.startsWith(ACME_CHALLENGE_PATH);

const hostOf = (hostHeader: string | null) => hostName(hostHeader ?? '').replace(/\.$/, '');

function sitesDomainSlug(host: string, sitesDomain: string): string | null {
  if (!host.endsWith(`.${sitesDomain}`)) return null;
  const label = host.slice(0, -sitesDomain.length - 1);
  return label.includes('.') ? null : label;
}

/**
 * Hosts that are sites' and never the service's: every name under the sites domain, and in svc dev every
 * name under `.localhost` (the dev host guard admits those for sites only; custom domains tried locally are
 * such names). A request there that names no site gets the sites' not-found page, not the service.
 */
function siteOnlyHost(services: Services, host: string): boolean {
  const { sitesDomain } = services.config.storefront;
  return (sitesDomain !== null && host.endsWith(`.${sitesDomain}`)) || (services.config.mode === 'dev' && devSiteHost(host));
}

/**
 * The site a request's host names: `{slug}.{sitesDomain}` (`{slug}.localhost` in svc dev) or a connected
 * custom domain — sites are served on their own hosts only. Known at once on the service's own host and for
 * `{slug}.{sitesDomain}`; a custom domain takes a look-up.
 */
function hostAddress(
  services: Services,
  hostHeader: string | null,
  pathname: string,
  req: object | undefined,
): SiteAddress | null | Promise<SiteAddress | null> {
  if (servedBesideSites(pathname)) return null;
  const host = hostOf(hostHeader);
  const { sitesDomain } = services.config.storefront;
  const slug = sitesDomain ? sitesDomainSlug(host, sitesDomain) : null;
  if (slug !== null) return { slug, base: siteUrl(services, slug)!, path: pathname.slice(1) };
  const { ownHost, protocol } = runtimeOf(services);
  return whenAnswered(customDomainSlug(services, hostHeader, ownHost, req), (connected) =>
    connected === null ? null : { slug: connected, base: `${protocol}//${hostHeader}/`, path: pathname.slice(1) },
  );
}

const SITE_PATH = /^\/sites\/([a-z0-9-]{1,40})(?:\/(.*))?$/;

/**
 * `/sites/{slug}/…` on the service's own host, where svc dev used to serve sites: no site is served there,
 * the visitor goes to the site's own origin (same path below it, same query) — 308 to `{slug}.{sitesDomain}`,
 * 302 to a connected custom domain (svc serve without a sites domain; it can change) — or gets the API's 404.
 */
async function movedSitePath(services: Services, event: H3Event): Promise<Response> {
  const match = SITE_PATH.exec(event.url.pathname);
  if (match) {
    const rest = `${match[2] ?? ''}${event.url.search}`;
    const own = siteUrl(services, match[1]);
    if (own) return new Response(null, { status: 308, headers: { location: `${own}${rest}` } });
    const site = await services.db.select().from(sites).where(eq(sites.slug, match[1])).get();
    const address = site && (await primaryUrl(services, services.db, site));
    if (address) return new Response(null, { status: 302, headers: { location: `${address}${rest}`, 'cache-control': 'no-store' } });
  }
  return errorResponse(
    fail(404, 'ROUTE_NOT_FOUND', { method: event.req.method, path: event.url.pathname }),
    newTraceId(),
    `${services.config.origin}/docs/errors`,
  );
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
  return whenAnswered(hostAddress(services, req.headers.host ?? null, pathname, req), (address) => {
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
    pages: new PageCache(),
    lane: 0,
    protocol,
    ownHost,
  });
  mountAcmeChallenges(app, services);
  mountBuyerApiCors(app, services);
  app.use((event: H3Event) => {
    const hostHeader = event.req.headers.get('host');
    const byHost = hostAddress(services, hostHeader, event.url.pathname, event.runtime?.node?.req);
    return whenAnswered(byHost, (address) => {
      if (address) return serveSite(services, event, address);
      return siteOnlyHost(services, hostOf(hostHeader)) && !servedBesideSites(event.url.pathname) ? notFoundPage() : undefined;
    });
  });
  mountSuspension(app, services);
  app.all('/sites/**', (event: H3Event) => movedSitePath(services, event));
}
