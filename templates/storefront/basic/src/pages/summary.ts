import { dateLabel, optionLabel, won } from '../lib/format.js';
import { html } from '../lib/html.js';
import type { Amounts, Sheet } from '../lib/types.js';
import type { PageContext } from './context.js';
import { imageOf } from './layout.js';
import { chosenOptionsLabel } from '../lib/item-options.js';

/** The lines of a checkout sheet, as the checkout and order-complete pages show them. */
export const sheetItems = (ctx: PageContext, sheet: Sheet) => html`<ul class="lines">${sheet.items.map((item) => html`<li class="line">
<img src="${imageOf(ctx, [item.thumbnailUrl])}" alt="" width="64" height="64">
<div><b>${item.name}</b>${item.optionValues.length ? html`<span class="muted">${optionLabel(item.optionValues)}</span>` : ''}
${item.stay ? html`<span class="muted">${dateLabel(item.stay.checkIn)} ~ ${dateLabel(item.stay.checkOut)}</span>` : ''}
${chosenOptionsLabel(item) ? html`<span class="muted" data-item-options>${chosenOptionsLabel(item)}</span>` : ''}
<span class="muted">${won(item.unitPrice)} × ${item.quantity}</span></div>
<span class="amount">${won(item.amount)}</span></li>`)}</ul>`;

/** `live`: the checkout page, where a postal code can still add the remote-area surcharge (its row stays). */
export const amountsTable = (amounts: Amounts, { live = false } = {}) => html`<dl class="amounts" data-amounts>
<dt>상품 금액</dt><dd data-amount="itemsAmount">${won(amounts.itemsAmount)}</dd>
<dt>배송비</dt><dd data-amount="deliveryAmount">${won(amounts.deliveryAmount)}</dd>
${live || amounts.remoteSurcharge ? html`<dt>도서산간 추가 배송비</dt><dd data-amount="remoteSurcharge">${won(amounts.remoteSurcharge)}</dd>` : ''}
${amounts.couponDiscountAmount ? html`<dt>쿠폰 할인</dt><dd>-${won(amounts.couponDiscountAmount)}</dd>` : ''}
${amounts.pointAmount ? html`<dt>포인트 사용</dt><dd>-${won(amounts.pointAmount)}</dd>` : ''}
<dt class="total">결제 금액</dt><dd class="total" data-amount="totalAmount">${won(amounts.totalAmount)}</dd>
</dl>`;
