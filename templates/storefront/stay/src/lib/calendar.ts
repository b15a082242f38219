import { won } from './format.js';
import { html, type Html } from './html.js';
import type { Data } from '../svc-api.js';
import type { Stay } from './types.js';

/** `GET /products/{productId}/calendar`: per variant on sale, each night's availability and price (no stock counts). */
export type Calendar = Data<'storefrontGetProductCalendar'>;
export type CalendarDay = Calendar['variants'][number]['days'][number];

/** The buyer API reads at most 120 days at once; the page shows this many and loads more on request. */
export const CALENDAR_DAYS = 60;

const DAY = 86_400_000;
export const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
export const nightsBetween = (checkIn: string, checkOut: string) => Math.round((Date.parse(`${checkOut}T00:00:00Z`) - Date.parse(`${checkIn}T00:00:00Z`)) / DAY);
/** Today in Korea, where the store's calendar days are. */
export const todayInKorea = () => new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10);

/**
 * A stay can be booked when every night from check-in up to (not including) check-out is available; its
 * price per room is the sum of those nights. Null when a night is unavailable or not loaded.
 */
export function quoteStay(days: CalendarDay[], stay: Stay): { nights: number; price: number } | null {
  const byDate = new Map(days.map((d) => [d.date, d]));
  const nights = nightsBetween(stay.checkIn, stay.checkOut);
  if (nights < 1) return null;
  let price = 0;
  for (let i = 0; i < nights; i++) {
    const night = byDate.get(addDays(stay.checkIn, i));
    if (!night?.available) return null;
    price += night.price;
  }
  return { nights, price };
}

/** `120,000원` → `12만`, so a price fits under a day number on a phone. */
const shortPrice = (price: number) => (price >= 10_000 && price % 1_000 === 0 ? `${price / 10_000}만` : won(price).replace('원', ''));

/**
 * Month grids of the loaded days, the same markup on the server and in the browser: each day a button
 * with `data-date`; the chosen range is marked. The check-out day may be a night that is not for sale.
 */
export function calendarHtml(days: CalendarDay[], stay: Partial<Stay>): Html {
  const months = new Map<string, CalendarDay[]>();
  for (const day of days) {
    const key = day.date.slice(0, 7);
    if (!months.has(key)) months.set(key, []);
    months.get(key)!.push(day);
  }
  const chosen = (date: string) => {
    if (!stay.checkIn) return '';
    if (date === stay.checkIn) return ' check-in';
    if (stay.checkOut && date === stay.checkOut) return ' check-out';
    if (stay.checkOut && date > stay.checkIn && date < stay.checkOut) return ' in-range';
    return '';
  };
  // After a check-in is picked, the next unavailable night can still be the check-out day.
  const checkoutable = (date: string) => Boolean(stay.checkIn && !stay.checkOut && date > stay.checkIn && quoteStay(days, { checkIn: stay.checkIn, checkOut: date }));
  return html`${[...months].map(([month, list]) => {
    const first = new Date(`${list[0]!.date}T00:00:00Z`);
    const blanks = Array.from({ length: first.getUTCDay() }, () => html`<span class="day blank"></span>`);
    return html`<section class="month"><h3>${Number(month.slice(0, 4))}년 ${Number(month.slice(5))}월</h3>
<div class="weekdays">${[...'일월화수목금토'].map((d) => html`<span>${d}</span>`)}</div>
<div class="days">${blanks}${list.map((day) => {
      const pickable = day.available || checkoutable(day.date);
      return html`<button type="button" class="day${day.available ? '' : ' unavailable'}${chosen(day.date)}" data-date="${day.date}"${pickable ? '' : html` disabled`} aria-label="${day.date}${day.available ? ` ${won(day.price)}` : ' 예약 불가'}"><span class="num">${Number(day.date.slice(8))}</span><span class="cost">${day.available ? shortPrice(day.price) : '마감'}</span></button>`;
    })}</div></section>`;
  })}`;
}
