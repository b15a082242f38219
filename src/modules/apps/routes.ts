import { getRouterParams, type H3, type H3Event } from 'h3';
import { readBodyText } from '../../server/body.js';
import { errorResponse, newTraceId, toApiError } from '../../server/envelope.js';
import { ApiError, fail } from '../../server/errors.js';
import { hostName } from '../../server/request-guard.js';
import type { Services } from '../../server/services.js';
import { appSigningKeys, invokeAndRecord, UnusableAnswer } from './invoke.js';
import type { Manifest } from '../../kernel/app-manifest.js';
import { findApp, findAppByHandle, findInstallation, findVersion, latestVersion } from './app-records.js';

const FORWARDED_HEADERS = ['content-type', 'user-agent', 'accept', 'x-request-id'];
const MAX_BODY = 256 * 1024;

/**
 * In svc dev app pages and route answers share the service's origin: a CSP sandbox gives them an opaque
 * origin of their own (no access to the service's storage, cookies or same-origin requests), as the
 * separate `{handle}.{apps_host}` of svc serve does.
 */
const SANDBOX_CSP = 'sandbox allow-scripts allow-forms allow-popups';

/**
 * Headers an app's answer never sets: cookies (in svc dev they would land on the service's origin; on app
 * hosts one app could set them for its siblings' parent domain), site-data wipes, and what the connection owns.
 */
const DROPPED_HEADERS = new Set([
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'content-length',
]);
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** The declared public route matching a request, with its `:param` values. */
function matchPublicRoute(manifest: Manifest, method: string, path: string) {
  for (const entry of manifest.http?.public ?? []) {
    const [m, pattern] = entry.split(' ');
    if (m !== method) continue;
    const names: string[] = [];
    const re = new RegExp(`^${pattern.replace(/[.~-]/g, '\\$&').replace(/:([A-Za-z][A-Za-z0-9_]*)/g, (_s, n: string) => (names.push(n), '([^/]+)'))}/?$`);
    const hit = re.exec(path);
    if (!hit) continue;
    try {
      return { entry, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(hit[i + 1])])) };
    } catch {
      // A malformed escape (`%E0%A4`) names nothing the app declared.
      return null;
    }
  }
  return null;
}

/**
 * The function's answer `{ status, headers, body }` as a response: body strings go as is, anything else as
 * JSON. A header HTTP cannot carry is the app's error (UnusableAnswer), reported as such, never a 500.
 */
function routeResponse(value: unknown, sandboxed: boolean): Response {
  const r = (value && typeof value === 'object' ? value : { body: value }) as { status?: unknown; headers?: unknown; body?: unknown };
  const status = Number.isInteger(r.status) && (r.status as number) >= 200 && (r.status as number) <= 599 ? (r.status as number) : 200;
  const headers = new Headers();
  if (r.headers && typeof r.headers === 'object') {
    for (const [name, raw] of Object.entries(r.headers)) {
      if (DROPPED_HEADERS.has(name.toLowerCase())) continue;
      try {
        headers.append(name, String(raw));
      } catch {
        throw new UnusableAnswer(`response header ${JSON.stringify(name)} is not a valid HTTP header name and value`);
      }
    }
  }
  headers.set('x-content-type-options', 'nosniff');
  if (sandboxed) headers.set('content-security-policy', SANDBOX_CSP);
  if (NULL_BODY_STATUSES.has(status)) return new Response(null, { status, headers });
  if (typeof r.body === 'string') return new Response(r.body, { status, headers });
  if (!headers.has('content-type')) headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(r.body === undefined ? null : JSON.stringify(r.body), { status, headers });
}

/** `ui.adminPage` of the app's latest version: the developer's HTML. */
async function adminPage(services: Services, handle: string, sandboxed: boolean): Promise<Response> {
  const appRow = await findAppByHandle(services.db, handle);
  const page = appRow && appRow.latestVersion > 0 ? (await latestVersion(services.db, appRow)).bundle.adminPage : undefined;
  if (page === undefined) throw fail(404, 'ROUTE_NOT_FOUND');
  return new Response(page, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'x-content-type-options': 'nosniff',
      ...(sandboxed ? { 'content-security-policy': SANDBOX_CSP } : {}),
    },
  });
}

/** One call of a declared public route: `path` is what follows `/hooks/{installationId}`. */
async function publicRoute(
  services: Services,
  event: H3Event,
  target: { handle: string; installationId: string; path: string },
  sandboxed: boolean,
): Promise<Response> {
  const inst = await findInstallation(services.db, target.installationId);
  const appRow = inst ? await findApp(services.db, inst.appId) : undefined;
  if (!inst || !appRow || appRow.handle !== target.handle || inst.status !== 'ACTIVE') throw fail(404, 'ROUTE_NOT_FOUND');
  if (appRow.suspendedAt) throw fail(409, 'APP_SUSPENDED');
  const version = (await findVersion(services.db, inst.versionId))!;
  const { method } = event.req;
  const route = matchPublicRoute(version.manifest, method, target.path);
  if (!route) throw fail(404, 'ROUTE_NOT_FOUND', { method, path: target.path });
  const body = method === 'GET' || method === 'HEAD' ? '' : await readBodyText(event, MAX_BODY);
  const headers = Object.fromEntries(FORWARDED_HEADERS.flatMap((h) => (event.req.headers.has(h) ? [[h, event.req.headers.get(h)!]] : [])));
  const request = { method, path: target.path, params: route.params, query: Object.fromEntries(event.url.searchParams), headers, body };
  const outcome = await invokeAndRecord(services, { app: appRow, installation: inst, version }, 'route', route.entry, request, (value) =>
    routeResponse(value, sandboxed),
  );
  if (!outcome.ok) throw new ApiError(502, 'APP_ROUTE_FAILED', { reason: outcome.code, appMessage: outcome.message });
  return outcome.value;
}

/** The handle an app host names (`{handle}.{apps_host}`), `null` for the apps host itself or deeper names, `undefined` for other hosts. */
function appHostHandle(hostHeader: string | null, appsHost: string): string | null | undefined {
  const host = hostName(hostHeader ?? '').replace(/\.$/, '');
  if (host === appsHost) return null;
  if (!host.endsWith(`.${appsHost}`)) return undefined;
  const label = host.slice(0, -appsHost.length - 1);
  return label.includes('.') ? null : label;
}

/**
 * App public routes and admin pages. With an apps host (svc serve) each app has a host of its own:
 * `{handle}.{apps_host}/` is its admin page and `/hooks/{installationId}/…` its public routes, and the
 * service's origin serves neither. Without one (svc dev) they live under `/apps/{handle}` on the service's
 * origin, sandboxed and without cookies. The external-runtime JWKS stays on the service's origin.
 */
export function mountAppRoutes(app: H3, services: Services) {
  const docs = `${services.config.origin}/docs/errors`;
  const answer = async (respond: () => Response | Promise<Response>) => {
    const traceId = newTraceId();
    try {
      return await respond();
    } catch (error) {
      return errorResponse(toApiError(error, traceId), traceId, docs);
    }
  };
  app.get('/.well-known/svc-apps-jwks.json', async () => ({ keys: [(await appSigningKeys(services)).publicJwk] }));

  const { appsHost } = services.config;
  if (appsHost) {
    app.use((event: H3Event) => {
      const handle = appHostHandle(event.req.headers.get('host'), appsHost);
      if (handle === undefined) return undefined;
      return answer(() => {
        const path = event.url.pathname;
        const hook = /^\/hooks\/([^/]+)(\/.*)?$/.exec(path);
        if (handle !== null && path === '/' && event.req.method === 'GET') return adminPage(services, handle, false);
        if (handle !== null && hook) return publicRoute(services, event, { handle, installationId: hook[1], path: hook[2] ?? '/' }, false);
        throw fail(404, 'ROUTE_NOT_FOUND', { method: event.req.method, path });
      });
    });
    return;
  }
  if (services.config.mode === 'serve') return;

  app.get('/apps/:handle', (event: H3Event) =>
    answer(() => adminPage(services, (getRouterParams(event, { decode: true }) as { handle: string }).handle, true)),
  );
  app.all('/apps/:handle/hooks/:installationId/**', (event: H3Event) =>
    answer(() => {
      const { handle, installationId } = getRouterParams(event, { decode: true }) as { handle: string; installationId: string };
      const prefix = `/apps/${handle}/hooks/${installationId}`;
      return publicRoute(services, event, { handle, installationId, path: event.url.pathname.slice(prefix.length) || '/' }, true);
    }),
  );
}
