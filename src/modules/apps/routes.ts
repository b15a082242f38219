import { getRouterParams, type H3, type H3Event } from 'h3';
import { errorResponse, newTraceId, toApiError } from '../../server/envelope.js';
import { ApiError, fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { appSigningKeys, invokeAndRecord } from './invoke.js';
import type { Manifest } from './manifest.js';
import { findApp, findAppByHandle, findInstallation, findVersion, latestVersion } from './service.js';

const FORWARDED_HEADERS = ['content-type', 'user-agent', 'accept', 'x-request-id'];
const MAX_BODY = 256 * 1024;

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

/** The function's answer `{ status, headers, body }`: body strings go as is, anything else as JSON. */
function toResponse(value: unknown): Response {
  const r = (value && typeof value === 'object' ? value : { body: value }) as { status?: unknown; headers?: unknown; body?: unknown };
  const status = Number.isInteger(r.status) && (r.status as number) >= 200 && (r.status as number) <= 599 ? (r.status as number) : 200;
  const headers = new Headers();
  if (r.headers && typeof r.headers === 'object') for (const [k, v] of Object.entries(r.headers)) headers.set(k, String(v));
  if (typeof r.body === 'string') return new Response(r.body, { status, headers });
  if (!headers.has('content-type')) headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(r.body === undefined ? null : JSON.stringify(r.body), { status, headers });
}

/** Public app routes (no login) at /apps/{handle}/hooks/{installationId}/…, admin pages at /apps/{handle}, and the external-runtime JWKS. */
export function mountAppRoutes(app: H3, services: Services) {
  const docs = `${services.config.origin}/docs/errors`;
  app.get('/.well-known/svc-apps-jwks.json', async () => ({ keys: [(await appSigningKeys(services)).publicJwk] }));

  // The admin page is the developer's HTML on the service's own origin: a CSP sandbox gives it an opaque
  // origin of its own (no access to the service's storage or cookies), as a separate host would.
  app.get('/apps/:handle', (event: H3Event) => {
    const { handle } = getRouterParams(event, { decode: true }) as { handle: string };
    const appRow = findAppByHandle(services.db, handle);
    const page = appRow && appRow.latestVersion > 0 ? latestVersion(services.db, appRow).bundle.adminPage : undefined;
    if (page === undefined) return errorResponse(fail(404, 'ROUTE_NOT_FOUND'), newTraceId(), docs);
    return new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups', 'x-content-type-options': 'nosniff' } });
  });

  app.all('/apps/:handle/hooks/:installationId/**', async (event: H3Event) => {
    const traceId = newTraceId();
    try {
      const { handle, installationId } = getRouterParams(event, { decode: true }) as { handle: string; installationId: string };
      const inst = findInstallation(services.db, installationId);
      const appRow = inst ? findApp(services.db, inst.appId) : undefined;
      if (!inst || !appRow || appRow.handle !== handle || inst.status !== 'ACTIVE') throw fail(404, 'ROUTE_NOT_FOUND');
      if (appRow.suspendedAt) throw fail(409, 'APP_SUSPENDED');
      const version = findVersion(services.db, inst.versionId)!;
      const prefix = `/apps/${handle}/hooks/${installationId}`;
      const path = event.url.pathname.slice(prefix.length) || '/';
      const route = matchPublicRoute(version.manifest, event.req.method, path);
      if (!route) throw fail(404, 'ROUTE_NOT_FOUND', { method: event.req.method, path });
      const body = event.req.method === 'GET' ? '' : await event.req.text();
      if (body.length > MAX_BODY) throw fail(413, 'PAYLOAD_TOO_LARGE', { maxBytes: MAX_BODY });
      const headers = Object.fromEntries(FORWARDED_HEADERS.flatMap((h) => (event.req.headers.has(h) ? [[h, event.req.headers.get(h)!]] : [])));
      const request = { method: event.req.method, path, params: route.params, query: Object.fromEntries(event.url.searchParams), headers, body };
      const outcome = await invokeAndRecord(services, { app: appRow, installation: inst, version }, 'route', route.entry, request);
      if (!outcome.ok) throw new ApiError(502, 'APP_ROUTE_FAILED', { reason: outcome.code, appMessage: outcome.message });
      return toResponse(outcome.value);
    } catch (error) {
      return errorResponse(toApiError(error, traceId), traceId, docs);
    }
  });
}
