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
