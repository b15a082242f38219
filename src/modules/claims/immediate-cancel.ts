// A buyer's flow action with authority IMMEDIATE_CANCEL, filed as the buyer's cancel claim (spec 02 §4.4).
import type { Services } from '../../server/services.js';
import { runRefund } from '../checkout/index.js';
import type { ImmediateCancel, ImmediateCancelRequest } from '../flows/index.js';
import { findOrder, findOrderItem } from '../orders/index.js';
import { CLAIM_REASONS, fileClaim, type ClaimRequest } from './service.js';

const isClaimReason = (reason: string | null): reason is ClaimRequest['reason'] => (CLAIM_REASONS as readonly (string | null)[]).includes(reason);

/**
 * Cancels every unit of the item still in the order with the claim endpoint's own `fileClaim`, so the flow's
 * authority makes it approved at once and refund, stock, points and CLAIM.* events come out the same. An
 * action carries no claim reason of its own: an input `reason` that is one is used, otherwise CHANGE_OF_MIND.
 */
export async function fileImmediateCancel(services: Services, now: number, cancel: ImmediateCancelRequest): Promise<ImmediateCancel> {
  const order = (await findOrder(services.db, cancel.orderId))!;
  const item = (await findOrderItem(services.db, cancel.orderItemId))!;
  const { claim, refundId } = await fileClaim(services, now, order, item, {
    claimType: 'CANCEL',
    quantity: item.quantity - item.canceledQuantity - item.returnedQuantity,
    reason: isClaimReason(cancel.reason) ? cancel.reason : 'CHANGE_OF_MIND',
    ...(cancel.detail && { detail: cancel.detail.slice(0, 1000) }),
  });
  return {
    claim: {
      claimId: claim.id,
      claimNo: claim.claimNo,
      claimType: claim.claimType,
      status: claim.status,
      approved: claim.approved,
      quantity: claim.quantity,
      refundAmount: claim.refundAmount,
      refundId: claim.refundId,
    },
    sendRefund: async () => {
      if (refundId) await runRefund(services, refundId);
    },
  };
}
