import { request } from 'node:http';
import { Readable } from 'node:stream';

/** A hosted site's own origin in svc dev: `http://{slug}.localhost:{port}/` on the service's listener. */
export const siteUrlOf = (svc: { url: string }, slug: string) => `http://${slug}.localhost:${new URL(svc.url).port}/`;

/**
 * `fetch` of an address under `.localhost` as a browser makes it: Chromium resolves `*.localhost` to
 * loopback, Node does not (and its fetch ignores a `Host` header), so the request goes to 127.0.0.1 with
 * the address's host as `Host`. Redirects are not followed; string bodies only; the answer's body streams.
 */
export function localFetch(address: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(address);
  if (init.body != null && typeof init.body !== 'string') throw new Error('localFetch sends string bodies only');
  const body = init.body ?? null;
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { ...Object.fromEntries(new Headers(init.headers)), host: url.host };
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: url.port || 80, method, path: `${url.pathname}${url.search}`, headers, agent: false }, (res) => {
      const answer = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) answer.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
      const status = res.statusCode!;
      const empty = method === 'HEAD' || [204, 205, 304].includes(status);
      if (empty) res.resume();
      // Streamed as it comes, so an event stream (live reload) can be read while it stays open.
      resolve(new Response(empty ? null : (Readable.toWeb(res) as ReadableStream), { status, statusText: res.statusMessage, headers: answer }));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/** A request to a site of a test service (svc dev) on its own origin; `path` is below the site's root (`products/p1?x=1`). */
export const siteFetch = (svc: { url: string }, slug: string, path = '', init: RequestInit = {}) =>
  localFetch(new URL(path.replace(/^\//, ''), siteUrlOf(svc, slug)), init);
