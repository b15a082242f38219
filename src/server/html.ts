/** Markup the service builds itself (values already escaped with `escapeHtml`). */
export const htmlResponse = (markup: string, status = 200) =>
  new Response(markup, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
