import { asset, publicFile } from '../lib/assets.js';
import { html, jsonScript, type Html } from '../lib/html.js';
import type { Store } from '../lib/types.js';
import type { PageContext } from './context.js';

export interface PageOptions {
  title: string;
  body: Html;
  status?: number;
  /** The store's public settings, when the page read them (the header shows its name). */
  store?: Store | null;
  /** `<meta name="robots" content="noindex">` for pages about one buyer (checkout, order result). */
  noindex?: boolean;
  head?: Html;
  /** A visit event for the page beyond the page view (`product_view`, `product_list_view`), sent by the service's collector. */
  track?: { name: string; props: Record<string, unknown> };
}

/** The service's visit collector (spec 02 §6): page views, cookies, batching; `svc.track` for the rest. */
function collector(ctx: PageContext, track: PageOptions['track']): Html {
  const api = ctx.config.storefrontApiUrl;
  return html`<script src="${new URL('/_svc/analytics.js', api).href}" data-api="${api}" data-store="${ctx.config.storeId}" defer></script>
${track ? html`${jsonScript('svc-track', track)}<script>addEventListener('DOMContentLoaded', () => { const t = JSON.parse(document.getElementById('svc-track').textContent); window.svc?.track(t.name, t.props); });</script>` : ''}`;
}

export function page(ctx: PageContext, { title, body, status = 200, store, noindex, head, track }: PageOptions): Response {
  const { siteUrl } = ctx.config;
  const storeName = store?.name ?? '';
  const doc = html`<!doctype html>
<html lang="ko">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${storeName ? `${title} · ${storeName}` : title}</title>
${noindex ? html`<meta name="robots" content="noindex">` : ''}
<link rel="icon" href="${publicFile(siteUrl, 'favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${new URL('/_svc/fonts/noto-sans-kr/index.css', ctx.config.storefrontApiUrl).href}">
<link rel="stylesheet" href="${publicFile(siteUrl, 'style.css')}">
${head ?? ''}
${jsonScript('svc-site', ctx.config)}
<script type="module" src="${asset(siteUrl, 'client.js')}"></script>
${collector(ctx, track)}
</head>
<body>
<header class="top">
  <a class="brand" href="${ctx.paths.home}">${storeName || '스토어'}</a>
  <nav><a class="cart-link" href="${ctx.paths.cart}">장바구니 <span class="badge" data-cart-count hidden>0</span></a></nav>
</header>
${store && !store.checkoutAvailable ? html`<p class="notice" data-checkout-unavailable>${checkoutUnavailableMessage(store)}</p>` : ''}
<main>${body}</main>
${footer(ctx, store)}
</body>
</html>
`;
  // Pages about one buyer's order must not stay in any cache; the others are revalidated on each view.
  return new Response(doc.value, { status, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': noindex ? 'no-store' : 'no-cache' } });
}

/**
 * The business information a Korean online shop shows on every page (전자상거래법 §10: 상호, 대표자,
 * 사업자등록번호, 통신판매업 신고번호, address and contact), from the store settings; what is unset is left out.
 */
function footer(ctx: PageContext, store: Store | null | undefined): Html {
  const info = store?.businessInfo;
  const address = info?.address && `${info.address.address1} ${info.address.address2}`.trim();
  const rows: [string, string | null | undefined][] = [
    ['상호', info?.companyName],
    ['대표자', info?.representativeName],
    ['사업자등록번호', info?.registrationNumber],
    ['통신판매업 신고번호', info?.mailOrderSalesNumber],
    ['주소', address],
    ['고객센터', info?.phone],
    ['이메일', info?.email],
  ];
  const shown = rows.filter((r): r is [string, string] => Boolean(r[1]));
  return html`<footer class="bottom" data-business-info>
<strong class="footer-name">${info?.companyName || store?.name || ''}</strong>
${shown.length ? html`<dl class="business">${shown.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>` : ''}
<span class="version">${ctx.env.version}</span>
</footer>`;
}

/** Why the store takes no orders now, as the buyer API says it (`checkoutUnavailableReason`). */
export function checkoutUnavailableMessage(store: Store): string {
  switch (store.checkoutUnavailableReason) {
    case 'PAYMENT_NOT_LIVE':
      return '이 상점은 아직 실제 결제를 받을 준비가 되지 않아 주문을 받지 않고 있습니다.';
    case 'PAYMENT_NOT_CONFIGURED':
      return '이 상점은 아직 결제 수단을 설정하지 않아 주문을 받지 않고 있습니다.';
    default:
      return '지금은 주문을 받지 않고 있습니다.';
  }
}

/** Product pictures: the first image, or the template's placeholder. */
export const imageOf = (ctx: PageContext, urls: (string | null | undefined)[]) => urls.find((u): u is string => Boolean(u)) ?? ctx.config.placeholderImage;

export const notFound = (ctx: PageContext, store?: Store | null) =>
  page(ctx, {
    title: '페이지를 찾을 수 없습니다',
    status: 404,
    store,
    body: html`<section class="empty"><h1>페이지를 찾을 수 없습니다</h1><p>주소가 바뀌었거나 판매가 끝난 상품일 수 있습니다.</p><a class="button" href="${ctx.paths.home}">상품 보러 가기</a></section>`,
  });

export const redirect = (location: string) => Response.redirect(location, 303);

/** The store's public settings for the header; a page still renders when they cannot be read. */
export const loadStore = (ctx: PageContext): Promise<Store | null> =>
  ctx.api<Store>('GET', '/store').then((r) => r.data, () => null);
