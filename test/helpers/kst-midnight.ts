import { today } from '../../src/kernel/dates.js';
import { kstDayStart } from '../../src/modules/orders/queries.js';
import type { TestService } from './service.js';

/** Seconds from an instant to the next midnight in Korea, where report days begin. */
const secondsToKstMidnight = (ms: number) => (kstDayStart(today(ms), 1) - ms) / 1000;

/**
 * Report tests pick their dates, record events, then move the clock to let the 10-minute job run. Near
 * KST midnight those moves would carry "today" past the events' date, so a service whose clock is nearer
 * the next midnight than `seconds` first moves past it. The suite then passes whatever the hour it runs.
 */
export async function clearOfMidnight(svc: TestService, seconds: number) {
  const left = secondsToKstMidnight(svc.services.clock.now());
  if (left < seconds) await svc.advance(left + 1);
}

/**
 * A browser stamps its events with real time, which no test clock moves: a browser test that would end
 * after the next KST midnight waits for it instead.
 */
export async function realTimeClearOfMidnight(seconds: number) {
  const left = secondsToKstMidnight(Date.now());
  if (left < seconds) await new Promise((resolve) => setTimeout(resolve, (left + 1) * 1000));
}
