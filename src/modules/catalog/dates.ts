import { addDays, daysBetween, isRealDate, today } from '../../kernel/dates.js';
import { fail } from '../../server/errors.js';

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
