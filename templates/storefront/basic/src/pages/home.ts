import { html } from '../lib/html.js';
import { priceTag } from '../lib/price.js';
import type { Product, ProductPage } from '../lib/types.js';
import { isSoldOut } from '../lib/variants.js';
import type { PageContext } from './context.js';
import { imageOf, loadStore, page } from './layout.js';

const PAGE_SIZE = 24;

function card(ctx: PageContext, product: Product) {
  const soldOut = isSoldOut(product);
  return html`<li class="card${soldOut ? ' sold-out' : ''}">
<a href="${ctx.paths.product(product.productId)}">
<img src="${imageOf(ctx, product.imageUrls)}" alt="${product.name}" loading="lazy" width="400" height="400">
<span class="name">${product.name}</span>
<span class="prices">${priceTag(product)}</span>
${soldOut ? html`<span class="tag">품절</span>` : product.inventoryMode === 'DATED' ? html`<span class="tag">날짜 선택</span>` : ''}
</a></li>`;
}

export async function homePage(ctx: PageContext) {
  const pageNo = Math.max(1, Number.parseInt(ctx.url.searchParams.get('page') ?? '1', 10) || 1);
  const [store, { data: list }] = await Promise.all([
    loadStore(ctx),
    ctx.api<ProductPage>('GET', `/collections/all/products?page=${pageNo}&size=${PAGE_SIZE}`),
  ]);
  const pager = list.totalPages > 1
    ? html`<nav class="pager">${pageNo > 1 ? html`<a href="${ctx.paths.home}?page=${pageNo - 1}">이전</a>` : ''}<span>${pageNo} / ${list.totalPages}</span>${pageNo < list.totalPages ? html`<a href="${ctx.paths.home}?page=${pageNo + 1}">다음</a>` : ''}</nav>`
    : '';
  return page(ctx, {
    title: '전체 상품',
    store,
    track: { name: 'product_list_view', props: { listId: 'all', productIds: list.contents.map((p) => p.productId) } },
    body: list.contents.length
      ? html`<h1 class="title">전체 상품</h1><ul class="grid">${list.contents.map((p) => card(ctx, p))}</ul>${pager}`
      : html`<section class="empty"><h1>준비 중인 상품이 없습니다</h1><p>곧 새로운 상품으로 찾아올게요.</p></section>`,
  });
}
