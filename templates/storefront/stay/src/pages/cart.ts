import { html } from '../lib/html.js';
import type { PageContext } from './context.js';
import { loadStore, page } from './layout.js';

/**
 * The cart lives in the buyer API under a guest cart id that only the browser knows (localStorage), so
 * this page is a frame the client script fills in.
 */
export async function cartPage(ctx: PageContext) {
  return page(ctx, {
    title: '장바구니',
    store: await loadStore(ctx),
    noindex: true,
    body: html`<h1 class="title">장바구니</h1>
<section class="cart" data-cart><p class="muted" data-cart-loading>장바구니를 불러오는 중입니다…</p></section>
<noscript><p class="error">장바구니를 보려면 자바스크립트를 켜 주세요.</p></noscript>`,
  });
}
