import { BuyerApiError } from '../lib/api.js';
import { stayFromForm } from '../lib/checkout.js';
import { optionLabel, won } from '../lib/format.js';
import { html } from '../lib/html.js';
import { priceTag } from '../lib/price.js';
import type { Product, Sheet, Variant } from '../lib/types.js';
import { findVariant, variantFromForm } from '../lib/variants.js';
import { addonAmountOf, itemOptionsFromForm } from '../lib/item-options.js';
import { addToCart } from './cart.js';
import { formParams, qs, readJson, site } from './site.js';
import { initStay, type StayPicker } from './stay.js';

/**
 * The option picker: each option group is a select; the chosen values name one variant, whose price and
 * stock the page shows. Values that lead to no variant on sale, or a sold-out one, are marked.
 */
export function initProduct() {
  const form = qs<HTMLFormElement>('[data-product-form]');
  const product = readJson<Product>('svc-product');
  if (!form || !product) return;
  const selects = [...form.querySelectorAll<HTMLSelectElement>('select[data-axis]')];
  const stockLine = qs('[data-stock]', form)!;
  const priceLine = qs('[data-price]')!;
  const message = qs('[data-message]', form)!;
  const buttons = [...form.querySelectorAll<HTMLButtonElement>('button[type=submit]')];
  const stay: StayPicker = initStay(form, product);

  const current = (): Variant | undefined => variantFromForm(product, formParams(form));

  // Each value shows the price of the combination it would make with the other choices — never a
  // `+1,000원` per value, which reads as if two such values added up.
  const pricesDiffer = new Set(product.variants.map((v) => v.price)).size > 1;
  const markValues = () => {
    selects.forEach((select, axis) => {
      for (const option of select.options) {
        const values = selects.map((s, i) => (i === axis ? option.value : s.value));
        const variant = findVariant(product, values);
        option.disabled = !variant;
        option.textContent = `${option.value}${!variant ? ' (없음)' : variant.soldOut ? ' (품절)' : pricesDiffer ? ` · ${won(variant.price)}` : ''}`;
      }
    });
  };

  /** Price, stock line and buttons for the chosen variant (and stay); returns whether it can be bought. */
  const update = () => {
    const variant = current();
    const stayState = stay.update(variant ?? null);
    if (!variant) stockLine.textContent = '선택한 옵션 조합은 판매하지 않습니다';
    else if (variant.soldOut) stockLine.textContent = '품절';
    else stockLine.textContent = stayState.message ?? '구매 가능';
    if (variant && product.options.length) stockLine.append(` (${optionLabel(variant.optionValues)})`);
    // The chosen add-ons add to the unit price, as the checkout sheet will charge.
    const addons = addonAmountOf(product, formParams(form));
    priceLine.innerHTML = priceTag({ price: (stayState.price ?? variant?.price ?? product.price) + addons, originalPrice: stayState.price === undefined && !addons ? product.originalPrice : null }).value;
    const buyable = Boolean(form.dataset.checkoutAvailable !== 'false' && variant && !variant.soldOut && stayState.ready);
    for (const b of buttons) b.disabled = !buyable;
    return buyable;
  };
  const changed = () => {
    message.textContent = '';
    update();
  };

  form.addEventListener('change', (event) => {
    if ((event.target as HTMLElement).matches('select[data-axis]')) markValues();
    changed();
  });
  stay.onChange(changed);

  for (const thumb of document.querySelectorAll<HTMLButtonElement>('[data-image]')) {
    thumb.addEventListener('click', () => qs<HTMLImageElement>('.main-image')!.setAttribute('src', thumb.dataset.image!));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter;
    const params = formParams(form, submitter);
    const variant = current();
    if (!variant) return;
    const stayDates = stayFromForm(params);
    const item = {
      productId: product.productId,
      optionId: variant.optionId,
      quantity: Math.max(1, Number.parseInt(params.get('quantity') ?? '1', 10) || 1),
      ...(stayDates ? { stay: stayDates } : {}),
      ...itemOptionsFromForm(product, params),
    };
    for (const b of buttons) b.disabled = true;
    try {
      if (params.get('intent') === 'buy') {
        const { data: sheet } = await site.api<Sheet>('POST', '/checkout', { body: { directItem: item } });
        location.assign(site.paths.checkout(sheet.checkoutId));
        return;
      }
      await addToCart(item);
      message.innerHTML = html`장바구니에 담았습니다. <a href="${site.paths.cart}">장바구니 보기</a>`.value;
    } catch (error) {
      message.textContent = error instanceof BuyerApiError ? error.fieldErrors[0]?.message ?? error.message : '잠시 후 다시 시도해 주세요.';
    }
    update();
  });

  markValues();
  update();
}
