import { getRouterParams, type H3, type H3Event } from 'h3';
import { errorResponse, newTraceId, toApiError } from '../../server/envelope.js';
import { ApiError, fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { appSigningKeys, invokeAndRecord } from './invoke.js';
import type { Manifest } from './manifest.js';
import { findApp, findInstallation, findVersion } from './service.js';

const FORWARDED_HEADERS = ['content-type', 'user-agent', 'accept', 'x-request-id'];
const MAX_BODY = 256 * 1024;

/** The declared public route matching a request, with its `:param` values. */
export function matchPublicRoute(manifest: Manifest, method: string, path: string) {
  for (const entry of manifest.http?.public ?? []) {
    const [m, pattern] = entry.split(' ');
    if (m !== method) continue;
    const names: string[] = [];
    const re = new RegExp(`^${pattern.replace(/[.~-]/g, '\\$&').replace(/:([A-Za-z][A-Za-z0-9_]*)/g, (_s, n: string) => (names.push(n), '([^/]+)'))}/?$`);
    const hit = re.exec(path);
    if (hit) return { entry, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(hit[i + 1])])) };
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

/** Public app routes (no login) at /apps/{handle}/hooks/{installationId}/…, and the external-runtime JWKS. */
export function mountAppRoutes(app: H3, services: Services) {
  const docs = `${services.config.origin}/docs/errors`;
  app.get('/.well-known/svc-apps-jwks.json', async () => ({ keys: [(await appSigningKeys(services)).publicJwk] }));

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
