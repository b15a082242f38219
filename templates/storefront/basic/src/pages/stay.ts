import { html } from '../lib/html.js';
import type { Product } from '../lib/types.js';
import type { PageContext } from './context.js';

/**
 * Dated products (stays) need check-in and check-out dates. This template asks with two date inputs;
 * the `stay` template replaces this file with a calendar of available nights.
 */
export async function stayFields(_ctx: PageContext, product: Product, _variantId: string | null, form?: URLSearchParams) {
  if (product.inventoryMode !== 'DATED') return '';
  return html`<div class="stay-dates">
<label class="field"><span>체크인</span><input type="date" name="stay.checkIn" value="${form?.get('stay.checkIn') ?? ''}" required></label>
<label class="field"><span>체크아웃</span><input type="date" name="stay.checkOut" value="${form?.get('stay.checkOut') ?? ''}" required></label>
</div>`;
}
