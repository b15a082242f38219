// Storing and clearing an item's flow timers as it enters or leaves a state.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor, placeholderValue } from '../../db/prepared.js';
import type { TimerSet } from './engine.js';
import type { ItemFlowRow } from './item-flows.js';
import { flowTimers } from './schema.js';

const q = preparedFor((db) => ({
  // Prepared once, like a move's other writes (item-effects.ts): seller actions are a hot path (issue 11 bench: ≥ 1,000 moves/s).
  clearTimers: db
    .update(flowTimers)
    .set({ status: 'CLEARED', updatedAt: placeholderValue('now') })
    .where(and(eq(flowTimers.orderItemId, sql.placeholder('id')), inArray(flowTimers.status, ['PENDING', 'PAUSED'])))
    .prepare(),
}));

/** Stores the timers the item's state sets; a claim already open pauses a new duration timer from the start. */
export async function armTimers(db: Db, now: number, row: ItemFlowRow, timers: TimerSet[]) {
  for (const t of timers) {
    const paused = t.kind === 'after' && row.claimHold;
    await db
      .insert(flowTimers)
      .values({
        id: newId('ftm', now),
        storeId: row.storeId,
        orderItemId: row.orderItemId,
        state: row.state,
        transition: t.transition,
        kind: t.kind,
        to: t.to,
        status: paused ? 'PAUSED' : 'PENDING',
        dueAt: paused ? null : t.dueAt,
        remainingMs: paused ? t.dueAt - now : null,
        createdAt: now,
        updatedAt: now,
      })
      .run();
  }
}

export const clearTimers = (db: Db, now: number, orderItemId: string) => q(db).clearTimers.run({ id: orderItemId, now });
