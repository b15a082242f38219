import { closeSync, constants, lstatSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { H3, type H3Event } from 'h3';
import { toNodeHandler } from 'h3/node';
import { z } from 'zod';
import type { RuntimeError, RuntimeHost } from '../../../runtime-host/index.js';
import { readBodyBytes } from '../../../server/body.js';
import { ApiError } from '../../../server/errors.js';
import { escapeHtml } from '../../../server/html.js';
import type { BundleResult } from '../builds/bundle.js';
import { contentTypeOf } from '../builds/content-types.js';
import { projectConfig } from '../builds/project-checks.js';
import { renderPage, type ServerBundle } from './render.js';
import { cleanPath } from '../builds/source.js';

export interface LiveServerOptions {
  /** The project folder; only bundling (a seller process) and the public-file reader below look into it. */
  dir: string;
  /** The address it listens on. */
  host: string;
  port: number;
  /**
   * The name its pages are addressed by, when not `host`: a `.localhost` name of their own (browsers
   * resolve it to loopback) makes them a site apart from the service on 127.0.0.1, whose cookies they
   * then neither receive nor set.
   */
  name?: string;
  storeId: string;
  /** Names this server's isolate and its builds in the runtime. */
  id: string;
  /** The runtime the server code renders in: a worker process with limits per call, never this one. */
  runtime: RuntimeHost;
  /** Bundles the project as its config says (`signal`: the server closed); never throws for the project's faults. */
  bundle: (config: ProjectConfig, signal: AbortSignal) => Promise<BundleResult>;
  /** The buyer API as the store (`x-store-id` is set here). */
  buyerApi: (request: Request) => Promise<Response>;
  log: (line: string) => void;
}

export interface LiveServer {
  url: string;
  /** A file changed: rebuild soon (writes close together make one build); pages wait for it. */
  rebuild(): void;
  close(): Promise<void>;
}

export type ProjectConfig = z.output<typeof projectConfig>;

type Built = { ok: true; bundle: ServerBundle; client: Map<string, Uint8Array>; publicDir: string | undefined } | { ok: false; errors: string[] };

/** Writes this close together make one build. */
const DEBOUNCE_MS = 100;
const API_BODY_BYTES = 1024 * 1024;
/** Headers passed between the browser and the buyer API. */
const API_REQUEST_HEADERS = ['accept', 'content-type', 'authorization', 'idempotency-key', 'x-svc-cart', 'x-svc-visitor', 'x-svc-session', 'accept-language'];
const API_RESPONSE_HEADERS = ['content-type', 'x-svc-cart', 'retry-after', 'x-request-id'];
const RELOAD_SCRIPT = `<script>new EventSource('/_svc/livereload').onmessage = () => location.reload();</script>`;
const encoder = new TextEncoder();

/** The project's svc.storefront.json, or why it cannot be used. */
function readConfig(dir: string): ProjectConfig | string {
  try {
    return projectConfig.parse(JSON.parse(readFileSync(join(dir, 'svc.storefront.json'), 'utf8')));
  } catch (error) {
    return `svc.storefront.json: ${error instanceof z.ZodError ? z.prettifyError(error) : (error as Error).message}`;
  }
}

/**
 * A file of the project's public folder: a regular file reached through real folders — no `..`, no link
 * anywhere on the way, so nothing outside the project is ever read.
 */
function publicFile(dir: string, folder: string, path: string): Buffer | null {
  const root = cleanPath(folder);
  if (root === null || cleanPath(path) !== path) return null;
  const segments = [...root.split('/'), ...path.split('/')];
  let at = dir;
  for (const [i, segment] of segments.entries()) {
    at = join(at, segment);
    const stat = lstatSync(at, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink() || !(i < segments.length - 1 ? stat.isDirectory() : stat.isFile())) return null;
  }
  let fd: number;
  try {
    // O_NOFOLLOW: a link put in its place after the look is still not followed.
    fd = openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

const htmlPage = (status: number, title: string, text: string) =>
  new Response(
    `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><pre>${escapeHtml(text)}</pre>${RELOAD_SCRIPT}`,
    {
      status,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
    },
  );

const renderError = (error: RuntimeError) => [`${error.code}: ${error.message}`, error.stack ?? ''].filter(Boolean).join('\n');

/**
 * A store's project served live, as the hosted site serves it: a save rebuilds it (`bundle`) and open
 * pages reload; the server entry renders every page in the runtime worker's isolates (the published
 * sites' runtime); client entries come from the bundle output, public files from the project folder, and
 * the buyer API is passed through on the same origin. This process only serves files and relays
 * requests: it never runs the project's code.
 */
export async function startLiveServer(options: LiveServerOptions): Promise<LiveServer> {
  const first = readConfig(options.dir);
  if (typeof first === 'string') throw new Error(first);
  const listeners = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const aborting = new AbortController();
  let built: Built;
  let builds = 0;
  let origin = '';

  const reloadAll = () => {
    for (const listener of listeners) {
      try {
        listener.enqueue(encoder.encode('data: reload\n\n'));
      } catch {
        listeners.delete(listener);
      }
    }
  };

  async function buildOnce(): Promise<Built> {
    const config = readConfig(options.dir);
    if (typeof config === 'string') return { ok: false, errors: [config] };
    let result: BundleResult;
    try {
      result = await options.bundle(config, aborting.signal);
    } catch (error) {
      return { ok: false, errors: [(error as Error).message] };
    }
    if (!result.ok) return { ok: false, errors: result.errors };
    const { output } = result;
    const decoder = new TextDecoder();
    return {
      ok: true,
      bundle: {
        id: `${options.id}:${++builds}`,
        code: decoder.decode(output.server.code),
        map: output.server.map ? decoder.decode(output.server.map) : undefined,
        clientEntries: output.clientEntries,
      },
      client: output.client,
      publicDir: config.public,
    };
  }

  // Rebuilds: a write (re)starts the debounce; writes during a build run one more after it. `settled` is
  // what a page request waits for, so a page asked for after a write shows it.
  let timer: NodeJS.Timeout | undefined;
  let building = false;
  let again = false;
  // The first build is waited for like any other: a request that comes before it does not see "not built".
  let settled: PromiseWithResolvers<void> | null = Promise.withResolvers<void>();
  async function runBuilds() {
    timer = undefined;
    if (building) {
      again = true;
      return;
    }
    building = true;
    do {
      again = false;
      built = await buildOnce();
      options.log(built.ok ? '↻ rebuilt' : `✗ build: ${built.errors.join('\n')}`);
    } while (again && !aborting.signal.aborted);
    building = false;
    if (timer) return;
    settled?.resolve();
    settled = null;
    reloadAll();
  }
  const rebuild = () => {
    if (aborting.signal.aborted) return;
    settled ??= Promise.withResolvers<void>();
    clearTimeout(timer);
    timer = setTimeout(runBuilds, DEBOUNCE_MS);
  };

  const liveReload = () => {
    let self: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        self = controller;
        listeners.add(controller);
        controller.enqueue(encoder.encode(': connected\n\n'));
      },
      cancel() {
        listeners.delete(self);
      },
    });
    return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' } });
  };

  async function buyerApi(event: H3Event): Promise<Response> {
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (event.req.method !== 'GET' && event.req.method !== 'HEAD') {
      try {
        body = await readBodyBytes(event, API_BODY_BYTES);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 413) throw error;
        return new Response('request body too large', { status: 413, headers: { connection: 'close' } });
      }
    }
    const headers = new Headers({ 'x-store-id': options.storeId });
    for (const name of API_REQUEST_HEADERS) {
      const value = event.req.headers.get(name);
      if (value !== null) headers.set(name, value);
    }
    const answer = await options.buyerApi(new Request(event.url, { method: event.req.method, headers, body }));
    const out = new Headers();
    for (const name of API_RESPONSE_HEADERS) if (answer.headers.has(name)) out.set(name, answer.headers.get(name)!);
    return new Response(await answer.arrayBuffer(), { status: answer.status, headers: out });
  }

  async function page(event: H3Event): Promise<Response> {
    await settled?.promise;
    const current = built;
    const method = event.req.method;
    let path: string;
    try {
      path = decodeURIComponent(event.url.pathname).slice(1);
    } catch {
      return htmlPage(400, '잘못된 주소', event.url.pathname);
    }
    if (current.ok && (method === 'GET' || method === 'HEAD')) {
      const file = current.client.get(path) ?? (current.publicDir && path ? publicFile(options.dir, current.publicDir, path) : null);
      if (file)
        return new Response(method === 'HEAD' ? null : (file as Uint8Array<ArrayBuffer>), {
          headers: { 'content-type': contentTypeOf(path), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
        });
    }
    if (!current.ok) return htmlPage(500, '빌드 오류', current.errors.join('\n'));
    const rendered = await renderPage(event, {
      host: options.runtime,
      installationId: options.id,
      appId: options.id,
      storeId: options.storeId,
      bundle: current.bundle,
      base: `${origin}/`,
      version: 'dev',
      label: `editing ${options.id}`,
      buyerApi: options.buyerApi,
    });
    if (rendered.outcome === 'BODY_TOO_LARGE') return htmlPage(413, '요청이 너무 큽니다', '1 MiB보다 작게 보내 주세요.');
    if (rendered.outcome === 'FAILED') {
      options.log(`✗ ${method} ${event.url.pathname}: ${rendered.error.code} ${rendered.error.message}`);
      const slow = rendered.error.code === 'TIMEOUT' || rendered.error.code === 'CPU_LIMIT';
      return htmlPage(slow ? 504 : 500, '페이지 오류', renderError(rendered.error));
    }
    const html = (rendered.headers['content-type'] ?? '').startsWith('text/html') && rendered.body !== null;
    const body = html ? rendered.body!.replace(/<\/body>|$/i, (end) => `${RELOAD_SCRIPT}${end}`) : rendered.body;
    return new Response(body, { status: rendered.status, headers: rendered.headers });
  }

  const app = new H3();
  app.use((event) => {
    // Only its own name: a page of another name (DNS rebinding) reads nothing here.
    if (options.name && event.req.headers.get('host') !== new URL(origin).host) return new Response('misdirected request', { status: 421 });
    if (event.url.pathname === '/_svc/livereload') return liveReload();
    if (event.url.pathname.startsWith('/storefront/v1/')) return buyerApi(event);
    return page(event);
  });
  const http = createServer(toNodeHandler(app));
  await new Promise<void>((ok, ko) => {
    http.once('error', ko);
    http.listen(options.port, options.host, () => ok());
  });
  origin = `http://${options.name ?? options.host}:${(http.address() as AddressInfo).port}`;
  built = await buildOnce();
  if (!built.ok) options.log(`✗ build: ${built.errors.join('\n')}`);
  settled.resolve();
  settled = null;
  return {
    url: `${origin}/`,
    rebuild,
    async close() {
      aborting.abort();
      clearTimeout(timer);
      settled?.resolve();
      for (const listener of listeners) listener.close();
      listeners.clear();
      options.runtime.evictInstallation(options.id);
      http.closeAllConnections();
      await new Promise((ok) => http.close(ok));
    },
  };
}
