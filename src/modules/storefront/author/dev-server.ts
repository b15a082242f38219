import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import * as esbuild from 'esbuild';
import { contentTypeOf } from '../content-types.js';

export interface DevServerOptions {
  dir: string;
  host: string;
  port: number;
  /** The service (svc dev) whose buyer API the shop uses, e.g. http://127.0.0.1:8787. */
  apiUrl: string;
  storeId: string;
  log: (line: string) => void;
}

interface SiteEntry {
  fetch(request: Request, env: Record<string, string>): Promise<Response>;
}

/** Headers passed between the browser and the buyer API through the dev server. */
const API_REQUEST_HEADERS = ['accept', 'content-type', 'authorization', 'idempotency-key', 'x-svc-cart', 'x-svc-visitor', 'x-svc-session', 'accept-language'];
const API_RESPONSE_HEADERS = ['content-type', 'x-svc-cart', 'retry-after', 'x-request-id'];
const RELOAD_SCRIPT = `<script>new EventSource('/_svc/livereload').onmessage = () => location.reload();</script>`;

/**
 * `svc storefront dev`: the project served locally as the service will serve it — the server entry renders
 * pages (run in a `node:vm` context with the web's Request/Response and a fetch that reaches only the buyer
 * API), client entries and public files are served — rebuilt by esbuild's watch on every save, and open
 * pages reload. The buyer API is passed through on the same origin, as under `/sites/{slug}/`.
 */
export async function startDevServer(options: DevServerOptions) {
  const config = JSON.parse(readFileSync(join(options.dir, 'svc.storefront.json'), 'utf8')) as { server: string; client?: string[]; public?: string };
  const listeners = new Set<ServerResponse>();
  let site: SiteEntry | null = null;
  let buildError: string | null = null;
  const clientFiles = new Map<string, Uint8Array>();
  let origin = '';

  const reloadAll = () => {
    for (const res of listeners) res.write('data: reload\n\n');
  };
  const report = (what: string, result: esbuild.BuildResult) => {
    if (result.errors.length === 0) return null;
    const text = result.errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column} ` : ''}${e.text}`).join('\n');
    options.log(`✗ ${what}: ${text}`);
    return text;
  };
  const rebuilt = (what: string, apply: (result: esbuild.BuildResult) => void): esbuild.Plugin => ({
    name: 'svc-dev-reload',
    setup(build) {
      build.onEnd((result) => {
        buildError = report(what, result);
        if (!buildError) apply(result);
        options.log(`↻ ${what} rebuilt${buildError ? ' with errors' : ''}`);
        reloadAll();
      });
    },
  });

  const server = await esbuild.context({
    absWorkingDir: options.dir, entryPoints: [config.server], bundle: true, format: 'iife', globalName: '__app', platform: 'neutral', target: 'es2023',
    mainFields: ['module', 'main'], conditions: ['worker', 'browser'], write: false, outfile: 'out/server.js', logLevel: 'silent', sourcemap: 'inline',
    plugins: [rebuilt('server', (result) => {
      const code = result.outputFiles![0].text;
      const context = createContext({
        Request, Response, Headers, URL, URLSearchParams, TextEncoder, TextDecoder, console, __SVC_ASSETS__: { 'client.js': 'assets/client.js' },
        fetch: (input: string | URL | Request, init?: RequestInit) => {
          const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url, origin);
          if (!url.href.startsWith(`${origin}/storefront/v1/`)) return Promise.reject(Object.assign(new Error(`a site's server code may fetch only the buyer API (${origin}/storefront/v1/…)`), { code: 'FETCH_BLOCKED' }));
          return fetch(`${options.apiUrl}${url.pathname}${url.search}`, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-store-id': options.storeId } });
        },
      });
      site = (runInContext(`${code};__app.default`, context) as SiteEntry | undefined) ?? null;
    })],
  });
  const client = (config.client ?? []).length === 0 ? null : await esbuild.context({
    absWorkingDir: options.dir, entryPoints: config.client, bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false,
    outdir: 'out/assets', entryNames: '[name]', sourcemap: 'inline', logLevel: 'silent',
    plugins: [rebuilt('client', (result) => {
      clientFiles.clear();
      for (const file of result.outputFiles!) clientFiles.set(`assets/${file.path.split(/[\\/]/).pop()}`, file.contents);
    })],
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    const path = decodeURIComponent(url.pathname).slice(1);
    if (path === '_svc/livereload') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(': connected\n\n');
      listeners.add(res);
      req.on('close', () => listeners.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    if (req.method !== 'GET' && req.method !== 'HEAD') for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
    if (path.startsWith('storefront/v1/')) {
      const headers: Record<string, string> = { 'x-store-id': options.storeId };
      for (const name of API_REQUEST_HEADERS) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string;
      const answer = await fetch(`${options.apiUrl}${url.pathname}${url.search}`, { method: req.method, headers, body });
      const out: Record<string, string> = {};
      for (const name of API_RESPONSE_HEADERS) if (answer.headers.has(name)) out[name] = answer.headers.get(name)!;
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
      return;
    }
    const built = clientFiles.get(path);
    if (built) return void res.writeHead(200, { 'content-type': contentTypeOf(path), 'cache-control': 'no-store' }).end(built);
    const publicFile = config.public && path ? normalize(join(options.dir, config.public, path)) : null;
    if (publicFile && publicFile.startsWith(join(options.dir, config.public!)) && existsSync(publicFile) && !publicFile.endsWith('/')) {
      try {
        return void res.writeHead(200, { 'content-type': contentTypeOf(publicFile), 'cache-control': 'no-store' }).end(readFileSync(publicFile));
      } catch {
        // A folder by that name: the page renderer answers.
      }
    }
    if (buildError || !site) {
      const text = buildError ?? 'the server entry has no default export { fetch }';
      return void res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><meta charset="utf-8"><h1>빌드 오류</h1><pre>${text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</pre>${RELOAD_SCRIPT}`);
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    try {
      const env = { storeId: options.storeId, storefrontApiUrl: `${origin}/storefront/v1`, siteUrl: `${origin}/`, version: 'dev' };
      const answer = await site.fetch(new Request(url, { method: req.method, headers, body }), env);
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => (out[name] = value));
      let text = Buffer.from(await answer.arrayBuffer());
      if ((out['content-type'] ?? '').startsWith('text/html')) text = Buffer.from(text.toString('utf8').replace(/<\/body>|$/i, (end) => `${RELOAD_SCRIPT}${end}`));
      delete out['content-length'];
      res.writeHead(answer.status, out).end(req.method === 'HEAD' ? undefined : text);
    } catch (error) {
      options.log(`✗ ${req.method} ${url.pathname}: ${(error as Error).stack ?? error}`);
      res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><meta charset="utf-8"><h1>페이지 오류</h1><pre>${String((error as Error).stack ?? error).replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</pre>${RELOAD_SCRIPT}`);
    }
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(`svc storefront dev: ${(error as Error).message}`));
  });
  await new Promise<void>((ok, ko) => {
    http.once('error', ko);
    http.listen(options.port, options.host, () => ok());
  });
  origin = `http://${options.host}:${(http.address() as AddressInfo).port}`;
  await Promise.all([server.watch(), client?.watch()]);
  await Promise.all([server.rebuild(), client?.rebuild()]);
  return {
    url: `${origin}/`,
    async close() {
      for (const res of listeners) res.end();
      await Promise.all([server.dispose(), client?.dispose()]);
      await new Promise((ok) => http.close(ok));
    },
  };
}
