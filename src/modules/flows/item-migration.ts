// Moving the running items of a flow version onto a newer one (spec 02 §4.4).
import { and, eq, notInArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { emitEvent } from '../events/index.js';
import { entering } from './engine.js';
import { definitionOf, ENDED_CORE_STATUSES } from './flow-catalogue.js';
import { findOrder, findOrderItem, itemState, type ItemFlowRow, type OrderRow } from './item-flows.js';
import { armTimers, clearTimers } from './item-timers.js';
import { refreshOrderStatus, setItemStatus } from '../orders/index.js';
import { flowRuns, orderItemFlows } from './schema.js';

/**
 * Moves the running items of `fromVersion` onto `toVersion` (spec 02 §4.4), each into `stateOf(its state)`:
 * the state's timers are set anew from now, and each item's history gains a `migration` run. An item whose
 * state key changed fires ORDER.FLOW_STATE_CHANGED, so systems that track flow states stay in step; no
 * notification or ORDER.* status event runs (the item took no step of its flow). Returns how many items moved.
 */
export async function migrateItems(
  db: Db,
  now: number,
  flowId: string,
  fromVersion: number,
  toVersion: number,
  stateOf: (state: string) => string,
): Promise<number> {
  const def = await definitionOf(db, flowId, toVersion);
  const rows = await db
    .select()
    .from(orderItemFlows)
    .where(and(eq(orderItemFlows.flowId, flowId), eq(orderItemFlows.version, fromVersion), notInArray(orderItemFlows.coreStatus, ENDED_CORE_STATUSES)))
    .all();
  const touchedOrders = new Map<string, OrderRow>();
  for (const old of rows) {
    const state = stateOf(old.state);
    const row: ItemFlowRow = {
      ...old,
      version: toVersion,
      state,
      coreStatus: def.states[state].coreStatus,
      enteredAt: state === old.state ? old.enteredAt : now,
      updatedAt: now,
    };
    await db
      .update(orderItemFlows)
      .set({ version: row.version, state: row.state, coreStatus: row.coreStatus, enteredAt: row.enteredAt, updatedAt: now })
      .where(eq(orderItemFlows.orderItemId, row.orderItemId))
      .run();
    const order = touchedOrders.get(row.orderId) ?? (await findOrder(db, row.orderId))!;
    touchedOrders.set(row.orderId, order);
    const item = (await findOrderItem(db, row.orderItemId))!;
    if (row.coreStatus !== old.coreStatus) await setItemStatus(db, row.orderItemId, row.coreStatus, now);
    await clearTimers(db, now, row.orderItemId);
    const { timersSet } = entering(def, itemState(row, order, item, false), state, now);
    await armTimers(db, now, row, timersSet);
    const eventIds =
      state === old.state
        ? []
        : [
            (
              await emitEvent(db, now, {
                storeId: row.storeId,
                type: 'ORDER.FLOW_STATE_CHANGED',
                resource: { type: 'ORDER', id: row.orderId },
                data: {
                  orderId: row.orderId,
                  orderItemIds: [row.orderItemId],
                  flowId,
                  flowVersion: toVersion,
                  from: old.state,
                  to: state,
                  label: def.states[state].label,
                  coreStatus: row.coreStatus,
                  changedAt: isoAt(now),
                },
              })
            ).eventId,
          ];
    await db
      .insert(flowRuns)
      .values({
        id: newId('frn', now),
        storeId: row.storeId,
        orderId: row.orderId,
        orderItemId: row.orderItemId,
        flowId,
        version: toVersion,
        trigger: { kind: 'migration', fromVersion, toVersion },
        actor: { type: 'SELLER', id: null },
        input: {},
        from: old.state,
        to: state,
        coreStatus: row.coreStatus,
        notifications: [],
        timers: timersSet.map((t) => ({ transition: t.transition, kind: t.kind, dueAt: isoAt(t.dueAt), to: t.to })),
        eventIds,
        at: now,
      })
      .run();
  }
  for (const order of touchedOrders.values()) await refreshOrderStatus(db, order, now);
  return rows.length;
}
