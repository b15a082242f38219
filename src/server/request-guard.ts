import { isIP } from 'node:net';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorEnvelope, newTraceId } from './envelope.js';
import { ApiError } from './errors.js';
import { defineMessages } from './messages.js';

defineMessages({
  MISDIRECTED_REQUEST: '이 주소(Host)로는 svc dev에 접속할 수 없습니다. 127.0.0.1이나 localhost로 접속하거나 --host로 지정한 이름을 쓰세요.',
  CROSS_ORIGIN_FORBIDDEN: '다른 출처(Origin)의 페이지에서 보낸 요청은 받지 않습니다.',
  URI_TOO_LONG: '요청 주소(URL)가 너무 깁니다. 주소와 헤더를 합쳐 16KB까지 받습니다.',
  REQUEST_HEADERS_TOO_LARGE: '요청 헤더가 너무 큽니다. 주소와 헤더를 합쳐 16KB까지 받습니다.',
  REQUEST_TIMEOUT: '요청을 제시간에 다 받지 못했습니다.',
  MALFORMED_REQUEST: 'HTTP 요청 형식이 올바르지 않습니다.',
});

/** The request line and headers together: at most 16 KB, Node's default limit. */
export const REQUEST_HEAD_LIMIT = 16 * 1024;
/**
 * The HTTP parser's own limit (`maxHeaderSize`), above REQUEST_HEAD_LIMIT: a request between the two still
 * reaches `oversizedRequest`, which can tell a long address (414) from large headers (431).
 */
export const PARSER_HEAD_LIMIT = 64 * 1024;

/** 414 URI_TOO_LONG or 431 REQUEST_HEADERS_TOO_LARGE for a request whose head passes REQUEST_HEAD_LIMIT (by whichever part is larger), else null. */
export function oversizedRequest(req: IncomingMessage): ApiError | null {
  // The parser keeps the head as latin1 text: lengths are bytes.
  const target = req.url?.length ?? 0;
  const headers = req.rawHeaders.reduce((sum, part) => sum + part.length + 2, 0);
  if (target + headers <= REQUEST_HEAD_LIMIT) return null;
  const details = { maxBytes: REQUEST_HEAD_LIMIT };
  return target > headers ? new ApiError(414, 'URI_TOO_LONG', details) : new ApiError(431, 'REQUEST_HEADERS_TOO_LARGE', details);
}

/** Parser errors by Node's code, answered as Node would (431, 413, 408, else 400) but in the envelope. */
const PARSER_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'REQUEST_HEADERS_TOO_LARGE'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'PAYLOAD_TOO_LARGE'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT'],
};

/**
 * The server's `clientError` listener: a request the HTTP parser refused (past PARSER_HEAD_LIMIT, malformed)
 * gets the envelope instead of Node's bare status line, then the connection closes.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, docs: string) {
  // Nothing is written over an answer already under way on this connection (it would corrupt it).
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
  const [status, code] = PARSER_ERRORS[error.code ?? ''] ?? [400, 'MALFORMED_REQUEST'];
  const body = JSON.stringify(errorEnvelope(new ApiError(status, code, status === 431 ? { maxBytes: REQUEST_HEAD_LIMIT } : null), newTraceId(), docs));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** svc dev's sites domain: each hosted site has the origin `http://{slug}.localhost:{port}` of its own. */
export const DEV_SITES_DOMAIN = 'localhost';

/**
 * The names `svc dev` answers to. A web page the developer visits can point its own domain at 127.0.0.1
 * (DNS rebinding) and then talk to the local service as a same-origin page — but the browser still sends
 * that domain as `Host`. So only loopback names, IP literals (which no rebinding can produce) and the
 * name given with `--host` are served; anything else gets 421. Names under `.localhost` are loopback too,
 * but they are hosted sites' own origins (devSiteHost): there only the sites answer, never the service.
 */
export function devHostAllowed(hostHeader: string | undefined, extraHost: string): boolean {
  if (!hostHeader) return false;
  const host = hostName(hostHeader);
  if (host === 'localhost' || devSiteHost(host) || isIP(host) !== 0) return true;
  return host === extraHost.toLowerCase();
}

/**
 * svc dev: a name under `.localhost` (`{slug}.localhost`, or a custom domain tried locally such as
 * `shop.example.localhost`) is a hosted site's origin. The storefront answers every request there — the
 * site, or its not-found page — except the buyer API and analytics collector a site uses on its own
 * origin, so the service's API, pages and `/_dev` helpers are never same-origin with a site's code.
 */
export const devSiteHost = (host: string) => host.endsWith(`.${DEV_SITES_DOMAIN}`);

/** The name part of a `Host` header: `[::1]:8787` → `::1`, `Example.test:80` → `example.test`. */
export function hostName(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/** Routes that a browser reaches as pages or page forms (and the dev helpers): these take writes from their own origin only. */
const PAGE_ROUTES = [/^\/_dev\//, /^\/pay\//, /^\/auth\/authorize$/, /^\/approvals\//];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard for pages and dev helpers: a state-changing request a browser sent from
 * another origin (its `Origin`, or `Sec-Fetch-Site: cross-site`) is refused. Requests without either header
 * come from scripts and CLIs, which forge nothing on anyone's behalf.
 */
export function crossOriginWrite(req: IncomingMessage, path: string): boolean {
  if (SAFE_METHODS.has(req.method ?? 'GET') || !PAGE_ROUTES.some((r) => r.test(path))) return false;
  if (req.headers['sec-fetch-site'] === 'cross-site') return true;
  // Our pages send no referrer, so a browser posts their forms with `Origin: null`; its fetch metadata,
  // which no page can set, still says the form was the service's own.
  if (req.headers['sec-fetch-site'] === 'same-origin') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true; // `Origin: null` (sandboxed frames, files) or garbage
  }
}
