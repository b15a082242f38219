import type { Module } from '../../server/module.js';
import { deliverAppNotifications } from './app-channels.js';
import { authoringOperations } from './authoring-operations.js';
import { flowOperations } from './operations.js';
import { fireDueTimers } from './due-timers.js';
import { ensureDefaultFlows, loadFlow } from './flow-catalogue.js';
import { orderItemFlow } from './item-flows.js';
import { startOrderFlows } from './item-moves.js';
import type { ImmediateCancel, ImmediateCancelRequest } from './immediate-cancel.js';

/** Order flows: the engine every order item moves through after payment, its timers and its actions. */
export const flowsModule: Module = {
  name: 'flows',
  operations: [...flowOperations, ...authoringOperations],
  jobs: [
    { name: 'flow-timers', run: fireDueTimers },
    { name: 'flow-app-notifications', run: deliverAppNotifications },
  ],
  answers: { requireFlowOfStore: loadFlow, itemFlowOf: orderItemFlow },
  on: {
    storeCreated: (services, { storeId, at }) => ensureDefaultFlows(services.db, storeId, at),
    orderPlaced: (services, { order, items, at }) => startOrderFlows(services.db, at, order, items),
  },
};

declare module '../../server/module.js' {
  interface Happenings {
    /** An order item moved to another flow state by an action, event or timer (points earn on PURCHASE_DECIDED). */
    orderItemMoved: OrderItemMove;
    /** The buyer withdrew an open claim with the flow action WITHDRAW_REQUEST. */
    claimWithdrawn: { storeId: string; orderItemId: string; at: number };
  }
  interface Questions {
    /**
     * A buyer ran a flow action with authority IMMEDIATE_CANCEL (spec 02 §4.4): the item's remaining units are
     * canceled by a buyer's cancel claim approved at once, filed exactly as the claim endpoint files it, inside
     * the caller's transaction (claims answers). `sendRefund` gives the money back at the gateway: call it after
     * the commit.
     */
    fileImmediateCancel: (services: Services, now: number, cancel: ImmediateCancelRequest) => Promise<ImmediateCancel>;
  }
}

export interface OrderItemMove {
  storeId: string;
  orderId: string;
  orderItemId: string;
  /** Flow state keys before and after the move. */
  from: string;
  to: string;
  /** Core statuses (PAID, CONFIRMED, DISPATCHED, DELIVERED, FULFILLED, PURCHASE_DECIDED, CANCELED, …). */
  previousCoreStatus: string;
  coreStatus: string;
  at: number;
}
export type { Definition, Transition } from './definition.js';
export type { ImmediateCancel, ImmediateCancelRequest } from './immediate-cancel.js';

export { openClaimHold, releaseClaimHold } from './claim-holds.js';
export { definitionOf } from './flow-catalogue.js';
export { findItemFlow } from './item-flows.js';
export { closeItemFlow } from './item-moves.js';
export { hasOverdueTimer } from './due-timers.js';
export { offersImmediateCancel } from './engine.js';
