import { seoulDateOf } from '../../db/clock.js';
import { fail } from '../../server/errors.js';

/** Calendar dates (YYYY-MM-DD, Korean dates) as UTC midnights: plain day arithmetic with no zone shifts. */
const DAY_MS = 86_400_000;

const toMs = (date: string) => Date.parse(`${date}T00:00:00Z`);
export const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);
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

/** Errors of `period` (for an operation's `errors`). */
export const PERIOD_ERRORS = { 400: ['INVALID_PARAMETER', 'RANGE_TOO_WIDE'] } as const;

/**
 * 400 INVALID_PARAMETER unless `value` is a real date. Requests' dates are checked by their schema
 * (`dateInput`); this guards the ends a period computes, before any arithmetic on them (which would throw).
 */
export function assertRealDate(field: string, value: string) {
  if (!isRealDate(value)) throw fail(400, 'INVALID_PARAMETER', { field, value, reason: 'NONEXISTENT_DATE' });
}

/**
 * A query or body period: real dates, `to` not before `from` (400 INVALID_PARAMETER), at most `maxDays`
 * days inclusive (400 RANGE_TOO_WIDE). Omitted ends default to today and `defaultDays` days on.
 */
export function period(range: { from?: string; to?: string }, now: number, maxDays: number, defaultDays = 30) {
  const from = range.from ?? today(now);
  assertRealDate('from', from);
  const to = range.to ?? addDays(from, defaultDays - 1);
  assertRealDate('to', to);
  if (to < from) throw fail(400, 'INVALID_PARAMETER', { field: 'to', reason: 'TO_BEFORE_FROM', from, to });
  if (daysBetween(from, to) + 1 > maxDays) throw fail(400, 'RANGE_TOO_WIDE', { maxDays, from, to });
  return { from, to };
}
