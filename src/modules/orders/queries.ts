import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { addDays, daysBetween, today } from '../../kernel/dates.js';
import { assertRealDate } from '../catalog/index.js';

export const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');
/** `orderNo` as printed (14 digits, a hyphen allowed after the date part). */
export const orderNoString = z
  .string()
  .regex(/^\d{8}-?\d{6}$/, { message: '주문번호는 14자리 숫자입니다(하이픈 허용).' })
  .transform((v) => Number(v.replace('-', '')));

/** Start of a Korean calendar day (plus `days`) as an instant. */
export const kstDayStart = (date: string, days = 0) => Date.parse(`${addDays(date, days)}T00:00:00+09:00`);

/**
 * A list period in Korean dates, both ends inclusive: real dates (400 INVALID_PARAMETER), `to` not before
 * `from`, at most `maxDays` (400 RANGE_TOO_WIDE); `to` defaults to today, `from` to `defaultDays` days before `to`.
 */
export function periodOf(from: string | undefined, to: string | undefined, now: number, maxDays: number, defaultDays = 30) {
  const end = to ?? today(now);
  assertRealDate('to', end);
  const start = from ?? addDays(end, -(defaultDays - 1));
  assertRealDate('from', start);
  if (end < start) throw fail(400, 'INVALID_PARAMETER', { field: 'to', reason: 'TO_BEFORE_FROM', from: start, to: end });
  if (daysBetween(start, end) + 1 > maxDays) throw fail(400, 'RANGE_TOO_WIDE', { maxDays, from: start, to: end });
  return { from: start, to: end };
}
