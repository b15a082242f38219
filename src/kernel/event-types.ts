import { newId } from '../db/ids.js';

/** What an event is about: the outbox's `resource_type` (the events module's `ResourceType`, kept equal). */
export type ResourceType = 'ORDER' | 'CLAIM' | 'PRODUCT' | 'REVIEW' | 'INQUIRY';

/** Event types of spec 01 §6.2 and the resource each one is about. */
export const EVENT_RESOURCE = {
  'ORDER.PAID': 'ORDER',
  'ORDER.CONFIRMED': 'ORDER',
  'ORDER.DISPATCHED': 'ORDER',
  'ORDER.DELIVERED': 'ORDER',
  'ORDER.FULFILLED': 'ORDER',
  'ORDER.PURCHASE_DECIDED': 'ORDER',
  'ORDER.ADDRESS_CHANGE_REQUESTED': 'ORDER',
  'ORDER.CANCELED': 'ORDER',
  'CLAIM.CANCEL_REQUESTED': 'CLAIM',
  'CLAIM.RETURN_REQUESTED': 'CLAIM',
  'CLAIM.EXCHANGE_REQUESTED': 'CLAIM',
  'CLAIM.COMPLETED': 'CLAIM',
  'INQUIRY.CREATED': 'INQUIRY',
  'REVIEW.CREATED': 'REVIEW',
  'PRODUCT.OUT_OF_STOCK': 'PRODUCT',
  'ORDER.FLOW_NOTIFICATION': 'ORDER',
  'ORDER.FLOW_STATE_CHANGED': 'ORDER',
} as const satisfies Record<string, ResourceType>;

export type EventType = keyof typeof EVENT_RESOURCE;
export const EVENT_TYPES = Object.keys(EVENT_RESOURCE) as [EventType, ...EventType[]];

/**
 * Store events about apps (`APP.*`): they reach the store's event stream (`svc webhooks listen`), not
 * webhook subscriptions. An app hears its own lifecycle notices as deliveries of the apps module.
 */
export const APP_EVENT_TYPES = ['APP.SCOPES_UPDATED'] as const;
/** Store events of the hosted storefront's editing environment: the event stream only, like `APP.*`. */
export const STOREFRONT_EVENT_TYPES = ['STOREFRONT.EDITING_CLOSING'] as const;
/** Every type the event stream can carry. */
export const STREAM_EVENT_TYPES = [...EVENT_TYPES, ...APP_EVENT_TYPES, ...STOREFRONT_EVENT_TYPES] as [string, ...string[]];

/**
 * Plausible `data` of each type for test sends and `svc webhooks trigger` without checkout: the field
 * names of §6.2 with made-up ids, so receivers can exercise their parsing.
 */
export function sampleEvent(type: EventType, now: number): { resource: { type: ResourceType; id: string }; data: Record<string, unknown> } {
  const orderId = newId('ord', now);
  const orderItemId = newId('oi', now);
  const orderNo = 20260101000001;
  // Each sample's statuses are the ones its event happens at (the order's status is its items' least
  // advanced one, spec 01 §6.2 rule 2), so a receiver branching on them sees a coherent story.
  const order = (status: string) => ({ orderId, orderNo, status, testPayment: true });
  const item = (status: string) => ({
    orderId,
    orderNo,
    orderItemId,
    status,
    fulfillmentSnapshot: { type: 'MANUAL' },
    fulfilledAt: status === 'PAID' ? null : new Date(now).toISOString(),
    testPayment: true,
  });
  const claim = (claimType: 'CANCEL' | 'RETURN' | 'EXCHANGE', status: 'REQUESTED' | 'COMPLETED') => ({
    claimId: newId('clm', now),
    claimNo: 20260101000001,
    orderId,
    orderItemId,
    claimType,
    status,
    quantity: 1,
    // A refund-free exchange has no refund amount (rule 4); a return withholds its return shipping as a charge.
    refundAmount: claimType === 'EXCHANGE' ? null : 10000,
    deliveryFeeRefundAmount: 0,
    deliveryFeeChargeAmount: claimType === 'RETURN' ? 3000 : 0,
    deductAmount: 0,
    testPayment: true,
  });
  const resource = EVENT_RESOURCE[type];
  const data: Record<string, unknown> = (() => {
    switch (type) {
      case 'ORDER.PAID':
        return order('PAID');
      case 'ORDER.CONFIRMED':
        return order('CONFIRMED');
      case 'ORDER.DISPATCHED':
        return order('DISPATCHED');
      case 'ORDER.DELIVERED':
        return order('DELIVERED');
      case 'ORDER.FULFILLED':
        return item('DELIVERED');
      case 'ORDER.PURCHASE_DECIDED':
        return item('PURCHASE_DECIDED');
      // Asked before dispatch (spec 01 §6.2): the item is still paid, not yet supplied.
      case 'ORDER.ADDRESS_CHANGE_REQUESTED':
        return item('PAID');
      case 'ORDER.CANCELED':
        return {
          orderId,
          orderNo,
          orderItemId,
          status: 'PAID',
          itemStatus: 'CANCELED',
          reason: 'OUT_OF_STOCK',
          quantity: 1,
          canceledQuantity: 1,
          refundAmount: 13000,
          deliveryFeeRefundAmount: 3000,
          deliveryFeeChargeAmount: 0,
          testPayment: true,
        };
      case 'CLAIM.CANCEL_REQUESTED':
        return claim('CANCEL', 'REQUESTED');
      case 'CLAIM.RETURN_REQUESTED':
        return claim('RETURN', 'REQUESTED');
      case 'CLAIM.EXCHANGE_REQUESTED':
        return claim('EXCHANGE', 'REQUESTED');
      case 'CLAIM.COMPLETED':
        return claim('RETURN', 'COMPLETED');
      case 'INQUIRY.CREATED':
        return { inquiryId: newId('inq', now), productId: newId('prd', now) };
      case 'REVIEW.CREATED':
        return { reviewId: newId('rev', now), productId: newId('prd', now), rating: 5 };
      case 'PRODUCT.OUT_OF_STOCK':
        return { productId: newId('prd', now), variantId: newId('var', now) };
      case 'ORDER.FLOW_NOTIFICATION':
        return { orderId, orderItemIds: [orderItemId], event: 'sample', flowId: newId('flw', now), flowVersion: 1, state: 'PAID' };
      case 'ORDER.FLOW_STATE_CHANGED':
        return {
          orderId,
          orderItemIds: [orderItemId],
          flowId: newId('flw', now),
          flowVersion: 1,
          from: 'PAID',
          to: 'PREPARING',
          label: '상품 준비중',
          coreStatus: 'CONFIRMED',
          changedAt: new Date(now).toISOString(),
        };
    }
  })();
  const idField = { ORDER: 'orderId', CLAIM: 'claimId', INQUIRY: 'inquiryId', REVIEW: 'reviewId', PRODUCT: 'productId' }[resource];
  return { resource: { type: resource, id: data[idField] as string }, data };
}
