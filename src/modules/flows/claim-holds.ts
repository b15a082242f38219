// Claim holds on an item flow: a claim opened pauses the `after` timers of the item (and its group), its end resumes them.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { findItemFlow, groupOf, type ItemFlowRow } from './item-flows.js';
import { flowTimers, orderItemFlows } from './schema.js';

/** Items whose `after` timers a claim on `orderItemId` stops: the item, and its whole group under ORDER progression. */
function holdScope(db: Db, row: ItemFlowRow) {
  return groupOf(db, row);
}

/**
 * A claim was opened on the item (called by the claims module, in its transaction): its other actions turn
 * off and its `after` timers — and those of its group — pause with the time they had left; `at` timers run on.
 */
export async function openClaimHold(db: Db, now: number, orderItemId: string) {
  const row = await findItemFlow(db, orderItemId);
  if (!row || row.claimHold) return;
  await db.update(orderItemFlows).set({ claimHold: true, updatedAt: now }).where(eq(orderItemFlows.orderItemId, orderItemId)).run();
  for (const member of await holdScope(db, row)) {
    await db
      .update(flowTimers)
      .set({
        status: 'PAUSED',
        remainingMs: sql`case when ${flowTimers.dueAt} > ${now} then ${flowTimers.dueAt} - ${now} else 0 end`,
        dueAt: null,
        updatedAt: now,
      })
      .where(and(eq(flowTimers.orderItemId, member.orderItemId), eq(flowTimers.status, 'PENDING'), eq(flowTimers.kind, 'after')))
      .run();
  }
}

/** The claim was handled or withdrawn: paused timers resume with the time they had left, unless another hold remains in the group. */
export async function releaseClaimHold(db: Db, now: number, orderItemId: string) {
  const row = await findItemFlow(db, orderItemId);
  if (!row || !row.claimHold) return;
  await db.update(orderItemFlows).set({ claimHold: false, updatedAt: now }).where(eq(orderItemFlows.orderItemId, orderItemId)).run();
  const scope = await holdScope(db, { ...row, claimHold: false });
  if (scope.some((r) => r.orderItemId !== orderItemId && r.claimHold)) return;
  for (const member of scope) {
    await db
      .update(flowTimers)
      .set({ status: 'PENDING', dueAt: sql`${now} + ${flowTimers.remainingMs}`, remainingMs: null, updatedAt: now })
      .where(and(eq(flowTimers.orderItemId, member.orderItemId), eq(flowTimers.status, 'PAUSED')))
      .run();
  }
}
