import type { H3Event } from 'h3';

/**
 * Headers of every HTML page the service serves (login and consent, the pay page, approval pages): no
 * framing (clickjacking), no referrer leaking codes or payment ids, no type sniffing, nothing cached.
 */
export const HTML_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** Markup the service builds itself (values already escaped with `escapeHtml`). */
export const htmlResponse = (markup: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(markup, { status, headers: { ...HTML_SECURITY_HEADERS, ...headers } });

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * A cookie of the service's own pages: HttpOnly (no script reads it), SameSite, scoped to the narrowest
 * path that works, and Secure whenever the page came over https — this request, or the address it serves.
 */
export function pageCookie(
  event: H3Event,
  address: string,
  cookie: { name: string; value: string; path: string; maxAgeSeconds: number; sameSite: 'Strict' | 'Lax' },
): string {
  const secure = event.url.protocol === 'https:' || address.startsWith('https:');
  return `${cookie.name}=${cookie.value}; Path=${cookie.path}; Max-Age=${cookie.maxAgeSeconds}; HttpOnly; SameSite=${cookie.sameSite}${secure ? '; Secure' : ''}`;
}
