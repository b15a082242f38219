import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { seoulDateOf } from '../../db/clock.js';
import { fail } from '../../server/errors.js';
import { planByCode } from './plans.js';
import { planUsage, stores } from './schema.js';
import { findStore } from './service.js';

/** Plan periods are Korean calendar months. */
export const usageMonth = (now: number) => seoulDateOf(now).slice(0, 7);

export async function aiActionsUsed(db: Db, storeId: string, now: number): Promise<number> {
  return (
    (
      await db
        .select({ n: planUsage.aiActions })
        .from(planUsage)
        .where(and(eq(planUsage.storeId, storeId), eq(planUsage.month, usageMonth(now))))
        .get()
    )?.n ?? 0
  );
}

export async function aiActionsLimit(db: Db, storeId: string): Promise<number> {
  return planByCode((await findStore(db, storeId))!.plan).limits.aiActionsPerMonth;
}

/** New agent writes and approval requests stop at the plan's monthly limit (429 PLAN_AI_ACTIONS_EXCEEDED). */
export async function assertAiActionsLeft(db: Db, storeId: string, now: number) {
  const limit = await aiActionsLimit(db, storeId);
  if ((await aiActionsUsed(db, storeId, now)) >= limit) throw fail(429, 'PLAN_AI_ACTIONS_EXCEEDED', { limit, month: usageMonth(now) });
}

/** A successful agent write (or an approved execution when it runs) counts once. */
export async function countAiAction(db: Db, storeId: string, now: number) {
  await db
    .insert(planUsage)
    .values({ storeId, month: usageMonth(now), aiActions: 1 })
    .onConflictDoUpdate({ target: [planUsage.storeId, planUsage.month], set: { aiActions: sql`${planUsage.aiActions} + 1` } })
    .run();
}

/**
 * A store that never had a public storefront and has no live payment order skips approval for some
 * agent operations (spec 01 §5.6); after its first public state it keeps requiring approval.
 */
export async function storeStillPrivate(db: Db, storeId: string): Promise<boolean> {
  const store = await db
    .select({ everPublicAt: stores.everPublicAt, firstLiveOrderAt: stores.firstLiveOrderAt })
    .from(stores)
    .where(eq(stores.id, storeId))
    .get();
  return store !== undefined && store.everPublicAt === null && store.firstLiveOrderAt === null;
}

/** Records the first time a store went public or took a live paid order (later calls change nothing). */
export async function markStoreMilestone(db: Db, storeId: string, now: number, what: 'everPublicAt' | 'firstLiveOrderAt') {
  await db
    .update(stores)
    .set({ [what]: now })
    .where(and(eq(stores.id, storeId), sql`${stores[what]} is null`))
    .run();
}
