// Claim holds on an item flow: a claim opened pauses the `after` timers of the item (and its group), its end resumes them.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import type { Definition } from './definition.js';
import { definitionOf } from './flow-catalogue.js';
import { findItemFlow, groupOf, type ItemFlowRow } from './item-flows.js';
import { flowTimers, orderItemFlows } from './schema.js';

/**
 * What a claim on one grouped item does to the rest of its group in `state` (spec 02 §4.4 `requires.groupClaim`):
 * CONTINUE when every action leaving the state declares it — the others keep their deadlines, as they keep
 * those actions (engine.ts) — else PAUSE, the default, which stops the whole group. A state left by timers or
 * events alone has no action to declare it, so it pauses.
 */
export function groupClaimPolicy(def: Definition, state: string): 'CONTINUE' | 'PAUSE' {
  const keys = def.transitions.flatMap((t) => (t.from === state && 'action' in t.on ? [t.on.action] : []));
  return keys.length > 0 && keys.every((key) => def.actions[key]?.requires?.groupClaim === 'CONTINUE') ? 'CONTINUE' : 'PAUSE';
}

/** Whether a claim on the grouped item leaves the rest of its group going (CONTINUE in its state). */
export async function groupContinues(db: Db, row: ItemFlowRow) {
  return row.groupId !== null && groupClaimPolicy(await definitionOf(db, row.flowId, row.version), row.state) === 'CONTINUE';
}

/** Items whose `after` timers a claim on the item stops: the item, and its whole group under ORDER progression unless it continues. */
async function holdScope(db: Db, row: ItemFlowRow) {
  return (await groupContinues(db, row)) ? [row] : groupOf(db, row);
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
