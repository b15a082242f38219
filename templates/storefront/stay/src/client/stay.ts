import { BuyerApiError } from '../lib/api.js';
import { addDays, CALENDAR_DAYS, calendarHtml, quoteStay, type Calendar, type CalendarDay } from '../lib/calendar.js';
import { dateLabel, won } from '../lib/format.js';
import type { Product, Stay, Variant } from '../lib/types.js';
import { qs, readJson, site } from './site.js';

/** What the product page needs from the stay dates: whether they are complete, and what to say. */
export interface StayState {
  ready: boolean;
  /** The stay's price per room: the sum of its nights. */
  price?: number;
  message?: string;
}

export interface StayPicker {
  update(variant: Variant | null): StayState;
  onChange(listener: () => void): void;
}

/** How far ahead buyers can page the calendar (each read is at most 120 days). */
const MAX_AHEAD = 360;

/**
 * The stay calendar: the first click picks check-in, a later one check-out (every night between must be
 * available; otherwise the click starts over as a new check-in). The hidden `stay.*` inputs carry the
 * choice to the cart and the checkout.
 */
export function initStay(form: HTMLFormElement, product: Product): StayPicker {
  const root = qs('[data-stay]', form);
  let calendar = readJson<Calendar>('svc-calendar');
  if (product.inventoryMode !== 'DATED' || !root || !calendar) return { update: () => ({ ready: true }), onChange: () => {} };
  const checkIn = form.querySelector<HTMLInputElement>('input[name="stay.checkIn"]')!;
  const checkOut = form.querySelector<HTMLInputElement>('input[name="stay.checkOut"]')!;
  const grid = qs('[data-calendar]', root)!;
  const summary = qs('[data-stay-summary]', root)!;
  const more = qs<HTMLButtonElement>('[data-calendar-more]', root)!;
  let variantId: string | null = null;
  let listener = () => {};

  const days = (): CalendarDay[] => calendar!.variants.find((v) => v.variantId === variantId)?.days ?? [];
  const stay = (): Partial<Stay> => ({ checkIn: checkIn.value || undefined, checkOut: checkOut.value || undefined });

  const state = (): StayState => {
    const { checkIn: from, checkOut: to } = stay();
    if (!from) return { ready: false, message: '체크인 날짜를 고르세요' };
    if (!to) return { ready: false, message: '체크아웃 날짜를 고르세요' };
    const quote = quoteStay(days(), { checkIn: from, checkOut: to });
    if (!quote) return { ready: false, message: '선택한 날짜에 예약할 수 없는 밤이 있습니다' };
    return { ready: true, price: quote.price, message: `예약 가능 · ${quote.nights}박` };
  };

  const draw = () => {
    grid.innerHTML = calendarHtml(days(), stay()).value;
    const { checkIn: from, checkOut: to } = stay();
    const quote = from && to ? quoteStay(days(), { checkIn: from, checkOut: to }) : null;
    summary.textContent = quote && from && to ? `${dateLabel(from)} ~ ${dateLabel(to)} · ${quote.nights}박 ${won(quote.price)}` : from ? `${dateLabel(from)} 체크인 · 체크아웃 날짜를 고르세요` : '체크인 날짜를 고르세요';
  };

  grid.addEventListener('click', (event) => {
    const date = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-date]')?.dataset.date;
    if (!date) return;
    const { checkIn: from, checkOut: to } = stay();
    if (from && !to && date > from && quoteStay(days(), { checkIn: from, checkOut: date })) {
      checkOut.value = date;
    } else {
      checkIn.value = date;
      checkOut.value = '';
    }
    draw();
    listener();
  });

  more.addEventListener('click', async () => {
    const from = addDays(calendar!.to, 1);
    more.disabled = true;
    try {
      const { data } = await site.api<Calendar>('GET', `/products/${encodeURIComponent(product.productId)}/calendar?from=${from}&to=${addDays(from, CALENDAR_DAYS - 1)}`);
      calendar = {
        ...calendar!,
        to: data.to,
        variants: calendar!.variants.map((v) => ({ ...v, days: [...v.days, ...(data.variants.find((n) => n.variantId === v.variantId)?.days ?? [])] })),
      };
      draw();
      more.disabled = calendar.variants[0] !== undefined && calendar.variants[0].days.length >= MAX_AHEAD;
    } catch (error) {
      summary.textContent = error instanceof BuyerApiError ? error.message : '날짜를 더 불러오지 못했습니다.';
      more.disabled = false;
    }
  });

  return {
    update(variant) {
      if (variant?.variantId !== variantId) {
        variantId = variant?.variantId ?? null;
        // Another room: keep the dates only if they are free in it too.
        const { checkIn: from, checkOut: to } = stay();
        if (from && to && !quoteStay(days(), { checkIn: from, checkOut: to })) checkOut.value = '';
        if (from && !days().some((d) => d.date === from && d.available)) checkIn.value = '';
        draw();
      }
      return state();
    },
    onChange(next) {
      listener = next;
    },
  };
}
