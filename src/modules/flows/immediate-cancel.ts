// A buyer's flow action with authority IMMEDIATE_CANCEL is the buyer's cancel (spec 02 §4.4): it is filed as a
// cancel claim approved at once, exactly as the claim endpoint would, instead of moving the item by itself.
import { ask } from '../../server/hooks.js';
import type { Services } from '../../server/services.js';
import { definitionOf } from './flow-catalogue.js';
import type { ItemFlowRow } from './item-flows.js';
import { planMove } from './item-moves.js';

export interface ImmediateCancelRequest {
  orderId: string;
  orderItemId: string;
  /** From the action's input `reason` and `detail`, when it has them. */
  reason: string | null;
  detail: string | null;
}

export interface ImmediateCancel {
  claim: {
    claimId: string;
    claimNo: number;
    claimType: string;
    status: string;
    approved: boolean;
    quantity: number;
    refundAmount: number | null;
    refundId: string | null;
  };
  sendRefund: () => Promise<void>;
}

/** Refunds of the cancels a request filed, to send once its transaction committed. */
export type RefundsAfterCommit = (() => Promise<void>)[];

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);

/**
 * When the action is a buyer's IMMEDIATE_CANCEL: checks it as the engine checks any action (offered in the
 * state, not held by a claim, its condition and inputs), then files the cancel of the item through claims,
 * which closes the item's flow in CANCELED. Null for every other action, which moves as before.
 */
export async function cancelByAction(
  services: Services,
  now: number,
  row: ItemFlowRow,
  action: { key: string; actor: { type: 'SELLER' | 'BUYER'; id: string | null }; scope: 'ITEM' | 'ORDER'; input: Record<string, unknown> },
): Promise<ImmediateCancel | null> {
  const def = await definitionOf(services.db, row.flowId, row.version);
  if (action.actor.type !== 'BUYER' || def.actions[action.key]?.authority !== 'IMMEDIATE_CANCEL') return null;
  await planMove(services, now, row, {
    trigger: { kind: 'action', key: action.key, actor: 'BUYER', scope: action.scope, input: action.input },
    actor: action.actor,
  });
  return ask(services.db, 'fileImmediateCancel')(services, now, {
    orderId: row.orderId,
    orderItemId: row.orderItemId,
    reason: text(action.input.reason),
    detail: text(action.input.detail),
  });
}
