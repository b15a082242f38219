// Firing the flow timers that fell due: each claimed and its item moved in one transaction.
import { and, count, eq, lte } from 'drizzle-orm';
import { claimNextDue } from '../../db/claim.js';
import { transaction, type Db } from '../../db/client.js';
import type { Services } from '../../server/services.js';
import { findItemFlow } from './item-flows.js';
import { moveItem } from './item-moves.js';
import { flowTimers } from './schema.js';

/** Timers fired in one run of the job, so one backlog cannot hold the loop. */
const TIMERS_PER_RUN = 200;

/** Whether a deadline of the item's state passed before the timer job got to it (e.g. the purchase-decision timer). */
export const hasOverdueTimer = async (db: Db, orderItemId: string, now: number) =>
  (await db
    .select({ n: count() })
    .from(flowTimers)
    .where(and(eq(flowTimers.orderItemId, orderItemId), eq(flowTimers.status, 'PENDING'), lte(flowTimers.dueAt, now)))
    .get())!.n > 0;

/** Fires due timers, earliest first, each claimed and fired in its own transaction. */
export async function fireDueTimers(services: Services, now: number): Promise<number> {
  const { db } = services;
  let fired = 0;
  for (let looked = 0; looked < TIMERS_PER_RUN; looked++) {
    // Claimed (FIRED) in the transaction that moves the item: the timer is spent exactly when the move commits.
    const outcome = await transaction(db, async (): Promise<'none' | 'spent' | 'fired'> => {
      const timer = await claimNextDue(db, flowTimers, now, {
        due: flowTimers.dueAt,
        where: eq(flowTimers.status, 'PENDING'),
        set: { status: 'FIRED', updatedAt: now },
      });
      if (!timer) return 'none';
      const row = await findItemFlow(db, timer.orderItemId);
      if (!row || row.state !== timer.state) return 'spent';
      try {
        await moveItem(services, now, row, { trigger: { kind: 'timer', transition: timer.transition }, actor: { type: 'TIMER', id: timer.id } });
        return 'fired';
      } catch (error) {
        // A condition that no longer holds leaves the item where it is; the timer is spent.
        if ((error as { code?: string }).code !== 'FLOW_MOVE_NOT_ALLOWED') throw error;
        return 'spent';
      }
    });
    if (outcome === 'none') break;
    if (outcome === 'fired') fired++;
  }
  return fired;
}
