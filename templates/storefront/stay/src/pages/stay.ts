import { addDays, CALENDAR_DAYS, calendarHtml, quoteStay, todayInKorea, type Calendar } from '../lib/calendar.js';
import { stayFromForm } from '../lib/checkout.js';
import { dateLabel, won } from '../lib/format.js';
import { html, jsonScript } from '../lib/html.js';
import type { Product } from '../lib/types.js';
import type { PageContext } from './context.js';

/**
 * Dated products (stays): a calendar of the chosen room's nights for picking check-in and check-out.
 * The calendar of every room is embedded for the browser script, which redraws it when the room changes.
 */
export async function stayFields(ctx: PageContext, product: Product, variantId: string | null, form?: URLSearchParams) {
  if (product.inventoryMode !== 'DATED') return '';
  const from = todayInKorea();
  const { data: calendar } = await ctx.api<Calendar>('GET', `/products/${encodeURIComponent(product.productId)}/calendar?from=${from}&to=${addDays(from, CALENDAR_DAYS - 1)}`);
  const days = calendar.variants.find((v) => v.variantId === variantId)?.days ?? [];
  const stay = form ? stayFromForm(form) : undefined;
  const quote = stay ? quoteStay(days, stay) : null;
  return html`<div class="stay" data-stay>
<input type="hidden" name="stay.checkIn" value="${quote ? stay!.checkIn : ''}">
<input type="hidden" name="stay.checkOut" value="${quote ? stay!.checkOut : ''}">
<p class="stay-summary" data-stay-summary>${quote && stay ? `${dateLabel(stay.checkIn)} ~ ${dateLabel(stay.checkOut)} · ${quote.nights}박 ${won(quote.price)}` : '체크인 날짜를 고르세요'}</p>
<div class="calendar" data-calendar>${calendarHtml(days, quote && stay ? stay : {})}</div>
<button type="button" class="link" data-calendar-more>다음 날짜 더 보기</button>
</div>
${jsonScript('svc-calendar', calendar)}`;
}
