// A buyer's flow actions from the storefront: a member's on their own orders, a guest's with the order password.
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { defineOperation } from '../../server/registry.js';
import { findOrderItem, guestOrder, memberOrder } from '../orders/index.js';
import { loadItemFlow } from './item-flows.js';
import { runItemAction, runOrderAction } from './item-actions.js';
import { actionBody, actionInput, buyerItemFlow, buyerOrderActionResult, itemActionParams, orderActionParams } from './flow-shapes.js';
import type { RefundsAfterCommit } from './immediate-cancel.js';

// ---------------------------------------------------------------------------------------------------
// Buyer access

async function orderItemOf(db: Db, orderId: string, orderItemId: string, now: number) {
  const row = await findOrderItem(db, orderItemId);
  if (!row || row.orderId !== orderId) throw fail(404, 'ORDER_ITEM_NOT_FOUND');
  return (await loadItemFlow(db, row.storeId, row.id, now)).row;
}

const orderIdOfItem = async (db: Db, orderItemId: string) => (await findOrderItem(db, orderItemId))?.orderId;

/**
 * A buyer's action in one transaction; the refunds of cancels it filed (IMMEDIATE_CANCEL) go to the gateway
 * once it committed, as the claim endpoint sends them.
 */
async function thenRefund<T>(db: Db, run: (refunds: RefundsAfterCommit) => Promise<T>): Promise<T> {
  const refunds: RefundsAfterCommit = [];
  const result = await transaction(db, () => {
    // A transaction re-run on conflict (PostgreSQL) collects its refunds anew.
    refunds.length = 0;
    return run(refunds);
  });
  for (const send of refunds) await send();
  return result;
}

const guestBody = z.object({ orderPassword: z.string().min(1).max(128), input: actionInput.optional() }).strict();
const BUYER_ERRORS = {
  400: ['FLOW_ACTION_INPUT_INVALID'],
  404: ['ORDER_NOT_FOUND', 'ORDER_ITEM_NOT_FOUND'],
  // INVALID_STATUS and PERIOD_EXPIRED: an IMMEDIATE_CANCEL refused by the claim rules (a passed deadline).
  409: ['ACTION_NOT_AVAILABLE', 'FLOW_MOVE_NOT_ALLOWED', 'INVALID_STATUS', 'PERIOD_EXPIRED'],
} as const;
const GUEST_ERRORS = { ...BUYER_ERRORS, 429: ['GUEST_LOOKUP_LOCKED'] } as const;

const buyerTag = 'Storefront order flows';

export const buyerItemOperations = [
  defineOperation({
    operationId: 'storefrontRunMemberItemAction',
    method: 'POST',
    path: '/storefront/v1/me/order-items/{orderItemId}/actions/{key}',
    summary: "A member buyer's flow action on an item of their order (e.g. DECIDE_PURCHASE)",
    tag: buyerTag,
    auth: 'buyer',
    params: itemActionParams,
    body: actionBody,
    response: buyerItemFlow,
    errors: BUYER_ERRORS,
    async: true,
    handler: (ctx) =>
      thenRefund(ctx.db, async (refunds) => {
        const order = await memberOrder(
          ctx.db,
          ctx.buyer.storeId,
          ctx.buyer.customer?.id,
          await orderIdOfItem(ctx.db, ctx.params.orderItemId),
          'ORDER_ITEM_NOT_FOUND',
        );
        const row = await orderItemOf(ctx.db, order.id, ctx.params.orderItemId, ctx.now);
        const buyer = { type: 'BUYER' as const, id: ctx.buyer.customer!.id };
        return runItemAction(ctx.services, ctx.now, row, ctx.params.key, buyer, ctx.body.input ?? {}, refunds);
      }),
  }),
  defineOperation({
    operationId: 'storefrontRunMemberOrderAction',
    method: 'POST',
    path: '/storefront/v1/me/orders/{orderId}/actions/{key}',
    summary: "A member buyer's flow action on their whole order",
    tag: buyerTag,
    auth: 'buyer',
    params: orderActionParams,
    body: actionBody,
    response: buyerOrderActionResult,
    errors: BUYER_ERRORS,
    async: true,
    handler: (ctx) =>
      thenRefund(ctx.db, async (refunds) => {
        const order = await memberOrder(ctx.db, ctx.buyer.storeId, ctx.buyer.customer?.id, ctx.params.orderId);
        const buyer = { type: 'BUYER' as const, id: ctx.buyer.customer!.id };
        return runOrderAction(ctx.services, ctx.now, order.id, ctx.params.key, buyer, ctx.body.input ?? {}, refunds);
      }),
  }),
  defineOperation({
    operationId: 'storefrontRunGuestItemAction',
    method: 'POST',
    path: '/storefront/v1/guest/orders/{orderId}/items/{orderItemId}/actions/{key}',
    summary: "A guest buyer's flow action on an item, with the order password",
    tag: buyerTag,
    auth: 'buyer',
    params: z.object({ orderId: z.string(), orderItemId: z.string(), key: z.string() }).strict(),
    body: guestBody,
    response: buyerItemFlow,
    errors: GUEST_ERRORS,
    async: true,
    handler: async (ctx) => {
      const order = await guestOrder(ctx.db, ctx.buyer.storeId, ctx.params.orderId, ctx.body.orderPassword, ctx.now);
      return thenRefund(ctx.db, async (refunds) => {
        const row = await orderItemOf(ctx.db, order.id, ctx.params.orderItemId, ctx.now);
        return runItemAction(ctx.services, ctx.now, row, ctx.params.key, { type: 'BUYER', id: null }, ctx.body.input ?? {}, refunds);
      });
    },
  }),
  defineOperation({
    operationId: 'storefrontRunGuestOrderAction',
    method: 'POST',
    path: '/storefront/v1/guest/orders/{orderId}/actions/{key}',
    summary: "A guest buyer's flow action on the whole order, with the order password",
    tag: buyerTag,
    auth: 'buyer',
    params: orderActionParams,
    body: guestBody,
    response: buyerOrderActionResult,
    errors: GUEST_ERRORS,
    async: true,
    handler: async (ctx) => {
      const order = await guestOrder(ctx.db, ctx.buyer.storeId, ctx.params.orderId, ctx.body.orderPassword, ctx.now);
      return thenRefund(ctx.db, (refunds) =>
        runOrderAction(ctx.services, ctx.now, order.id, ctx.params.key, { type: 'BUYER', id: null }, ctx.body.input ?? {}, refunds),
      );
    },
  }),
];
