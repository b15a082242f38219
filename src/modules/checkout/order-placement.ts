// Placing the order of an approved payment: stock, the order and its hooks, or the automatic cancel instead.
import { storeSettings, type StoreSettings } from '../stores/index.js';
import { transaction, type Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { ApiError } from '../../server/errors.js';
import { announce } from '../../server/hooks.js';
import type { Services } from '../../server/services.js';
import { recordSale } from '../catalog/index.js';
import { findCustomer, type Customer } from '../customers/index.js';
import type { ConfirmResult } from '../payments/index.js';
import { cashReceiptOf, createOrder, settleCashReceiptRequest } from '../orders/index.js';
import { insertRow, updateById } from '../../db/statements.js';
import { linkDiscountsToOrder, releaseDiscounts } from './discounts.js';
import { CASH_METHODS } from './cash-receipts.js';
import { failure, findSettling, type AttemptRow, type PaymentRow } from './payment-records.js';
import { deliveryGroupOf, priceSheet } from './pricing.js';
import { paymentAttempts, paymentRefunds, payments, checkoutSheets } from './schema.js';
import { removeOrderedCartLines } from './cart.js';
import type { SheetRow } from './sheet.js';

interface Approval {
  pg: string | null;
  method: string;
  approvedMethod: string;
  provider: string | null;
  amount: number;
}

/**
 * Takes the stock and writes the order (with `ORDER.PAID`), closing payment and sheet — inside the caller's
 * transaction. Throws 409 INSUFFICIENT_STOCK / DATES_UNAVAILABLE when stock ran out.
 */
export async function placeOrder(
  services: Services,
  now: number,
  payment: PaymentRow,
  sheet: SheetRow,
  customer: Pick<Customer, 'name' | 'email'> | null,
  approval: Approval,
  paymentFields: Partial<PaymentRow> = {},
  settings?: StoreSettings,
): Promise<string> {
  const { db } = services;
  const sold: { pointEarnRateBp: number | null }[] = [];
  for (const item of sheet.items) {
    sold.push(
      await recordSale(db, now, {
        storeId: sheet.storeId,
        productId: item.productId,
        variantId: item.optionId,
        quantity: item.quantity,
        stay: item.stay && { checkIn: item.stay.checkIn, checkOut: item.stay.checkOut },
      }),
    );
  }
  const { itemDeliveryFees } = priceSheet(
    sheet.items,
    settings ?? (await storeSettings(db, sheet.storeId)),
    payment.shippingAddress?.zipCode ?? null,
    payment.amounts,
  );
  const couponDiscounts = sheet.items.map((_, i) => payment.coupons.reduce((n, line) => n + line.itemDiscounts[i], 0));
  const order = await createOrder(db, now, {
    storeId: sheet.storeId,
    orderNo: payment.orderNo,
    paymentId: payment.id,
    checkoutId: sheet.id,
    customerId: payment.customerId,
    buyer: payment.guest ?? { name: customer?.name ?? null, phone: null, email: customer?.email ?? null },
    guestPasswordHash: payment.guestPasswordHash,
    testPayment: payment.testPayment,
    payment: {
      paymentId: payment.id,
      pg: approval.pg,
      // Compatibility value (spec 01 §2.8): easy pay reads as CARD.
      method: approval.approvedMethod === 'EASY_PAY' ? 'CARD' : approval.approvedMethod,
      approvedMethod: approval.approvedMethod,
      easyPayProvider: approval.provider,
      amount: approval.amount,
      pointAmount: payment.amounts.pointAmount,
      pointRefundedAmount: 0,
      approvedAt: now,
    },
    amounts: payment.amounts,
    shippingAddress: payment.shippingAddress,
    items: sheet.items.map((item, i) => ({
      productId: item.productId,
      productNo: item.productNo,
      optionId: item.optionId,
      productName: item.name,
      optionValues: item.optionValues,
      quantity: item.quantity,
      unitPrice: item.unitPrice,
      amount: item.amount,
      deliveryGroup: deliveryGroupOf(item),
      deliveryFee: itemDeliveryFees[i],
      couponDiscountAmount: couponDiscounts[i],
      pointEarnRateBp: sold[i].pointEarnRateBp ?? null,
      stay: item.stay,
      fulfillment: item.fulfillment,
      refundPolicy: item.refundPolicy,
      options: { optionSelections: item.optionSelections ?? [], customInputs: item.customInputs ?? [] },
    })),
  });
  await updateById(db, payments, payment.id, { ...paymentFields, status: 'COMPLETED', orderId: order.id, updatedAt: now });
  await linkDiscountsToOrder(db, now, payment, order.id);
  await updateById(db, checkoutSheets, sheet.id, { status: 'COMPLETED', orderId: order.id });
  await removeOrderedCartLines(db, sheet);
  if ((await cashReceiptOf(db, payment.id))?.status === 'REQUESTED')
    await settleCashReceiptRequest(db, payment.id, CASH_METHODS.has(approval.approvedMethod), now);
  return order.id;
}

const customerOf = async (db: Db, id: string | null) => (id ? ((await findCustomer(db, id)) ?? null) : null);

const CANCEL_MESSAGES: Record<string, string> = {
  DUPLICATE_APPROVAL: '같은 주문서가 이미 결제되어 이 결제는 자동 취소되었습니다.',
  AMOUNT_MISMATCH: '결제 금액이 주문 금액과 달라 자동 취소되었습니다.',
  OUT_OF_STOCK: '결제 중 재고가 소진되어 자동 취소되었습니다.',
  PAYMENT_ENDED: '이미 끝난 결제라 자동 취소되었습니다.',
  PAYMENT_EXPIRED: '결제 유효 시간이 지난 뒤 승인되어 자동 취소되었습니다.',
};

/** How an approval settled; an order carries the payment and attempt as its transaction committed them. */
export type Settled =
  { kind: 'ORDER'; orderId: string; payment: PaymentRow; attempt: AttemptRow } | { kind: 'CANCEL'; refundId: string; reason: string } | { kind: 'NOOP' };

/**
 * An approved attempt becomes the order — or is canceled automatically (spec 02 §3): a second approval for
 * the sheet, an amount differing from the sheet or the gateway, or stock gone during approval. One
 * transaction decides, so concurrent approvals can never both take the stock or both make an order.
 */
export async function settleApproval(services: Services, attemptId: string, result: ConfirmResult): Promise<Settled> {
  return await transaction(services.db, async (): Promise<Settled> => {
    const { db } = services;
    const now = services.clock.now();
    const { attempt, payment, sheet } = (await findSettling(db, attemptId))!;
    if (attempt.status !== 'READY' && attempt.status !== 'CONFIRMING') return { kind: 'NOOP' };
    const approval = {
      pgTransactionId: result.pgTransactionId,
      approvedAmount: result.approvedAmount,
      approvedMethod: result.approvedMethod,
      approvedAt: now,
      updatedAt: now,
    };
    // The money was taken whatever happens next: an automatic cancel counts on both sides of the sales report.
    await announce(db, 'paymentApproved', {
      storeId: attempt.storeId,
      at: now,
      pg: attempt.pg,
      method: result.approvedMethod ?? attempt.method,
      testPayment: attempt.testPayment,
      amount: result.approvedAmount,
    });
    // The approving attempt names the payment's gateway, method and transaction (spec 01 §4.3 list items).
    const gatewayFields = { pg: attempt.pg, method: result.approvedMethod ?? attempt.method, pgTransactionId: result.pgTransactionId };

    let reason: string | null = null;
    if (payment.status === 'COMPLETED' || sheet.status === 'COMPLETED') reason = 'DUPLICATE_APPROVAL';
    else if (payment.status === 'FAILED') reason = 'PAYMENT_ENDED';
    // Approved in time but answered late (CONFIRMING) still counts; a window approved after the 10 minutes does not.
    else if (attempt.status === 'READY' && now >= payment.expiresAt) reason = 'PAYMENT_EXPIRED';
    else if (result.approvedAmount !== payment.amounts.totalAmount) reason = 'AMOUNT_MISMATCH';
    const settings = reason === null ? await storeSettings(db, sheet.storeId) : null;
    if (
      settings &&
      priceSheet(sheet.items, settings, payment.shippingAddress?.zipCode ?? null, payment.amounts).amounts.totalAmount !== payment.amounts.totalAmount
    )
      reason = 'AMOUNT_MISMATCH';
    if (reason === null) {
      try {
        const place = async () =>
          placeOrder(
            services,
            now,
            payment,
            sheet,
            await customerOf(db, payment.customerId),
            {
              pg: attempt.pg,
              method: attempt.method,
              approvedMethod: result.approvedMethod ?? attempt.method,
              provider: attempt.provider,
              amount: result.approvedAmount,
            },
            gatewayFields,
            settings!,
          );
        // A savepoint gives back the stock taken for earlier items when a later one is short. One item that
        // is no stay is refused before anything is written (its stock is taken by one conditional update).
        const orderId = sheet.items.length === 1 && !sheet.items[0].stay ? await place() : await transaction(services.db, place);
        const approved = { ...approval, status: 'APPROVED' as const };
        await updateById(db, paymentAttempts, attempt.id, approved);
        return {
          kind: 'ORDER',
          orderId,
          payment: { ...payment, ...gatewayFields, status: 'COMPLETED', orderId, updatedAt: now },
          attempt: { ...attempt, ...approved },
        };
      } catch (error) {
        if (!(error instanceof ApiError) || (error.code !== 'INSUFFICIENT_STOCK' && error.code !== 'DATES_UNAVAILABLE')) throw error;
        reason = 'OUT_OF_STOCK';
      }
    }
    const f = failure(reason, CANCEL_MESSAGES[reason], false, now);
    await updateById(db, paymentAttempts, attempt.id, { ...approval, status: 'AUTO_CANCELED', failure: f });
    if (payment.status !== 'COMPLETED') {
      await updateById(db, payments, payment.id, { ...gatewayFields, status: 'FAILED', lastFailure: f, updatedAt: now });
      await releaseDiscounts(db, now, payment.id);
    }
    const refundId = newId('rfd', now);
    await insertRow(db, paymentRefunds, {
      id: refundId,
      storeId: payment.storeId,
      paymentId: payment.id,
      attemptId: attempt.id,
      amount: result.approvedAmount,
      pointRefundAmount: 0,
      reason,
      status: 'PROCESSING',
      failure: null,
      createdAt: now,
      completedAt: null,
    });
    return { kind: 'CANCEL', refundId, reason };
  });
}
