import { FastResponse } from 'srvx/node';
import { escapeHtml } from '../../../server/html.js';
import { KOREAN_FONT_FAMILY, KOREAN_FONT_LINK } from '../../../server/fonts.js';

/** Pages of the platform a site's address shows instead of the site (coming soon, suspended, closing, not found, failed). */
export function page(status: number, title: string, text: string, extra: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
${KOREAN_FONT_LINK}
<style>body{font-family:${KOREAN_FONT_FAMILY};display:grid;place-items:center;min-height:100vh;margin:0;background:#f7f7f8;color:#222}main{text-align:center;padding:2rem}h1{font-size:1.6rem}p{color:#666}</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;
  return new FastResponse(html, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra },
  }) as unknown as Response;
}
export const comingSoon = () => page(200, '곧 문을 엽니다', '상점을 준비하고 있습니다. 조금만 기다려 주세요.', { 'x-robots-tag': 'noindex' });
export const suspended = () => page(503, '이용할 수 없는 상점', '이 상점은 운영 정책에 따라 잠시 정지되었습니다.');
export const closing = () => page(410, '문을 닫은 상점', '이 상점은 운영을 마쳤습니다. 그동안 이용해 주셔서 감사합니다.', { 'x-robots-tag': 'noindex' });
export const notFoundPage = () => page(404, '페이지를 찾을 수 없습니다', '주소를 다시 확인해 주세요.');
export const renderFailed = (slow: boolean) =>
  page(
    slow ? 504 : 500,
    '페이지를 보여 줄 수 없습니다',
    slow ? '페이지를 만드는 데 너무 오래 걸렸습니다. 잠시 뒤 다시 시도해 주세요.' : '일시적인 오류입니다. 잠시 뒤 다시 시도해 주세요.',
  );
