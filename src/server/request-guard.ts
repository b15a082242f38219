import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { defineMessages } from './messages.js';

defineMessages({
  MISDIRECTED_REQUEST: '이 주소(Host)로는 svc dev에 접속할 수 없습니다. 127.0.0.1이나 localhost로 접속하거나 --host로 지정한 이름을 쓰세요.',
  CROSS_ORIGIN_FORBIDDEN: '다른 출처(Origin)의 페이지에서 보낸 요청은 받지 않습니다.',
});

/**
 * The names `svc dev` answers to. A web page the developer visits can point its own domain at 127.0.0.1
 * (DNS rebinding) and then talk to the local service as a same-origin page — but the browser still sends
 * that domain as `Host`. So only loopback names, IP literals (which no rebinding can produce) and the
 * name given with `--host` are served; anything else gets 421.
 */
export function devHostAllowed(hostHeader: string | undefined, extraHost: string): boolean {
  if (!hostHeader) return false;
  const host = hostName(hostHeader);
  if (host === 'localhost' || host.endsWith('.localhost') || isIP(host) !== 0) return true;
  return host === extraHost.toLowerCase();
}

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
