import { seoulDateOf } from '../db/clock.js';

/** Calendar dates (YYYY-MM-DD, Korean dates) as UTC midnights: plain day arithmetic with no zone shifts. */
const DAY_MS = 86_400_000;

const toMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (date: string, days: number) => fromMs(toMs(date) + days * DAY_MS);
export const dayOfWeek = (date: string) => new Date(toMs(date)).getUTCDay();
export const daysBetween = (from: string, to: string) => Math.round((toMs(to) - toMs(from)) / DAY_MS);
export const today = (now: number) => seoulDateOf(now);

/** Whether the string names a real day as `YYYY-MM-DD` (2026-02-30 does not, nor year 10000 or -1). */
export const isRealDate = (date: string) => /^\d{4}-\d{2}-\d{2}$/.test(date) && Number.isFinite(toMs(date)) && fromMs(toMs(date)) === date;

/** Every date from `from` to `to`, both inclusive. */
export function datesIn(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}
