import { BuyerApiError } from '../lib/api.js';
import { stayFromForm } from '../lib/checkout.js';
import { optionLabel, won } from '../lib/format.js';
import { html, jsonScript } from '../lib/html.js';
import { priceTag } from '../lib/price.js';
import type { Product, Sheet, Store } from '../lib/types.js';
import { initialVariant, optionField, variantFromForm } from '../lib/variants.js';
import { itemOptionFields, itemOptionsFromForm } from '../lib/item-options.js';
import type { PageContext } from './context.js';
import { imageOf, loadStore, notFound, page, redirect } from './layout.js';
import { stayFields } from './stay.js';

function shippingLine(product: Product) {
  if (product.fulfillment.type !== 'SHIPPING') return product.inventoryMode === 'DATED' ? '예약 확정 후 안내 문자를 보내 드립니다.' : '배송 없이 바로 이용하는 상품입니다.';
  const { deliveryType, deliveryFee, conditionalFreeAmount } = product.fulfillment.shipping;
  if (deliveryType === 'FREE') return '무료 배송';
  if (deliveryType === 'CONDITIONAL_FREE' && conditionalFreeAmount !== null) return `배송비 ${won(deliveryFee)} (${won(conditionalFreeAmount)} 이상 무료)`;
  return `배송비 ${won(deliveryFee)}`;
}

async function loadProduct(ctx: PageContext, productId: string): Promise<Product | null> {
  try {
    return (await ctx.api<Product>('GET', `/products/${encodeURIComponent(productId)}`)).data;
  } catch (error) {
    if (error instanceof BuyerApiError && error.status === 404) return null;
    throw error;
  }
}

async function render(ctx: PageContext, product: Product, store: Store | null, options: { status?: number; error?: string; form?: URLSearchParams } = {}) {
  const chosen = (options.form && variantFromForm(product, options.form)) ?? initialVariant(product);
  const canBuy = Boolean(store?.checkoutAvailable ?? true) && product.variants.length > 0;
  const selects = product.options.map((axis, i) => html`<label class="field"><span>${axis.name}</span>
<select name="${optionField(i)}" data-axis="${i}">${axis.values.map((value) => html`<option value="${value}"${chosen?.optionValues[i] === value ? html` selected` : ''}>${value}</option>`)}</select></label>`);
  const [main, ...more] = product.imageUrls;
  return page(ctx, {
    title: product.name,
    store,
    status: options.status,
    track: { name: 'product_view', props: { productId: product.productId } },
    body: html`<article class="product">
<div class="gallery">
  <img class="main-image" src="${imageOf(ctx, [main])}" alt="${product.name}" width="600" height="600">
  ${more.length ? html`<div class="thumbs">${[main, ...more].map((src) => html`<button type="button" class="thumb" data-image="${src}"><img src="${src}" alt="" width="72" height="72"></button>`)}</div>` : ''}
</div>
<div class="info">
  <h1>${product.name}</h1>
  <p class="prices" data-price>${chosen ? priceTag({ price: chosen.price, originalPrice: product.originalPrice }) : priceTag(product)}</p>
  <p class="muted">${shippingLine(product)}</p>
  ${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
  <form class="buy" method="post" action="${ctx.paths.product(product.productId)}" data-product-form data-checkout-available="${String(canBuy)}">
    <input type="hidden" name="productId" value="${product.productId}">
    ${selects}
    ${itemOptionFields(product, options.form)}
    ${await stayFields(ctx, product, chosen?.variantId ?? null, options.form)}
    <p class="stock" data-stock>${!chosen ? '판매 중인 옵션이 없습니다' : chosen.soldOut ? '품절' : product.inventoryMode === 'DATED' ? '날짜를 선택하세요' : '구매 가능'}${chosen && product.options.length ? html` <span class="muted">(${optionLabel(chosen.optionValues)})</span>` : ''}</p>
    <label class="field quantity"><span>수량</span><input type="number" name="quantity" value="${options.form?.get('quantity') ?? '1'}" min="1" max="999" inputmode="numeric" required></label>
    <div class="actions">
      <button type="submit" name="intent" value="cart" class="button secondary"${canBuy && !chosen?.soldOut ? '' : html` disabled`}>장바구니 담기</button>
      <button type="submit" name="intent" value="buy" class="button"${canBuy && !chosen?.soldOut ? '' : html` disabled`}>바로 구매</button>
    </div>
    <p class="form-message" data-message role="status"></p>
  </form>
</div>
</article>
${jsonScript('svc-product', product)}`,
  });
}

export async function productPage(ctx: PageContext, productId: string) {
  const [store, product] = await Promise.all([loadStore(ctx), loadProduct(ctx, productId)]);
  if (!product) return notFound(ctx, store);
  return render(ctx, product, store);
}

/**
 * The form without the browser script: "바로 구매" makes a checkout sheet for this one item and goes to
 * the checkout page. The cart lives in the buyer API under an id the browser keeps, so adding to it needs the script.
 */
export async function productFormPost(ctx: PageContext, productId: string) {
  const form = new URLSearchParams(await ctx.request.text());
  const [store, product] = await Promise.all([loadStore(ctx), loadProduct(ctx, productId)]);
  if (!product) return notFound(ctx, store);
  if (form.get('intent') !== 'buy') return render(ctx, product, store, { form, status: 400, error: '장바구니를 쓰려면 브라우저에서 자바스크립트를 켜 주세요. 바로 구매는 그대로 할 수 있습니다.' });
  const variant = variantFromForm(product, form);
  if (!variant) return render(ctx, product, store, { form, status: 400, error: '선택한 옵션 조합은 판매하지 않습니다.' });
  const stay = stayFromForm(form);
  const quantity = Number.parseInt(form.get('quantity') ?? '1', 10) || 1;
  try {
    const { data: sheet } = await ctx.api<Sheet>('POST', '/checkout', {
      body: { directItem: { productId: product.productId, optionId: variant.optionId, quantity, ...(stay ? { stay } : {}), ...itemOptionsFromForm(product, form) } },
    });
    return redirect(ctx.paths.checkout(sheet.checkoutId));
  } catch (error) {
    if (!(error instanceof BuyerApiError) || error.status >= 500) throw error;
    return render(ctx, product, store, { form, status: error.status, error: error.fieldErrors[0]?.message ?? error.message });
  }
}
