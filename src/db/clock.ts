/**
 * The one source of time. `svc dev --clock manual` swaps the system clock for one that only moves
 * forward when told (POST /_dev/v1/clock/advance), so expiries of minutes or days are testable at once.
 */
export interface Clock {
  readonly kind: 'system' | 'manual';
  /** Milliseconds since the epoch. */
  now(): number;
  /** Moves a manual clock forward; refused by the system clock. */
  advance(seconds: number): number;
}

export function systemClock(): Clock {
  return {
    kind: 'system',
    now: () => Date.now(),
    advance() {
      throw new Error('the system clock cannot be advanced; start svc dev with --clock manual');
    },
  };
}

/**
 * Runs with real time plus an offset that only grows: time still flows (timestamps stay ordered and
 * unique), and tests jump across an expiry with one call.
 */
export function manualClock(): Clock {
  let offsetMs = 0;
  return {
    kind: 'manual',
    now: () => Date.now() + offsetMs,
    advance(seconds: number) {
      offsetMs += Math.round(seconds * 1000);
      return Date.now() + offsetMs;
    },
  };
}

export const isoAt = (ms: number) => new Date(ms).toISOString();

/** Korea keeps UTC+9 all year (no daylight saving), so its calendar date is plain arithmetic. */
const SEOUL_OFFSET_MS = 9 * 3600_000;
const DAY_MS = 86_400_000;
/** The last day asked for: hot paths (cache keys) ask for the same one over and over. */
let lastDay = { start: 0, end: 0, date: '' };
/** The Korean calendar date (YYYY-MM-DD) of an instant; called on hot paths (cache keys), so no Intl. */
export function seoulDateOf(ms: number): string {
  if (ms >= lastDay.start && ms < lastDay.end) return lastDay.date;
  const start = Math.floor((ms + SEOUL_OFFSET_MS) / DAY_MS) * DAY_MS - SEOUL_OFFSET_MS;
  lastDay = { start, end: start + DAY_MS, date: new Date(ms + SEOUL_OFFSET_MS).toISOString().slice(0, 10) };
  return lastDay.date;
}

/** `2026-11-28 19:30 (KST)`: an instant as a Korean reader expects it on a page. */
export const seoulDateTimeOf = (ms: number) => `${new Date(ms + SEOUL_OFFSET_MS).toISOString().slice(0, 16).replace('T', ' ')} (KST)`;
