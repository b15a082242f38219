import type { Db } from '../../db/client.js';
import type { Module } from '../../server/module.js';
import type { OrderItemRow, OrderRow } from './service.js';
import { addressChangeOperations } from './address-change.js';
import { orderOperations } from './operations.js';

export const ordersModule: Module = { name: 'orders', operations: [...orderOperations, ...addressChangeOperations] };

export { findOrder, findOrderItem, orderIdsOfPayments } from './service.js';
export { amountsView, guestLookup, itemOptionsViews, phone, shippingAddress, stayView } from './shapes.js';
export { CORE_STATUSES, coreRank, leastAdvanced, refreshOrderStatus, setItemStatus, type CoreStatus } from './statuses.js';

declare module '../../server/module.js' {
  interface Happenings {
    /** An order was written for an approved payment (inside that transaction): flows start, purchase facts are counted. */
    orderPlaced: { order: OrderRow; items: OrderItemRow[]; at: number };
  }
  interface Questions {
    /** Where the item stands in its flow, as the order item read shows it (flows answers; adopts an item paid before flows). */
    itemFlowOf(db: Db, item: OrderItemRow, at: number): Promise<OrderItemFlow>;
  }
}

/** An order item's flow as its read shows it, and the supplier's note the FULFILL action left. */
export interface OrderItemFlow {
  flowId: string;
  version: number;
  state: string;
  coreStatus: string;
  supplyNote: string | null;
}

export type { OrderItemRow, OrderRow } from './service.js';

export { guestOrder, memberOrder } from './buyer-access.js';
export { kstDayStart, periodOf, queryBool } from './queries.js';
export { type FixedRefundPolicy, type OrderAmounts, type ShippingAddress, type StayNights } from './schema.js';
export { allocateOrderNo, createOrder } from './service.js';
export { cashReceiptOf, cashReceiptView, presentCashReceipt } from './cash-receipts.js';
export { itemsOfOrder, recordCanceledQuantity, recordPointsRefunded, recordReturnedQuantity } from './service.js';
export {
  cancelCashReceipt,
  claimDueCashReceipts,
  queueCashReceiptReissue,
  recordCashReceiptFailure,
  recordCashReceiptIssued,
  requestCashReceipt,
  settleCashReceiptRequest,
} from './cash-receipts.js';
export { itemStatusesOfOrder } from './statuses.js';
export { recordGatewayReceiptCanceled } from './cash-receipts.js';
export { type CashReceiptRow } from './cash-receipts.js';
