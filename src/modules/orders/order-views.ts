// How orders and their items read in the API: the seller's view, shared by the buyer's order reads.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { ask } from '../../server/hooks.js';
import { instant, won } from '../../server/responses.js';
import { fulfillmentView } from '../catalog/index.js';
import { EASY_PAY_PROVIDERS, METHODS, PROVIDERS } from '../payments/index.js';
import { cashReceiptOf, cashReceiptView, presentCashReceipt } from './cash-receipts.js';
import { itemsOfOrder, type OrderItemRow, type OrderRow } from './service.js';
import { amountsView, itemOptionsViews, stayView } from './shapes.js';
import { CORE_STATUSES, mostAdvanced } from './statuses.js';

/** Core statuses of items and orders (spec 01 §6.2; readers tolerate new ones). */
const coreStatus = z.string().describe(`One of ${CORE_STATUSES.join(', ')}; readers tolerate new ones`);
export const orderStatus = coreStatus.describe("The least advanced status among the order's non-canceled items");

export const orderItemView = z
  .object({
    orderItemId: z.string(),
    orderItemNo: z.number().int().describe('orderNo followed by the 2-digit line number'),
    orderId: z.string(),
    orderNo: z.number().int(),
    productId: z.string(),
    productNo: z.number().int(),
    optionId: z.string().describe('The variant ordered (= variantId)'),
    variantId: z.string(),
    productName: z.string(),
    optionValues: z.array(z.string()),
    quantity: z.number().int(),
    unitPrice: won,
    amount: won,
    deliveryFee: won.describe("Shipping fee charged to the item's shipping group (on its first item)"),
    pointAllocation: won.describe("Part of the order's points spent on this item"),
    couponDiscountAmount: won.describe("Part of the order's coupon discounts taken off this item"),
    canceledQuantity: z.number().int().describe('Units canceled (by the seller or by cancel claims)'),
    returnedQuantity: z.number().int().describe('Units returned by completed return claims'),
    status: coreStatus.describe("The core status of the item's flow state"),
    flow: z
      .object({ flowId: z.string(), version: z.number().int(), state: z.string(), coreStatus })
      .describe('Where the item is in its order flow (fixed at payment)'),
    stay: stayView.nullable(),
    ...itemOptionsViews,
    fulfillmentSnapshot: fulfillmentView.describe("The product's fulfillment at payment time"),
    fulfillment: z.object({
      type: z.enum(['SHIPPING', 'MANUAL']),
      note: z.string().nullable().describe('What the seller noted on supplying a non-shipped item'),
    }),
    refundPolicy: z
      .object({
        returnDeliveryFee: won.nullable(),
        exchangeDeliveryFee: won.nullable(),
        preShipmentDeliveryFeeRefund: z.boolean(),
        override: z
          .object({ returnDeliveryFee: won.optional(), exchangeDeliveryFee: won.optional(), preShipmentDeliveryFeeRefund: z.boolean().optional() })
          .nullable()
          .describe("The product's own items, if any"),
      })
      .describe('Refund policy fixed at payment time (spec 01 §2.4 rule 5)'),
    testPayment: z.boolean(),
    createdAt: instant,
  })
  .meta({ id: 'OrderItem' });

/** The note the seller gave when supplying a no-shipping item (FULFILL input), shown to buyer and seller. */
export async function presentOrderItem(db: Db, item: OrderItemRow, order: Pick<OrderRow, 'orderNo'>): Promise<z.output<typeof orderItemView>> {
  const { supplyNote, ...flow } = await ask(db, 'itemFlowOf')(db, item, item.updatedAt);
  return {
    orderItemId: item.id,
    orderItemNo: item.orderItemNo,
    orderId: item.orderId,
    orderNo: order.orderNo,
    productId: item.productId,
    productNo: item.productNo,
    optionId: item.optionId,
    variantId: item.optionId,
    productName: item.productName,
    optionValues: item.optionValues,
    quantity: item.quantity,
    unitPrice: item.unitPrice,
    amount: item.amount,
    deliveryFee: item.deliveryFee,
    pointAllocation: item.pointAllocation,
    couponDiscountAmount: item.couponDiscountAmount,
    canceledQuantity: item.canceledQuantity,
    returnedQuantity: item.returnedQuantity,
    status: item.status,
    flow,
    stay: item.stay,
    optionSelections: item.optionSelections,
    customInputs: item.customInputs,
    fulfillmentSnapshot: item.fulfillmentSnapshot,
    fulfillment: { type: item.fulfillmentSnapshot.type, note: supplyNote },
    refundPolicy: item.refundPolicy,
    testPayment: item.testPayment,
    createdAt: isoAt(item.createdAt),
  };
}

export const shippingAddressView = z.object({
  receiverName: z.string(),
  phone: z.string(),
  zipCode: z.string(),
  address1: z.string(),
  address2: z.string(),
  deliveryMemo: z.string().nullable(),
});
/** A buyer's pending request for another address: sellers apply it with PUT /v1/orders/{orderId}/shipping-address. */
export const addressChangeRequestView = z.object({ shippingAddress: shippingAddressView, requestedAt: instant }).nullable();
export const presentAddressChangeRequest = (order: Pick<OrderRow, 'addressChangeRequest'>) =>
  order.addressChangeRequest && { shippingAddress: order.addressChangeRequest.shippingAddress, requestedAt: isoAt(order.addressChangeRequest.requestedAt) };

/** Payment methods as orders record them: a gateway's, or `POINT` when points covered the whole amount. */
export const approvedMethod = z.enum([...METHODS, 'POINT']);

export const orderView = z
  .object({
    orderId: z.string(),
    orderNo: z.number().int().describe('14 digits: the Korean date (YYYYMMDD) and a per-store daily sequence'),
    status: orderStatus,
    progressStatus: coreStatus.describe("The most advanced status among the order's non-canceled items (CANCELED when every item is)"),
    testPayment: z.boolean().describe('True for sandbox payments'),
    buyer: z.object({
      customerId: z.string().nullable().describe('null for a guest'),
      guest: z.boolean(),
      name: z.string().nullable(),
      phone: z.string().nullable(),
      email: z.string().nullable(),
    }),
    shippingAddress: shippingAddressView.nullable(),
    addressChangeRequest: addressChangeRequestView,
    amounts: amountsView,
    payment: z.object({
      paymentId: z.string(),
      pg: z.enum(PROVIDERS).nullable().describe('null when points paid everything'),
      method: approvedMethod.exclude(['EASY_PAY']).describe('Compatibility value: easy pay shows as CARD'),
      approvedMethod: approvedMethod.describe('The actual method'),
      easyPayProvider: z.enum(EASY_PAY_PROVIDERS).nullable(),
      amount: won,
      pointAmount: won,
      pointRefundedAmount: won,
      cashReceipt: cashReceiptView.nullable(),
      approvedAt: instant,
    }),
    items: z.array(orderItemView),
    orderedAt: instant,
    lastChangedAt: instant,
  })
  .meta({ id: 'Order' });

/** The seller's view of an order (spec 01 §2.8). */
export async function presentOrder(db: Db, order: OrderRow, items?: OrderItemRow[]) {
  // One item after another: presenting an item without a flow yet adopts it (a write).
  const itemViews = [];
  for (const item of items ?? (await itemsOfOrder(db, order.id))) itemViews.push(await presentOrderItem(db, item, order));
  return {
    orderId: order.id,
    orderNo: order.orderNo,
    status: order.status,
    progressStatus: mostAdvanced(itemViews.map((i) => i.status)),
    testPayment: order.testPayment,
    buyer: { customerId: order.customerId, guest: order.guest, ...order.buyer },
    shippingAddress: order.shippingAddress,
    addressChangeRequest: presentAddressChangeRequest(order),
    amounts: order.amounts,
    payment: {
      paymentId: order.payment.paymentId,
      pg: order.payment.pg,
      method: order.payment.method,
      approvedMethod: order.payment.approvedMethod,
      easyPayProvider: order.payment.easyPayProvider,
      amount: order.payment.amount,
      pointAmount: order.payment.pointAmount,
      pointRefundedAmount: order.payment.pointRefundedAmount,
      cashReceipt: presentCashReceipt(await cashReceiptOf(db, order.payment.paymentId)),
      approvedAt: isoAt(order.payment.approvedAt),
    },
    items: itemViews,
    orderedAt: isoAt(order.orderedAt),
    lastChangedAt: isoAt(order.lastChangedAt),
  };
}
