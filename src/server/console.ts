/**
 * The console (issue 33): the seller's and developer's web screen, a client of the public API only, built from
 * console/ into dist/console by scripts/bundle-console.mjs. Served at `/console/` by `svc dev` (and by `svc serve`
 * with --console / SVC_CONSOLE=1) from memory: the files are read once at start, never per request. No module
 * knows it exists; the composition root registers its OAuth client (src/server/main.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { H3, H3Event } from 'h3';
import { packageRoot } from '../paths.js';

export const CONSOLE_PATH = '/console/';
export const CONSOLE_CLIENT = { clientId: 'svc-console', name: 'svc 콘솔', redirectPath: '/console/callback' } as const;

/**
 * Scripts and styles of the console's own origin only, no inline script or style attribute injection
 * beyond the graph library's (style-src 'unsafe-inline': React Flow and uPlot position nodes by style
 * attributes), API calls to this origin, no framing.
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
  json: 'application/json',
};

interface ConsoleFile {
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

/** dist/console read into memory: file name under the folder → its bytes. Empty when the console was not built. */
export function loadConsoleFiles(dir = join(packageRoot, 'dist', 'console')): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.map') || entry.name === 'meta.json') continue;
    const path = join(entry.parentPath, entry.name);
    const ext = entry.name.slice(entry.name.lastIndexOf('.') + 1);
    files.set(relative(dir, path), { body: new Uint8Array(readFileSync(path)), type: TYPES[ext] ?? 'application/octet-stream' });
  }
  return files;
}

const headersFor = (type: string, cache: string) => ({
  'content-type': type,
  'content-security-policy': CONSOLE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': cache,
});

/**
 * `/console/assets/*` are content-hashed (cached for good); every other path under `/console/` is a route of the
 * single-page app and answers its index.html (never cached, so a new build is picked up).
 */
export function mountConsole(app: H3, files: Map<string, ConsoleFile>) {
  const index = files.get('index.html');
  const page = () =>
    index
      ? new Response(index.body, { headers: headersFor(index.type, 'no-store') })
      : new Response('The console is not built: run npm run build.', { status: 503, headers: headersFor('text/plain; charset=utf-8', 'no-store') });
  // The router takes `/console/` for `/console` too: only the bare one is sent on to the folder's address.
  app.get('/console', (event: H3Event) =>
    event.url.pathname === '/console' ? new Response(null, { status: 308, headers: { location: CONSOLE_PATH } }) : page(),
  );
  app.get('/console/**:path', (event: H3Event) => {
    const path = event.url.pathname.slice(CONSOLE_PATH.length);
    if (path.startsWith('assets/')) {
      const file = files.get(path);
      if (!file) return new Response('Not found', { status: 404, headers: headersFor('text/plain; charset=utf-8', 'no-store') });
      return new Response(file.body, { headers: headersFor(file.type, 'public, max-age=31536000, immutable') });
    }
    return page();
  });
}
