import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation, reply } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { shippingAddress } from './shapes.js';
import { emitEvent } from '../events/index.js';
import { subscribed } from '../webhooks/index.js';
import { coreRank } from './statuses.js';
import { guestOrder, memberOrder } from './buyer-access.js';
import { orders } from './schema.js';
import { itemsOfOrder, loadOrder, type OrderRow } from './service.js';
import { addressChangeRequestView, orderView, presentAddressChangeRequest, presentOrder } from './order-views.js';

/**
 * Shipping address changes before dispatch (spec 01 §6.2 ORDER.ADDRESS_CHANGE_REQUESTED). A buyer asks;
 * the seller's system hears it by webhook and applies or dismisses it. The request is open only while some
 * subscription of the store takes that event (nobody else would act on it) and no item has left.
 */

defineMessages({
  ADDRESS_CHANGE_NOT_AVAILABLE: '배송지를 바꿀 수 없는 주문입니다. details.reason을 확인하세요.',
  ADDRESS_CHANGE_REQUEST_NOT_FOUND: '이 주문에는 대기 중인 배송지 변경 요청이 없습니다.',
});

const REQUESTED = 'ORDER.ADDRESS_CHANGE_REQUESTED';

/** The order's shipping items that have not left yet (neither dispatched nor canceled); refuses when there are none. */
async function itemsBeforeDispatch(db: Db, order: OrderRow) {
  if (!order.shippingAddress) throw fail(409, 'ADDRESS_CHANGE_NOT_AVAILABLE', { reason: 'NO_SHIPPING' });
  const shipping = (await itemsOfOrder(db, order.id)).filter((i) => i.fulfillmentSnapshot.type === 'SHIPPING' && i.status !== 'CANCELED');
  if (shipping.length === 0) throw fail(409, 'ADDRESS_CHANGE_NOT_AVAILABLE', { reason: 'NO_SHIPPING' });
  if (shipping.some((i) => coreRank(i.status) >= coreRank('DISPATCHED'))) throw fail(409, 'ADDRESS_CHANGE_NOT_AVAILABLE', { reason: 'DISPATCHED' });
  return shipping;
}

/** Records the buyer's request and tells the seller's system, one event per item still to ship ("as ORDER.FULFILLED"). */
async function requestAddressChange(services: Services, now: number, order: OrderRow, address: z.output<typeof shippingAddress>) {
  const { db } = services;
  if (!(await subscribed(db, order.storeId, REQUESTED))) throw fail(409, 'ADDRESS_CHANGE_NOT_AVAILABLE', { reason: 'NOT_SUBSCRIBED' });
  const items = await itemsBeforeDispatch(db, order);
  const request = { shippingAddress: address, requestedAt: now };
  await db.update(orders).set({ addressChangeRequest: request, lastChangedAt: now }).where(eq(orders.id, order.id)).run();
  for (const item of items) {
    await emitEvent(db, now, {
      storeId: order.storeId,
      type: REQUESTED,
      resource: { type: 'ORDER', id: order.id },
      data: {
        orderId: order.id,
        orderNo: order.orderNo,
        orderItemId: item.id,
        status: order.status,
        fulfillmentSnapshot: item.fulfillmentSnapshot,
        fulfilledAt: null,
        testPayment: order.testPayment,
      },
    });
  }
  return reply(202, { orderId: order.id, addressChangeRequest: presentAddressChangeRequest({ addressChangeRequest: request })! });
}

const requested = z.object({ orderId: z.string(), addressChangeRequest: addressChangeRequestView.unwrap() });
const orderParams = z.object({ orderId: z.string() }).strict();
const BUYER_ERRORS = { 404: ['ORDER_NOT_FOUND'], 409: ['ADDRESS_CHANGE_NOT_AVAILABLE'] } as const;
const tag = 'Storefront orders';

export const addressChangeOperations = [
  defineOperation({
    operationId: 'storefrontRequestMemberAddressChange',
    method: 'POST',
    path: '/storefront/v1/me/orders/{orderId}/address-change-request',
    summary: "A member asks for another shipping address before dispatch; the seller's system applies it",
    tag,
    auth: 'buyer',
    status: 202,
    params: orderParams,
    body: z.object({ shippingAddress }).strict(),
    response: requested,
    errors: BUYER_ERRORS,
    handler: async (ctx) => {
      const order = await memberOrder(ctx.db, ctx.buyer.storeId, ctx.buyer.customer?.id, ctx.params.orderId);
      return transaction(ctx.db, () => requestAddressChange(ctx.services, ctx.now, order, ctx.body.shippingAddress));
    },
  }),
  defineOperation({
    operationId: 'storefrontRequestGuestAddressChange',
    method: 'POST',
    path: '/storefront/v1/guest/orders/{orderId}/address-change-request',
    summary: 'A guest asks for another shipping address before dispatch, with the order password',
    tag,
    auth: 'buyer',
    status: 202,
    params: orderParams,
    body: z.object({ orderPassword: z.string().min(1).max(128), shippingAddress }).strict(),
    response: requested,
    errors: { ...BUYER_ERRORS, 429: ['GUEST_LOOKUP_LOCKED'] },
    async: true,
    handler: async (ctx) => {
      const order = await guestOrder(ctx.db, ctx.buyer.storeId, ctx.params.orderId, ctx.body.orderPassword, ctx.now);
      return transaction(ctx.db, () => requestAddressChange(ctx.services, ctx.now, order, ctx.body.shippingAddress));
    },
  }),
  defineOperation({
    operationId: 'changeOrderShippingAddress',
    method: 'PUT',
    path: '/v1/orders/{orderId}/shipping-address',
    summary: "Change an order's shipping address before dispatch (applies a buyer's request, or the seller's own correction)",
    tag: 'Orders',
    auth: 'store',
    scope: 'order:rw',
    // Trade processing like dispatch: the address is where the goods go, not money.
    agent: 'direct',
    params: orderParams,
    body: z.object({ shippingAddress }).strict(),
    response: orderView,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['ORDER_NOT_FOUND'], 409: ['ADDRESS_CHANGE_NOT_AVAILABLE'] },
    target: (ctx) => ({ type: 'ORDER', id: ctx.params.orderId }),
    handler: async (ctx) => {
      const order = await loadOrder(ctx.db, ctx.store.id, ctx.params.orderId);
      await itemsBeforeDispatch(ctx.db, order);
      const changed = { ...order, shippingAddress: ctx.body.shippingAddress, addressChangeRequest: null, lastChangedAt: ctx.now };
      await ctx.db
        .update(orders)
        .set({ shippingAddress: changed.shippingAddress, addressChangeRequest: null, lastChangedAt: ctx.now })
        .where(eq(orders.id, order.id))
        .run();
      return presentOrder(ctx.db, changed);
    },
  }),
  defineOperation({
    operationId: 'dismissAddressChangeRequest',
    method: 'DELETE',
    path: '/v1/orders/{orderId}/address-change-request',
    summary: "Dismiss a buyer's pending address change request (the address stays)",
    tag: 'Orders',
    auth: 'store',
    scope: 'order:rw',
    agent: 'direct',
    params: orderParams,
    response: orderView,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['ORDER_NOT_FOUND', 'ADDRESS_CHANGE_REQUEST_NOT_FOUND'] },
    target: (ctx) => ({ type: 'ORDER', id: ctx.params.orderId }),
    handler: async (ctx) => {
      const order = await loadOrder(ctx.db, ctx.store.id, ctx.params.orderId);
      if (!order.addressChangeRequest) throw fail(404, 'ADDRESS_CHANGE_REQUEST_NOT_FOUND');
      await ctx.db.update(orders).set({ addressChangeRequest: null, lastChangedAt: ctx.now }).where(eq(orders.id, order.id)).run();
      return presentOrder(ctx.db, { ...order, addressChangeRequest: null, lastChangedAt: ctx.now });
    },
  }),
];
