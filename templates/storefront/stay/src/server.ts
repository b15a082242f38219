/**
 * The site's server entry. The platform bundles it for a sandbox with no Node built-ins, timers or DOM,
 * and calls `fetch(request, env)` for every page; its `fetch` reaches only the buyer API at
 * `env.storefrontApiUrl`. Routes are the path below `env.siteUrl`.
 */
import { cartPage } from './pages/cart.js';
import { checkoutFormPost, checkoutPage } from './pages/checkout.js';
import { completePage } from './pages/complete.js';
import { pageContext, type Env, type PageContext } from './pages/context.js';
import { homePage } from './pages/home.js';
import { html } from './lib/html.js';
import { notFound, page } from './pages/layout.js';
import { productFormPost, productPage } from './pages/product.js';

export type { Env };

/** A path segment, or null when its escapes are malformed (such an address names no page). */
function segment(value: string | undefined) {
  try {
    return value === undefined ? null : decodeURIComponent(value);
  } catch {
    return null;
  }
}

function route(ctx: PageContext): Promise<Response> | Response {
  const { route: path } = ctx;
  const method = ctx.request.method.toUpperCase();
  const product = segment(/^products\/([^/]+)$/.exec(path)?.[1]);
  if (method === 'GET' || method === 'HEAD') {
    if (path === '') return homePage(ctx);
    if (product) return productPage(ctx, product);
    if (path === 'cart') return cartPage(ctx);
    if (path === 'checkout') return checkoutPage(ctx);
    if (path === 'orders/complete') return completePage(ctx);
  } else if (method === 'POST') {
    if (product) return productFormPost(ctx, product);
    if (path === 'checkout') return checkoutFormPost(ctx);
  }
  return notFound(ctx);
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const ctx = pageContext(request, env);
    try {
      return await route(ctx);
    } catch (error) {
      // The buyer API being down must not leave a blank page; the platform's log keeps the cause.
      console.error(error);
      return page(ctx, {
        title: '잠시 후 다시 시도해 주세요',
        status: 503,
        body: html`<section class="empty"><h1>잠시 후 다시 시도해 주세요</h1><p>페이지를 준비하지 못했습니다.</p><a class="button" href="${ctx.paths.home}">처음으로</a></section>`,
      });
    }
  },
};
