import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { contains } from '../../db/search.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation } from '../../server/registry.js';
import { amountsView, guestLookup } from './shapes.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { calendarDate, instant, won } from '../../server/responses.js';
import { dateInput, instantInput } from '../../server/validation.js';
import { kstDayStart, orderNoString, periodOf, queryBool } from './queries.js';
import { authenticateGuestOrder } from './buyer-access.js';
import { cashReceipts, orderItems, orders } from './schema.js';
import { findOrderByNo, itemsOfOrder, loadOrder, type OrderRow } from './service.js';
import { cashReceiptOf, cashReceiptView, presentCashReceipt } from './cash-receipts.js';
import {
  addressChangeRequestView,
  approvedMethod,
  presentAddressChangeRequest,
  orderItemView,
  orderStatus,
  orderView,
  presentOrder,
  presentOrderItem,
  shippingAddressView,
} from './order-views.js';

defineMessages({
  GUEST_LOOKUP_LOCKED: '주문 조회에 여러 번 실패했습니다. 30분 뒤에 다시 시도하세요.',
  CASH_RECEIPT_NOT_FOUND: '이 주문에는 현금영수증 신청이 없습니다.',
  CASH_RECEIPT_NOT_REISSUABLE: '발급 대기 또는 발급 실패 상태의 현금영수증만 다시 발급할 수 있습니다.',
});

const tag = 'Orders';
const ORDER_LIST_MAX_DAYS = 92;
const orderListQuery = z
  .object({
    ...pageQuery(100),
    orderNo: orderNoString.optional(),
    keyword: z.string().trim().min(1).max(100).optional(),
    testPayment: queryBool.optional(),
    lastChangedFrom: instantInput.optional(),
    orderedFrom: dateInput.optional(),
    orderedTo: dateInput.optional(),
  })
  .strict();

const ORDER_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['ORDER_NOT_FOUND'] } as const;

const like = (value: string) => contains(orders.searchText, value.toLowerCase());

const buyerOrderView = z.object({
  orderId: z.string(),
  orderNo: z.number().int(),
  status: orderStatus,
  testPayment: z.boolean(),
  buyer: z.object({ name: z.string().nullable(), phone: z.string().nullable(), email: z.string().nullable() }),
  shippingAddress: shippingAddressView.nullable(),
  addressChangeRequest: addressChangeRequestView,
  amounts: amountsView,
  payment: z.object({ method: approvedMethod.exclude(['EASY_PAY']), approvedMethod, amount: won }),
  items: z.array(
    orderItemView
      .pick({
        orderItemId: true,
        orderItemNo: true,
        productId: true,
        optionId: true,
        productName: true,
        optionValues: true,
        quantity: true,
        unitPrice: true,
        amount: true,
        stay: true,
        status: true,
      })
      .extend({ fulfillment: z.object({ type: z.enum(['SHIPPING', 'MANUAL']) }) }),
  ),
  orderedAt: instant,
});

/** The buyer's view of a guest order: no internal ids beyond the order's own, no payment secrets. */
async function presentBuyerOrder(db: Db, order: OrderRow) {
  return {
    orderId: order.id,
    orderNo: order.orderNo,
    status: order.status,
    testPayment: order.testPayment,
    buyer: order.buyer,
    shippingAddress: order.shippingAddress,
    addressChangeRequest: presentAddressChangeRequest(order),
    amounts: order.amounts,
    payment: { method: order.payment.method, approvedMethod: order.payment.approvedMethod, amount: order.payment.amount },
    items: (await itemsOfOrder(db, order.id)).map((i) => ({
      orderItemId: i.id,
      orderItemNo: i.orderItemNo,
      productId: i.productId,
      optionId: i.optionId,
      productName: i.productName,
      optionValues: i.optionValues,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      amount: i.amount,
      stay: i.stay,
      fulfillment: { type: i.fulfillmentSnapshot.type },
      status: i.status,
    })),
    orderedAt: isoAt(order.orderedAt),
  };
}

export const orderOperations = [
  defineOperation({
    operationId: 'listOrders',
    method: 'GET',
    path: '/v1/orders',
    summary: 'Orders, newest first: orderNo (hyphens allowed), keyword, testPayment, lastChangedFrom, orderedFrom/orderedTo (default last 30 days, at most 92)',
    tag,
    auth: 'store',
    scope: 'order:r',
    query: orderListQuery,
    response: pageOf(orderView).extend({
      orderedFrom: calendarDate
        .nullable()
        .describe('First day of the period searched (Korean date); null when an order number or change cursor alone named the orders'),
      orderedTo: calendarDate.nullable().describe('Last day of the period searched, inclusive'),
    }),
    errors: { 400: ['INVALID_PARAMETER', 'RANGE_TOO_WIDE'] },
    handler: async (ctx) => {
      const { orderNo, keyword, testPayment, lastChangedFrom, page, size } = ctx.query;
      const filters: (SQL | undefined)[] = [eq(orders.storeId, ctx.store.id)];
      // An order number or a change cursor names what is wanted; only otherwise does the default period apply.
      let period: { from: string; to: string } | null = null;
      if ((orderNo === undefined && lastChangedFrom === undefined) || ctx.query.orderedFrom || ctx.query.orderedTo) {
        period = periodOf(ctx.query.orderedFrom, ctx.query.orderedTo, ctx.now, ORDER_LIST_MAX_DAYS);
        filters.push(gte(orders.orderedAt, kstDayStart(period.from)), lt(orders.orderedAt, kstDayStart(period.to, 1)));
      }
      if (orderNo !== undefined) filters.push(eq(orders.orderNo, orderNo));
      if (keyword) filters.push(like(keyword.replace(/^(\d{8})-(\d{6})$/, '$1$2')));
      if (testPayment !== undefined) filters.push(eq(orders.testPayment, testPayment));
      if (lastChangedFrom) filters.push(gte(orders.lastChangedAt, Date.parse(lastChangedFrom)));
      const where = and(...filters);
      const rows = await ctx.db
        .select()
        .from(orders)
        .where(where)
        .orderBy(desc(orders.orderedAt))
        .limit(size)
        .offset((page - 1) * size)
        .all();
      const total = (await ctx.db
        .select({ n: sql<number>`count(*)` })
        .from(orders)
        .where(where)
        .get())!.n;
      const items = rows.length
        ? await ctx.db
            .select()
            .from(orderItems)
            .where(
              inArray(
                orderItems.orderId,
                rows.map((r) => r.id),
              ),
            )
            .orderBy(orderItems.orderItemNo)
            .all()
        : [];
      const views = [];
      for (const o of rows)
        views.push(
          await presentOrder(
            ctx.db,
            o,
            items.filter((i) => i.orderId === o.id),
          ),
        );
      return {
        orderedFrom: period?.from ?? null,
        orderedTo: period?.to ?? null,
        ...paginated(views, page, size, total),
      };
    },
  }),
  defineOperation({
    operationId: 'getOrder',
    method: 'GET',
    path: '/v1/orders/{orderId}',
    summary: 'An order with its items, payment and cash receipt',
    tag,
    auth: 'store',
    scope: 'order:r',
    params: z.object({ orderId: z.string() }).strict(),
    response: orderView,
    errors: ORDER_LOOKUP,
    handler: async (ctx) => presentOrder(ctx.db, await loadOrder(ctx.db, ctx.store.id, ctx.params.orderId)),
  }),
  defineOperation({
    operationId: 'listOrderItems',
    method: 'GET',
    path: '/v1/order-items',
    summary: 'Order items, newest first: testPayment, orderId, productId',
    tag,
    auth: 'store',
    scope: 'order:r',
    query: z.object({ ...pageQuery(100), testPayment: queryBool.optional(), orderId: z.string().optional(), productId: z.string().optional() }).strict(),
    response: pageOf(orderItemView),
    handler: async (ctx) => {
      const { page, size, testPayment, orderId, productId } = ctx.query;
      const where = and(
        eq(orderItems.storeId, ctx.store.id),
        testPayment === undefined ? undefined : eq(orderItems.testPayment, testPayment),
        orderId ? eq(orderItems.orderId, orderId) : undefined,
        productId ? eq(orderItems.productId, productId) : undefined,
      );
      const rows = await ctx.db
        .select({ item: orderItems, orderNo: orders.orderNo })
        .from(orderItems)
        .innerJoin(orders, eq(orders.id, orderItems.orderId))
        .where(where)
        .orderBy(desc(orderItems.createdAt), orderItems.orderItemNo)
        .limit(size)
        .offset((page - 1) * size)
        .all();
      const total = (await ctx.db
        .select({ n: sql<number>`count(*)` })
        .from(orderItems)
        .where(where)
        .get())!.n;
      const views = [];
      // One after another: presenting an item without a flow yet adopts it (a write).
      for (const r of rows) views.push(await presentOrderItem(ctx.db, r.item, r));
      return paginated(views, page, size, total);
    },
  }),
  defineOperation({
    operationId: 'reissueCashReceipt',
    title: '현금영수증 재발급',
    method: 'POST',
    path: '/v1/orders/{orderId}/cash-receipt/reissue',
    summary: 'Issue a failed or pending cash receipt again (store platform OWNER or ADMIN)',
    tag,
    auth: 'store',
    scope: 'order:rw',
    roles: ['OWNER', 'ADMIN'],
    callers: ['storePlatform'],
    agent: 'approval',
    params: z.object({ orderId: z.string() }).strict(),
    target: (ctx) => ({ type: 'ORDER', id: ctx.params.orderId }),
    response: cashReceiptView,
    errors: { ...ORDER_LOOKUP, 404: ['ORDER_NOT_FOUND', 'CASH_RECEIPT_NOT_FOUND'], 409: ['CASH_RECEIPT_NOT_REISSUABLE'] },
    handler: async (ctx) => {
      const order = await loadOrder(ctx.db, ctx.store.id, ctx.params.orderId);
      const receipt = await cashReceiptOf(ctx.db, order.payment.paymentId);
      if (!receipt) throw fail(404, 'CASH_RECEIPT_NOT_FOUND');
      if (receipt.status !== 'ISSUE_FAILED' && receipt.status !== 'ISSUE_PENDING') throw fail(409, 'CASH_RECEIPT_NOT_REISSUABLE', { status: receipt.status });
      // The issuing job picks it up at once (and retries with backoff from a fresh count).
      await ctx.db
        .update(cashReceipts)
        .set({ status: 'ISSUE_PENDING', attempts: 0, nextAttemptAt: ctx.now, failureCode: null, updatedAt: ctx.now })
        .where(eq(cashReceipts.paymentId, receipt.paymentId))
        .run();
      return presentCashReceipt(await cashReceiptOf(ctx.db, receipt.paymentId));
    },
  }),
  defineOperation({
    operationId: 'storefrontGuestOrderLookup',
    method: 'POST',
    path: '/storefront/v1/guest/orders/lookup',
    summary: 'A guest order by order number and order password (needs X-Store-Id); repeated failures lock the number for 30 minutes',
    tag: 'Storefront orders',
    auth: 'buyer',
    body: guestLookup,
    async: true,
    response: buyerOrderView,
    errors: { 404: ['ORDER_NOT_FOUND'], 429: ['GUEST_LOOKUP_LOCKED'] },
    handler: async (ctx) => {
      const orderNo = Number(ctx.body.orderNo.replace('-', ''));
      const order = await authenticateGuestOrder(
        ctx.db,
        ctx.buyer.storeId,
        orderNo,
        await findOrderByNo(ctx.db, ctx.buyer.storeId, orderNo),
        ctx.body.orderPassword,
        ctx.now,
      );
      return presentBuyerOrder(ctx.db, order);
    },
  }),
];
