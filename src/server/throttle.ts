import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { preparedFor } from '../db/prepared.js';
import { ApiError } from './errors.js';
import { attemptThrottles } from './schema.js';

/** Attempts allowed in one window (which starts at its first attempt). */
export interface ThrottleRule {
  limit: number;
  windowMs: number;
}

const q = preparedFor((db) => ({
  /**
   * One guarded statement: a new window starts when the last is over; otherwise the count grows only while
   * under the limit. No row back means the attempt was refused.
   */
  reserve: db
    .insert(attemptThrottles)
    .values({ key: sql.placeholder('key'), count: 1, windowStart: sql.placeholder('now') })
    .onConflictDoUpdate({
      target: attemptThrottles.key,
      set: {
        count: sql`CASE WHEN ${attemptThrottles.windowStart} <= ${sql.placeholder('windowOpenedBefore')} THEN 1 ELSE ${attemptThrottles.count} + 1 END`,
        windowStart: sql`CASE WHEN ${attemptThrottles.windowStart} <= ${sql.placeholder('windowOpenedBefore')} THEN ${sql.placeholder('now')} ELSE ${attemptThrottles.windowStart} END`,
      },
      setWhere: sql`${attemptThrottles.windowStart} <= ${sql.placeholder('windowOpenedBefore')} OR ${attemptThrottles.count} < ${sql.placeholder('limit')}`,
    })
    .returning({ count: attemptThrottles.count })
    .prepare(),
  windowOf: db
    .select({ windowStart: attemptThrottles.windowStart })
    .from(attemptThrottles)
    .where(eq(attemptThrottles.key, sql.placeholder('key')))
    .prepare(),
  release: db
    .update(attemptThrottles)
    .set({ count: sql`${attemptThrottles.count} - 1` })
    .where(and(eq(attemptThrottles.key, sql.placeholder('key')), gt(attemptThrottles.count, 0)))
    .prepare(),
}));

/**
 * Takes one attempt of `key` under `rule`, or throws 429 `code` with `Retry-After` (seconds until the
 * window ends) when the window's attempts are used up.
 */
export async function reserveAttempt(db: Db, key: string, rule: ThrottleRule, now: number, code: string) {
  const reserved = await q(db).reserve.get({ key, now, windowOpenedBefore: now - rule.windowMs, limit: rule.limit });
  if (reserved) return;
  const windowStart = (await q(db).windowOf.get({ key }))?.windowStart ?? now;
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000));
  throw new ApiError(429, code, { retryAfterSeconds }, [], undefined, { 'retry-after': String(retryAfterSeconds) });
}

/** Gives an attempt back (a sign-in that succeeded does not count against its address). */
export async function releaseAttempt(db: Db, key: string) {
  await q(db).release.run({ key });
}

/** Forgets every attempt of `key` (a successful sign-in clears its account's failures). */
export async function clearAttempts(db: Db, key: string) {
  await db.delete(attemptThrottles).where(eq(attemptThrottles.key, key)).run();
}
