import { BuyerApiError } from '../lib/api.js';
import { dateLabel, optionLabel, won } from '../lib/format.js';
import { html } from '../lib/html.js';
import { CART_ID_KEY } from '../lib/site.js';
import type { Cart, CartAdd, CartItem, Sheet } from '../lib/types.js';
import { chosenOptionsLabel } from '../lib/item-options.js';
import { qs, site } from './site.js';

/**
 * The cart is the buyer API's guest cart; the browser keeps only its id (localStorage) and sends it as
 * `x-svc-cart`. Prices and stock are always the API's, read fresh.
 */
const storageKey = CART_ID_KEY(site.config.storeId);
const cartId = () => localStorage.getItem(storageKey);
const cartHeaders = (): Record<string, string> => {
  const id = cartId();
  return id ? { 'x-svc-cart': id } : {};
};

const UNAVAILABLE: Record<string, string> = {
  INSUFFICIENT_STOCK: '재고가 부족합니다',
  PRODUCT_NOT_FOUND: '판매가 끝난 상품입니다',
  OPTION_NOT_FOUND: '판매가 끝난 옵션입니다',
  DATES_UNAVAILABLE: '예약할 수 없는 날짜입니다',
};

async function readCart(): Promise<Cart> {
  if (!cartId()) return { cartId: null, items: [], itemsAmount: 0 };
  try {
    return (await site.api<Cart>('GET', '/cart', { headers: cartHeaders() })).data;
  } catch (error) {
    // A cart that expired or belongs to another store: start over.
    if (error instanceof BuyerApiError && error.code === 'CART_NOT_FOUND') {
      localStorage.removeItem(storageKey);
      return { cartId: null, items: [], itemsAmount: 0 };
    }
    throw error;
  }
}

function showCount(cart: Cart) {
  const count = cart.items.reduce((n, item) => n + item.quantity, 0);
  for (const badge of document.querySelectorAll<HTMLElement>('[data-cart-count]')) {
    badge.textContent = String(count);
    badge.hidden = count === 0;
  }
}

export async function addToCart(item: CartAdd) {
  const { data, headers } = await site.api<Cart>('POST', '/cart/items', { body: item, headers: cartHeaders() });
  const id = headers.get('x-svc-cart') ?? data.cartId;
  if (id) localStorage.setItem(storageKey, id);
  showCount(data);
  return data;
}

/** Checkout of the cart's available lines: a sheet, then its page. */
async function orderCart(cart: Cart) {
  const cartItemIds = cart.items.filter((i) => i.available).map((i) => i.cartItemId);
  const { data: sheet } = await site.api<Sheet>('POST', '/checkout', { body: { cartItemIds }, headers: cartHeaders() });
  location.assign(site.paths.checkout(sheet.checkoutId));
}

function line(item: CartItem) {
  return html`<li class="line${item.available ? '' : ' unavailable'}" data-item="${item.cartItemId}">
<img src="${item.thumbnailUrl ?? site.config.placeholderImage}" alt="" width="64" height="64">
<div><a href="${site.paths.product(item.productId)}"><b>${item.name ?? '판매 종료 상품'}</b></a>
${item.optionValues.length ? html`<span class="muted">${optionLabel(item.optionValues)}</span>` : ''}
${item.stay ? html`<span class="muted">${dateLabel(item.stay.checkIn)} ~ ${dateLabel(item.stay.checkOut)}</span>` : ''}
${chosenOptionsLabel(item) ? html`<span class="muted">${chosenOptionsLabel(item)}</span>` : ''}
${item.available ? html`<span class="muted">${won(item.unitPrice ?? 0)}</span>` : html`<span class="error">${UNAVAILABLE[item.unavailableReason ?? ''] ?? '지금은 주문할 수 없습니다'}</span>`}
<span class="stepper"><button type="button" data-step="-1" aria-label="하나 빼기"${item.quantity <= 1 ? html` disabled` : ''}>−</button><span>${item.quantity}</span><button type="button" data-step="1" aria-label="하나 더">+</button>
<button type="button" class="link" data-remove>삭제</button></span></div>
<span class="amount">${item.amount === null ? '' : won(item.amount)}</span></li>`;
}

async function renderCart(root: HTMLElement, cart: Cart) {
  showCount(cart);
  if (!cart.items.length) {
    root.innerHTML = html`<div class="empty"><p>장바구니가 비어 있습니다.</p><a class="button" href="${site.paths.home}">상품 보러 가기</a></div>`.value;
    return;
  }
  const orderable = cart.items.some((i) => i.available);
  root.innerHTML = html`<ul class="lines">${cart.items.map(line)}</ul>
<dl class="amounts"><dt class="total">상품 금액</dt><dd class="total">${won(cart.itemsAmount)}</dd></dl>
<p class="muted">배송비는 주문서에서 계산됩니다.</p>
<p class="error" data-cart-error hidden></p>
<button type="button" class="button wide" data-order${orderable ? '' : html` disabled`}>주문하기</button>`.value;

  const fail = (error: unknown) => {
    const box = qs('[data-cart-error]', root)!;
    box.textContent = error instanceof BuyerApiError ? error.message : '잠시 후 다시 시도해 주세요.';
    box.hidden = false;
  };
  root.onclick = async (event) => {
    const target = (event.target as HTMLElement).closest('button');
    if (!target) return;
    const itemId = target.closest<HTMLElement>('[data-item]')?.dataset.item;
    const item = cart.items.find((i) => i.cartItemId === itemId);
    target.disabled = true;
    try {
      if (target.dataset.order !== undefined) return await orderCart(cart);
      if (!item) return;
      const path = `/cart/items/${encodeURIComponent(item.cartItemId)}`;
      const next = target.dataset.remove !== undefined
        ? await site.api<Cart>('DELETE', path, { headers: cartHeaders() })
        : await site.api<Cart>('PATCH', path, { body: { quantity: item.quantity + Number(target.dataset.step) }, headers: cartHeaders() });
      await renderCart(root, next.data);
    } catch (error) {
      target.disabled = false;
      fail(error);
    }
  };
}

/** Every page shows the count; the cart page also the lines. */
export async function initCart() {
  const root = qs('[data-cart]');
  try {
    const cart = await readCart();
    if (root) await renderCart(root, cart);
    else showCount(cart);
  } catch (error) {
    if (root) root.innerHTML = html`<p class="error">${error instanceof BuyerApiError ? error.message : '장바구니를 불러오지 못했습니다.'}</p>`.value;
  }
}
