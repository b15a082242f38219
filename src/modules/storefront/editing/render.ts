import type { H3Event } from 'h3';
import { RuntimeCallbackError, type FetchRequest, type FetchResponse, type RuntimeError, type RuntimeHost } from '../../../runtime-host/index.js';
import { readBodyBytes } from '../../../server/body.js';
import { ApiError } from '../../../server/errors.js';

/** Limits of one page render (spec 02 §8 leaves them to us; decisions.md). */
export const RENDER_LIMITS = { cpuMs: 500, wallMs: 10_000, memoryMb: 128, resultBytes: 5 * 1024 * 1024 };
const MAX_REQUEST_BODY = 1024 * 1024;
/** Request headers a site's server code sees; cookies and credentials of the service's own origin never. */
const FORWARDED = ['accept', 'accept-language', 'content-type', 'user-agent', 'referer', 'x-svc-visitor', 'x-svc-session'];
/**
 * Headers a site's answer cannot set: `Service-Worker-Allowed` (a service worker of the site never widens
 * its scope beyond its script's path), cookies (the code never sees any, and an editing environment's
 * server shares the service's loopback host, where cookies know no ports), site-data wipes, and what the
 * connection owns.
 */
const DROPPED = new Set([
  'service-worker-allowed',
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
]);
const NULL_BODY = new Set([204, 205, 304]);
/** RFC 9110 field names and values (no control characters): anything else would break the response. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A site's server bundle (`export default { fetch(request, env) }`) as the runtime gets it. */
export interface ServerBundle {
  /** Names the bundle's code: the version's id, or an editing environment's build. */
  id: string;
  code: string;
  map: string | undefined;
  /** `client.js` → the built file's path below the site's root (`__SVC_ASSETS__`). */
  clientEntries: Record<string, string>;
}

/** One page request of a site's server code: where it runs and what it may reach. */
export interface RenderTarget {
  /** The isolated-vm runtime (a worker process); never the service's own. */
  host: RuntimeHost;
  /** The isolate the call runs in. */
  installationId: string;
  /** Concurrency is limited per app. */
  appId: string;
  storeId: string;
  bundle: ServerBundle;
  /** The site's root URL as the visitor sees it (`env.siteUrl`); its origin is the buyer API's for the code. */
  base: string;
  /** `env.version`: `v3`, or `dev` in an editing environment. */
  version: string;
  /** Names the site in the service's log: `site my-shop`. */
  label: string;
  /** The service's buyer API (the store is set here); the code's fetch reaches nothing else. */
  buyerApi: (request: Request) => Promise<Response>;
  /** A preview render's trust (`svc_preview=…`), passed on to the buyer API so it knows the seller's browser. */
  previewCookie?: string | null;
}

/** A buyer-API request a render made, as the service answered it (`status` 0: refused before it was sent). */
export interface BuyerRead {
  method: string;
  /** Path and query below the site's origin: `/storefront/v1/store`. */
  path: string;
  /** The request sent credentials (a buyer token, the preview cookie): its answer is that visitor's. */
  credentialed: boolean;
  status: number;
}

export type Rendered =
  | {
      outcome: 'ANSWERED';
      status: number;
      headers: Record<string, string>;
      body: string | null;
      /** The code read the clock, randomness or a header (the guest's `volatile`): the same inputs may render otherwise. */
      volatile: boolean;
      /** Every buyer-API request of the render, in order. */
      reads: BuyerRead[];
    }
  | { outcome: 'BODY_TOO_LARGE' }
  | { outcome: 'FAILED'; error: RuntimeError };

/**
 * Runs the site's server code for one request in the runtime worker (CPU, memory and wall limits per
 * call) and turns its answer into one the service may send: only valid headers, none that would reach the
 * service's own cookies or connection.
 */
export async function renderPage(event: H3Event, target: RenderTarget): Promise<Rendered> {
  const method = event.req.method;
  let body: string | null = null;
  if (method !== 'GET' && method !== 'HEAD') {
    try {
      // Counted while it streams: a huge chunked body is cut off at the limit, never held whole.
      body = new TextDecoder().decode(await readBodyBytes(event, MAX_REQUEST_BODY));
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 413) throw error;
      return { outcome: 'BODY_TOO_LARGE' };
    }
  }
  const headers: [string, string][] = [];
  for (const name of FORWARDED) {
    const value = event.req.headers.get(name);
    if (value !== null) headers.push([name, value]);
  }
  const { origin } = new URL(target.base);
  const reads: BuyerRead[] = [];
  const result = await target.host.invoke(
    {
      installationId: target.installationId,
      appId: target.appId,
      bundleId: target.bundle.id,
      bundleCode: target.bundle.code,
      sourceMap: target.bundle.map,
      kind: 'site',
      name: 'fetch',
      input: { method, url: `${origin}${event.url.pathname}${event.url.search}`, headers, body },
      context: {
        storeId: target.storeId,
        storefrontApiUrl: `${origin}/storefront/v1`,
        siteUrl: target.base,
        version: target.version,
        assets: target.bundle.clientEntries,
      },
      limits: RENDER_LIMITS,
    },
    { fetch: (request) => buyerApiFetch(target, origin, request, reads) },
  );
  if (!result.ok) return { outcome: 'FAILED', error: result.error };
  const answer = result.result as { status: number; headers: [string, string][]; body: string; volatile?: boolean };
  const status = Number.isInteger(answer.status) && answer.status >= 200 && answer.status <= 599 ? answer.status : 200;
  const out: Record<string, string> = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
  for (const [raw, value] of answer.headers) {
    const name = raw.toLowerCase();
    if (DROPPED.has(name)) continue;
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) {
      console.error(`[svc] ${target.label}: dropped an invalid response header ${JSON.stringify(raw)}`);
      continue;
    }
    out[name] = name in out && name !== 'cache-control' && name !== 'x-content-type-options' ? `${out[name]}, ${value}` : value;
  }
  return {
    outcome: 'ANSWERED',
    status,
    headers: out,
    body: NULL_BODY.has(status) || method === 'HEAD' ? null : answer.body,
    volatile: answer.volatile !== false,
    reads,
  };
}

/** `fetch` of a site's server code: only the service's own buyer API, as the site's store. */
async function buyerApiFetch(target: RenderTarget, siteOrigin: string, request: FetchRequest, reads: BuyerRead[]): Promise<FetchResponse> {
  const api = `${siteOrigin}/storefront/v1`;
  const url = new URL(request.url, api);
  const read: BuyerRead = { method: request.method, path: `${url.pathname}${url.search}`, credentialed: false, status: 0 };
  reads.push(read);
  if (url.origin !== siteOrigin || !url.pathname.startsWith('/storefront/v1/')) {
    throw new RuntimeCallbackError('FETCH_BLOCKED', `a site's server code may fetch only the buyer API (${api}/…)`);
  }
  const headers = new Headers(request.headers.filter(([name]) => !['cookie', 'authorization-override', 'host'].includes(name.toLowerCase())));
  headers.set('x-store-id', target.storeId);
  if (target.previewCookie) headers.set('cookie', target.previewCookie);
  read.credentialed = headers.has('cookie') || headers.has('authorization');
  const response = await target.buyerApi(new Request(url, { method: request.method, headers, body: request.body }));
  read.status = response.status;
  return { status: response.status, statusText: response.statusText, url: url.href, headers: [...response.headers], body: await response.text() };
}
