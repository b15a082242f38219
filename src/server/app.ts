import { H3, type H3Event } from 'h3';
import { mountDevRoutes } from './dev.js';
import { mountFonts } from './fonts.js';
import { errorResponse, newTraceId } from './envelope.js';
import { ApiError, fail } from './errors.js';
import { escapeHtml, htmlResponse } from './html.js';
import { JsonDocument } from './json-document.js';
import { allMessages } from './messages.js';
import { openApiDocument } from './openapi.js';
import { operationHandler } from './pipeline.js';
import type { Services } from './services.js';

/** `{param}` (OpenAPI) to `:param` (router). */
const routerPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
const pathPattern = (path: string) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}/?$`);

/**
 * Paths retired with no overlap (spec 01 §5.1, §9): 410 with the code that says why, and the successor if any.
 * `routes` are registered explicitly where a live operation's path parameter would otherwise take the path.
 */
const RETIRED_PATHS: { pattern: RegExp; code: string; successor?: string; routes?: string[] }[] = [
  { pattern: /^\/oauth2(\/|$)/, code: 'TOKEN_TYPE_RETIRED' },
  { pattern: /^\/v1\/store\/api-tokens(\/|$)/, code: 'TOKEN_TYPE_RETIRED' },
  { pattern: /^\/v1\/store\/api-clients(\/|$)/, code: 'TOKEN_TYPE_RETIRED' },
  { pattern: /^\/v1\/product-images(\/|$)/, code: 'ENDPOINT_RETIRED', successor: '/v1/uploads' },
  {
    pattern: /^\/v1\/(commerce-flows\/assignment-rules|flow-assignment-rules)(\/|$)/,
    code: 'FLOW_ASSIGNMENT_RULES_RETIRED',
    routes: ['/v1/commerce-flows/assignment-rules', '/v1/commerce-flows/assignment-rules/**'],
  },
];

/** Assembles the whole service as one H3 app: registry operations, OAuth, well-known, dev helpers; `mountExtra` adds the composition root's own routes (the console). */
export function createApp(services: Services, mountExtra?: (app: H3) => void): H3 {
  const docs = `${services.config.origin}/docs/errors`;
  const app = new H3({
    // Errors H3 raises before a route runs (malformed URL, …) still answer in the envelope.
    onError: (error, event) => {
      const status = error.status ?? 500;
      const apiError = status >= 500 ? new ApiError(500, 'INTERNAL_ERROR') : new ApiError(status, status === 404 ? 'ROUTE_NOT_FOUND' : 'VALIDATION_FAILED');
      if (status >= 500) console.error(`[svc] ${event.req.method} ${event.url.pathname}:`, error.cause ?? error);
      return errorResponse(apiError, newTraceId(), docs);
    },
  });

  const { modules, operations } = services;
  for (const retired of RETIRED_PATHS) {
    for (const route of retired.routes ?? [])
      app.all(route, () => errorResponse(fail(410, retired.code, retired.successor ? { successor: retired.successor } : undefined), newTraceId(), docs));
  }
  for (const op of operations) app.on(op.method, routerPath(op.path), operationHandler(services, op));

  mountFonts(app);
  for (const m of modules) m.mount?.(app, services);
  if (services.config.mode === 'dev') mountDevRoutes(app, services);
  mountExtra?.(app);

  // Made on first request, once per service: converting every schema costs more than a service start should.
  const openapi = new JsonDocument(() => openApiDocument(services, operations));
  app.get('/v1/openapi.json', (event: H3Event) => openapi.response(event.req.headers.get('accept-encoding')));
  app.get('/docs/errors', () => errorCodesPage());

  const patterns = operations.map((op) => ({ method: op.method, pattern: pathPattern(op.path) }));
  app.all('/**', (event: H3Event) => {
    const path = event.url.pathname;
    let error: ApiError;
    const retired = RETIRED_PATHS.find((r) => r.pattern.test(path));
    if (retired) error = fail(410, retired.code, retired.successor ? { successor: retired.successor } : undefined);
    else if (patterns.some((p) => p.pattern.test(path)))
      error = fail(405, 'METHOD_NOT_ALLOWED', { allowed: patterns.filter((p) => p.pattern.test(path)).map((p) => p.method) });
    else error = fail(404, 'ROUTE_NOT_FOUND', { method: event.req.method, path });
    return errorResponse(error, newTraceId(), docs);
  });
  return app;
}

function errorCodesPage() {
  const rows = Object.entries(allMessages())
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, message]) => `<tr id="${code}"><td><code>${code}</code></td><td>${escapeHtml(message)}</td></tr>`)
    .join('');
  return htmlResponse(
    `<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>svc 오류 코드</title></head><body><h1>오류 코드</h1><p>코드로 판단하세요. 메시지는 사람을 위한 것입니다.</p><table>${rows}</table></body></html>`,
  );
}
