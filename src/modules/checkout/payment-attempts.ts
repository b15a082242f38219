// Starting a buyer's payment and opening its gateway windows (attempts): checks, the attempt rows, the window.
import { findSite } from '../storefront/index.js';
import { isPreviewAddress } from '../storefront/index.js';
import { connectedOrigins } from '../storefront/index.js';
import { and, eq } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { mergeErrors } from '../../server/contract.js';
import { ApiError, fail, validationFailed } from '../../server/errors.js';
import { reply, type Ctx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { hashPassword } from '../accounts/index.js';
import { findProduct, variantsOf } from '../catalog/index.js';
import { checkoutMode, gatewayFor, optionKey, paymentDomains, paymentOptions } from '../payments/index.js';
import type { CheckoutAudience, EasyPayProvider, Gateway, PaymentMethod, PaymentOption, Pg } from '../payments/index.js';
import { allocateOrderNo } from '../orders/index.js';
import { assertCashReceiptAllowed, writeCashReceipt } from './cash-receipts.js';
import { IDEMPOTENCY_ERRORS, idempotent } from './idempotency.js';
import { insertRow, updateById } from '../../db/statements.js';
import type { PaymentStartInput } from './inputs.js';
import { DISCOUNT_ERRORS, holdDiscounts, priceWithDiscounts } from './discounts.js';
import { placeOrder } from './order-placement.js';
import { attemptsOf, failure, lastAttemptOf, loadPayment, type AttemptRow, type PaymentRow } from './payment-records.js';
import { presentPaymentStart } from './payment-views.js';
import { paymentAttempts, payments, checkoutSheets, type PaymentOptionRef } from './schema.js';
import { assertBuyerStore, assertGuestAllowed, audienceOf, BUYER_TOKEN_ERRORS, buyerOf } from './buyer.js';
import { presentOptions } from './payment-options.js';
import { assertSheetOpen, buyerSheet, loadSheet, OPEN_SHEET_ERRORS, type SheetRow } from './sheet.js';

/** Validity of a payment (spec 02 §8). */
export const PAYMENT_TTL_MS = 10 * 60_000;

const orderName = (sheet: SheetRow) => (sheet.items.length > 1 ? `${sheet.items[0].name} 외 ${sheet.items.length - 1}건` : sheet.items[0].name);

/**
 * `returnUrl` (spec 02 §5): https; within the seller's payment domains when registered; test payments also
 * accept localhost, names under it and 127.0.0.1 (http too, for local storefront development).
 */
async function assertReturnUrl(services: Services, storeId: string, value: string, testPayment: boolean) {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail(400, 'RETURN_URL_NOT_ALLOWED', { reason: 'NOT_ABSOLUTE', returnUrl: value });
  }
  // Only a live payment is refused a preview address: a test one spares the site's read.
  if (!testPayment) {
    const site = await findSite(services.db, storeId);
    if (site && (await isPreviewAddress(services, site, url))) throw fail(400, 'RETURN_URL_NOT_ALLOWED', { reason: 'PREVIEW', returnUrl: value });
  }
  // Loopback: localhost and its names (svc dev's sites are at `{slug}.localhost`), 127.0.0.1.
  const loopback = url.hostname === 'localhost' || url.hostname.endsWith('.localhost') || url.hostname === '127.0.0.1';
  if (testPayment && loopback && (url.protocol === 'http:' || url.protocol === 'https:')) return;
  if (url.protocol !== 'https:') throw fail(400, 'RETURN_URL_NOT_ALLOWED', { reason: 'NOT_HTTPS', returnUrl: value });
  // Registered payment domains are joined by the store's connected custom domains (spec 02 §4.2); none registered: any https.
  const registered = await paymentDomains(services, storeId);
  const domains = registered.length ? [...registered, ...(await connectedOrigins(services.db, storeId))] : registered;
  if (domains.length && !domains.some((d) => d === url.origin || d === url.hostname)) {
    throw fail(400, 'RETURN_URL_NOT_ALLOWED', { reason: 'NOT_PAYMENT_DOMAIN', returnUrl: value, paymentDomains: domains });
  }
}

/**
 * The requested option among the ones this buyer is offered: none while no gateway can take their payment
 * (409 PAYMENT_NOT_CONFIGURED: NO_PROVIDER, or NOT_LIVE for visitors of a public shop on sandbox gateways),
 * else 409 PAYMENT_OPTION_UNAVAILABLE for one not enabled.
 */
async function resolveOption(services: Services, storeId: string, input: PaymentOptionRef, audience: CheckoutAudience): Promise<PaymentOption> {
  const options = await paymentOptions(services, storeId, audience);
  if (options.length === 0) throw fail(409, 'PAYMENT_NOT_CONFIGURED', { reason: (await checkoutMode(services, storeId, audience)).reason ?? 'NO_PROVIDER' });
  const key = optionKey(input as Parameters<typeof optionKey>[0]);
  const option = options.find((o) => o.key === key);
  if (!option) throw fail(409, 'PAYMENT_OPTION_UNAVAILABLE', { option: input, paymentOptions: await presentOptions(services, storeId, audience) });
  return option;
}

/**
 * The sheet's items as they are now: a type change or a product taken off sale makes the sheet stale
 * (409 CHECKOUT_STALE); stock already gone is said before the buyer pays (409 INSUFFICIENT_STOCK) —
 * nothing is reserved, so stock can still run out during approval (then the approval is canceled).
 */
async function assertStillOrderable(db: Db, sheet: SheetRow) {
  for (const item of sheet.items) {
    const product = await findProduct(db, item.productId);
    if (product?.status === 'SOLD_OUT') throw fail(409, 'INSUFFICIENT_STOCK', { productId: item.productId, optionId: item.optionId, quantity: item.quantity });
    if (!product || product.status !== 'ON_SALE') throw fail(409, 'CHECKOUT_STALE', { productId: item.productId, reason: 'NOT_ON_SALE' });
    if (product.typeChangedVersion !== item.typeVersion)
      throw fail(409, 'CHECKOUT_STALE', { productId: item.productId, reason: 'TYPE_CHANGED', fulfillmentType: product.fulfillment.type });
    const variant = product.inventoryMode === 'STANDARD' ? (await variantsOf(db, product.id)).find((v) => v.id === item.optionId) : undefined;
    if (variant && variant.stockQuantity < item.quantity)
      throw fail(409, 'INSUFFICIENT_STOCK', { productId: item.productId, optionId: item.optionId, quantity: item.quantity });
  }
}

const pgOrderId = (orderNo: number, seq: number) => `${orderNo}-${String(seq).padStart(2, '0')}`;

async function insertAttempt(
  db: Db,
  payment: PaymentRow,
  seq: number,
  option: PaymentOption,
  returnUrl: string,
  testPayment: boolean,
  now: number,
): Promise<AttemptRow> {
  const attempt: AttemptRow = {
    id: newId('att', now),
    storeId: payment.storeId,
    paymentId: payment.id,
    seq,
    pg: option.pg,
    method: option.method,
    provider: option.provider ?? null,
    pgOrderId: pgOrderId(payment.orderNo, seq),
    pgPaymentKey: null,
    credentialId: null,
    windowParams: null,
    pgTransactionId: null,
    approvedMethod: null,
    approvedAmount: null,
    status: 'READY',
    returnUrl,
    failure: null,
    testPayment,
    createdAt: now,
    updatedAt: now,
    approvedAt: null,
  };
  await insertRow(db, paymentAttempts, attempt);
  if (payment.pg !== option.pg || payment.method !== option.method) await updateById(db, payments, payment.id, { pg: option.pg, method: option.method });
  return attempt;
}

/**
 * Prepares the gateway window of a new attempt (outside any transaction: live gateways are remote). A
 * window that cannot be prepared ends the attempt with `optionUnavailable` and answers 503; the payment
 * stays open for another option.
 */
async function openWindow(services: Services, gateway: Gateway, payment: PaymentRow, attempt: AttemptRow, sheet: SheetRow) {
  try {
    const prepared = await gateway.prepareWindow({
      paymentId: payment.id,
      attemptId: attempt.id,
      pgOrderId: attempt.pgOrderId,
      amount: payment.amounts.totalAmount,
      orderName: orderName(sheet),
      method: attempt.method as PaymentMethod,
      provider: (attempt.provider ?? undefined) as EasyPayProvider | undefined,
      // The gateway's window comes back to us first: we confirm, then send the buyer on to the storefront.
      returnUrl: `${services.config.origin}/pay/${payment.id}/return?attemptId=${attempt.id}`,
    });
    await updateById(services.db, paymentAttempts, attempt.id, {
      pgPaymentKey: prepared.pgPaymentKey ?? null,
      credentialId: prepared.credentialId,
      windowParams: prepared.client ?? null,
      updatedAt: services.clock.now(),
    });
    return prepared.windowUrl ?? `${services.config.origin}/pay/${payment.id}`;
  } catch (error) {
    const err = error instanceof ApiError ? error : new ApiError(503, 'PAYMENT_PROVIDER_UNAVAILABLE', { optionUnavailable: false });
    const now = services.clock.now();
    const f = failure(err.code, err.message, Boolean(err.details?.optionUnavailable), now);
    await transaction(services.db, async () => {
      await updateById(services.db, paymentAttempts, attempt.id, { status: 'WINDOW_ERROR', failure: f, updatedAt: now });
      await updateById(services.db, payments, payment.id, { lastFailure: f, updatedAt: now });
    });
    throw new ApiError(err.status, err.code, { ...err.details, paymentId: payment.id, attemptId: attempt.id }, err.fieldErrors);
  }
}

/**
 * Errors of opening a window with a chosen option: the option (`resolveOption`), its cash receipt, the
 * return address, and the gateway preparing the window (`openWindow`).
 */
const WINDOW_ERRORS = {
  400: ['CASH_RECEIPT_NOT_AVAILABLE', 'RETURN_URL_NOT_ALLOWED'],
  409: ['PAYMENT_NOT_CONFIGURED', 'PAYMENT_OPTION_UNAVAILABLE'],
  503: ['PAYMENT_PROVIDER_UNAVAILABLE'],
};

/** Errors of `startPayment`; an order made at once (nothing to pay) takes the stock then (`placeOrder`). */
export const START_PAYMENT_ERRORS = mergeErrors(OPEN_SHEET_ERRORS, DISCOUNT_ERRORS, IDEMPOTENCY_ERRORS, WINDOW_ERRORS, {
  400: ['SHIPPING_ADDRESS_REQUIRED', 'STAY_INVALID'],
  403: ['GUEST_CHECKOUT_DISABLED'],
  409: ['INSUFFICIENT_STOCK', 'CHECKOUT_STALE', 'DATES_UNAVAILABLE'],
  503: ['ORDER_NO_EXHAUSTED'],
});

/** `POST /checkout/{checkoutId}/payment` (spec 02 §2.4). */
export async function startPayment(ctx: Ctx<PaymentStartInput, unknown, { checkoutId: string }>) {
  const { services } = ctx;
  const { sheet, customer } = await buyerSheet(ctx, ctx.params.checkoutId);
  return idempotent(ctx, `checkout:${sheet.id}`, async () => {
    const body = ctx.body;
    await assertGuestAllowed(ctx.db, sheet.storeId, customer);
    if (customer && body.guest) throw validationFailed([{ field: 'guest', code: 'NOT_APPLICABLE', message: '회원 주문에는 guest를 보내지 않습니다.' }]);
    if (!customer && !body.guest) throw validationFailed([{ field: 'guest', code: 'REQUIRED', message: '비회원 주문에는 주문자 정보(guest)가 필요합니다.' }]);
    if (sheet.requiresShipping && !body.shippingAddress) throw fail(400, 'SHIPPING_ADDRESS_REQUIRED');
    if (!sheet.requiresShipping && body.shippingAddress)
      throw validationFailed([{ field: 'shippingAddress', code: 'NOT_APPLICABLE', message: '배송이 필요 없는 주문입니다. shippingAddress를 보내지 마세요.' }]);
    await assertStillOrderable(ctx.db, sheet);
    const zipCode = body.shippingAddress?.zipCode ?? null;
    const customerId = customer?.id ?? null;
    const toPay = (await priceWithDiscounts(ctx.db, sheet, customerId, body, zipCode, ctx.now)).priced.amounts.totalAmount;
    const paid = toPay > 0;
    const audience = await audienceOf(ctx, sheet.storeId);
    let option: PaymentOption | null = null;
    if (paid) {
      if (!body.option) throw validationFailed([{ field: 'option', code: 'REQUIRED', message: '결제 수단(option)이 필요합니다.' }]);
      if (!body.returnUrl) throw validationFailed([{ field: 'returnUrl', code: 'REQUIRED', message: '결제 후 돌아올 주소(returnUrl)가 필요합니다.' }]);
      option = await resolveOption(services, sheet.storeId, body.option, audience);
      if (body.cashReceipt) assertCashReceiptAllowed(option.method, toPay);
    } else {
      if (body.option) throw validationFailed([{ field: 'option', code: 'NOT_APPLICABLE', message: '결제할 금액이 없으면 option을 보내지 않습니다.' }]);
      if (body.cashReceipt) assertCashReceiptAllowed(null, 0);
    }
    const gateway = paid ? await gatewayFor(services, sheet.storeId, option!.pg) : null;
    const testPayment = gateway ? gateway.sandbox : (await checkoutMode(services, sheet.storeId, audience)).mode === 'TEST';
    if (paid) await assertReturnUrl(services, sheet.storeId, body.returnUrl!, testPayment);
    const guestPasswordHash = body.guest ? await hashPassword(body.guest.orderPassword) : null;

    const { payment, attempt } = await transaction(services.db, async () => {
      const now = services.clock.now();
      const fresh = await loadSheet(ctx.db, sheet.id);
      assertSheetOpen(fresh, now);
      // Checked again where they are taken: a coupon or points spent meanwhile refuse here.
      const {
        coupons,
        priced: { amounts },
      } = await priceWithDiscounts(ctx.db, fresh, customerId, body, zipCode, now);
      if (amounts.totalAmount > 0 !== paid) throw fail(409, 'CHECKOUT_STALE', { reason: 'AMOUNT_CHANGED' });
      const payment: PaymentRow = {
        id: newId('pay', now),
        storeId: sheet.storeId,
        checkoutId: sheet.id,
        customerId: customer?.id ?? null,
        orderNo: await allocateOrderNo(ctx.db, sheet.storeId, now),
        status: 'OPEN',
        pg: option?.pg ?? null,
        method: option?.method ?? 'POINT',
        pgTransactionId: null,
        amounts,
        shippingAddress: body.shippingAddress ?? null,
        guest: body.guest ? { name: body.guest.name, phone: body.guest.phone, email: body.guest.email } : null,
        guestPasswordHash,
        testPayment,
        orderId: null,
        coupons: [],
        holdsSettledAt: coupons.lines.length === 0 && amounts.pointAmount === 0 ? now : null,
        lastFailure: null,
        buyerName: (body.guest?.name ?? customer?.name ?? null)?.toLowerCase() ?? null,
        createdAt: now,
        expiresAt: now + PAYMENT_TTL_MS,
        updatedAt: now,
      };
      await insertRow(ctx.db, payments, payment);
      payment.coupons = await holdDiscounts(ctx.db, now, payment, coupons);
      if (payment.coupons.length) await updateById(ctx.db, payments, payment.id, { coupons: payment.coupons });
      if (zipCode) await updateById(ctx.db, checkoutSheets, sheet.id, { zipCode });
      if (body.cashReceipt) await writeCashReceipt(services, payment.id, sheet.storeId, now, body.cashReceipt);
      if (!paid) {
        // Nothing to charge: the order is made now, without a window (spec 02 §2.4 `completed`).
        const orderId = await placeOrder(services, now, payment, fresh, customer, {
          pg: null,
          method: 'POINT',
          approvedMethod: 'POINT',
          provider: null,
          amount: 0,
        });
        return { payment: { ...payment, status: 'COMPLETED' as const, orderId }, attempt: null };
      }
      return { payment, attempt: await insertAttempt(ctx.db, payment, 1, option!, body.returnUrl!, testPayment, now) };
    });
    const payUrl = attempt ? await openWindow(services, gateway!, payment, attempt, sheet) : null;
    return reply(201, presentPaymentStart(payment, attempt, option, payUrl));
  });
}

/** The payment a buyer acts on: same store header, same member (guest payments are reached by their id). */
async function buyerPayment(ctx: Ctx<unknown, unknown, { paymentId: string }>) {
  const payment = await loadPayment(ctx.db, ctx.params.paymentId);
  await assertBuyerStore(ctx, payment.storeId, 'PAYMENT_NOT_FOUND');
  const customer = await buyerOf(ctx, payment.storeId);
  if (payment.customerId !== null && customer?.id !== payment.customerId) throw fail(404, 'PAYMENT_NOT_FOUND');
  return payment;
}

/** Whether another window may open on the payment (spec 02 §3, §7). */
async function assertRetryable(db: Db, payment: PaymentRow, now: number) {
  if (payment.amounts.totalAmount === 0) throw fail(409, 'ALREADY_PROCESSED', { orderId: payment.orderId });
  if (payment.status === 'COMPLETED' || payment.status === 'CONFIRMING')
    throw fail(409, 'PAYMENT_IN_PROGRESS', { status: payment.status, orderId: payment.orderId });
  if (payment.status === 'FAILED') throw fail(409, 'PAYMENT_ENDED', { lastFailure: payment.lastFailure });
  if (now >= payment.expiresAt) throw fail(409, 'PAYMENT_EXPIRED', { expiresAt: isoAt(payment.expiresAt) });
  if ((await attemptsOf(db, payment.id)).some((a) => a.status === 'CONFIRMING' || a.status === 'APPROVED'))
    throw fail(409, 'PAYMENT_IN_PROGRESS', { status: 'CONFIRMING' });
}

/** Errors of `newAttempt`: the payment the buyer names, whether it may take another window, and the window. */
export const NEW_ATTEMPT_ERRORS = mergeErrors(BUYER_TOKEN_ERRORS, IDEMPOTENCY_ERRORS, WINDOW_ERRORS, {
  404: ['PAYMENT_NOT_FOUND'],
  409: ['ALREADY_PROCESSED', 'PAYMENT_IN_PROGRESS', 'PAYMENT_ENDED', 'PAYMENT_EXPIRED'],
});

/** `POST /payments/{paymentId}/attempts`: a new window on the same payment; omitted `cashReceipt` keeps the first request. */
export async function newAttempt(
  ctx: Ctx<
    { option: PaymentOptionRef; returnUrl: string; cashReceipt?: { type: 'INCOME_DEDUCTION' | 'EXPENSE_PROOF'; digits: string } },
    unknown,
    { paymentId: string }
  >,
) {
  const { services } = ctx;
  const payment = await buyerPayment(ctx);
  return idempotent(ctx, `payment:${payment.id}`, async () => {
    await assertRetryable(ctx.db, payment, ctx.now);
    const option = await resolveOption(services, payment.storeId, ctx.body.option, await audienceOf(ctx, payment.storeId));
    if (ctx.body.cashReceipt) assertCashReceiptAllowed(option.method, payment.amounts.totalAmount);
    const gateway = await gatewayFor(services, payment.storeId, option.pg);
    const testPayment = gateway.sandbox;
    await assertReturnUrl(services, payment.storeId, ctx.body.returnUrl, testPayment);
    const attempt = await transaction(services.db, async () => {
      const now = services.clock.now();
      const fresh = await loadPayment(ctx.db, payment.id);
      await assertRetryable(ctx.db, fresh, now);
      const seq = ((await lastAttemptOf(ctx.db, payment.id))?.seq ?? 0) + 1;
      if (seq > 99) throw fail(409, 'PAYMENT_ENDED', { reason: 'TOO_MANY_ATTEMPTS' });
      if (ctx.body.cashReceipt) await writeCashReceipt(services, payment.id, payment.storeId, now, ctx.body.cashReceipt);
      if (testPayment !== fresh.testPayment) await updateById(ctx.db, payments, payment.id, { testPayment, updatedAt: now });
      return insertAttempt(ctx.db, fresh, seq, option, ctx.body.returnUrl, testPayment, now);
    });
    const fresh = await loadPayment(ctx.db, payment.id);
    const payUrl = await openWindow(services, gateway, fresh, attempt, await loadSheet(ctx.db, payment.checkoutId));
    await closeOlderWindows(services, payment.id, attempt.id);
    return reply(201, presentPaymentStart(fresh, attempt, option, payUrl));
  });
}

/**
 * A new window replaces the buyer's older open ones: each is closed at its gateway where the gateway
 * allows it (and then ends `CANCELED`, `WINDOW_SUPERSEDED`); where it does not, the old window stays open
 * at the gateway and a late approval of it is settled like any second approval.
 */
async function closeOlderWindows(services: Services, paymentId: string, newAttemptId: string) {
  const older = (await attemptsOf(services.db, paymentId)).filter((a) => a.id !== newAttemptId && a.status === 'READY' && a.pgPaymentKey);
  for (const attempt of older) {
    const gateway = await gatewayFor(services, attempt.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
    if (!gateway.expireWindow) continue;
    const outcome = await gateway.expireWindow({ pgPaymentKey: attempt.pgPaymentKey!, pgOrderId: attempt.pgOrderId }).catch(() => 'ALREADY_DECIDED' as const);
    if (outcome !== 'EXPIRED') continue;
    const now = services.clock.now();
    await services.db
      .update(paymentAttempts)
      .set({ status: 'CANCELED', failure: failure('WINDOW_SUPERSEDED', '새 결제창이 열려 이 결제창을 닫았습니다.', false, now), updatedAt: now })
      .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, 'READY')))
      .run();
  }
}
