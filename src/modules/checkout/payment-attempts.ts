import { findSite } from '../storefront/service.js';
import { isPreviewAddress } from '../storefront/serving.js';
import { connectedOrigins } from '../storefront/domains.js';
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { storeSettings } from '../stores/service.js';
import { recordPurchase } from '../analytics/ingest.js';
import { claimEachDue, claimNextDue } from '../../db/claim.js';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { mergeErrors } from '../../server/contract.js';
import { ApiError, fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { reply, type Ctx } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { hashPassword } from '../accounts/password.js';
import { findProduct, variantsOf } from '../catalog/service.js';
import { recordSale } from '../catalog/stock.js';
import { customers as customersTable } from '../customers/schema.js';
import type { Customer } from '../customers/service.js';
import {
  checkoutMode, gatewayFor, optionKey, paymentDomains, paymentOptions, sandboxDecide,
  type ConfirmResult, type EasyPayProvider, type Gateway, type PaymentMethod, type PaymentOption, type Pg, type SandboxOutcome,
} from '../payments/gateway.js';
import { sealSecrets } from '../payments/crypto.js';
import { cashReceipts } from '../orders/schema.js';
import { allocateOrderNo, cashReceiptOf, createOrder } from '../orders/service.js';
import { IDEMPOTENCY_ERRORS, idempotent } from './idempotency.js';
import { insertRow, updateById } from './statements.js';
import type { PaymentStartInput } from './inputs.js';
import { countPayment, countRefund } from '../reports/ledger.js';
import { DISCOUNT_ERRORS, holdDiscounts, linkDiscountsToOrder, priceWithDiscounts, releaseDiscounts } from './discounts.js';
import { amountsView, deliveryGroupOf, priceSheet } from './pricing.js';
import { paymentAttempts, paymentRefunds, payments, checkoutSheets, type AttemptStatus, type Failure, type PaymentOptionRef } from './schema.js';
import {
  assertBuyerStore, assertGuestAllowed, assertSheetOpen, BUYER_TOKEN_ERRORS, buyerOf, buyerSheet, loadSheet,
  OPEN_SHEET_ERRORS, paymentOptionView, presentOption, presentOptions, removeOrderedCartLines, type SheetRow,
} from './service.js';

defineMessages({
  PAYMENT_NOT_FOUND: '결제를 찾을 수 없습니다.',
  PAYMENT_NOT_CONFIGURED: '이 상점은 아직 결제를 받을 수 없습니다.',
  PAYMENT_OPTION_UNAVAILABLE: '사용할 수 없는 결제 수단입니다. 다른 결제 수단을 고르세요.',
  RETURN_URL_NOT_ALLOWED: '허용되지 않은 결제 복귀 주소입니다. https 주소이고 상점의 결제 도메인이어야 합니다.',
  SHIPPING_ADDRESS_REQUIRED: '배송지가 필요합니다.',
  PAYMENT_EXPIRED: '결제 유효 시간(10분)이 지났습니다. 주문서에서 다시 시작하세요.',
  PAYMENT_IN_PROGRESS: '이미 승인되었거나 결과를 확인 중인 결제입니다.',
  PAYMENT_ENDED: '이미 끝난 결제입니다. 주문서에서 다시 시작하세요.',
  PAYMENT_WINDOW_NOT_OPEN: '열려 있는 결제창이 없습니다.',
  ALREADY_PROCESSED: '이미 처리된 결제입니다.',
  CASH_RECEIPT_NOT_AVAILABLE: '현금영수증은 계좌이체·가상계좌·간편결제에서만, 결제 금액이 있을 때만 신청할 수 있습니다.',
});

/** Validity of a payment (spec 02 §8). */
export const PAYMENT_TTL_MS = 10 * 60_000;
/** Final methods that issue a cash receipt (spec 01 §3.4 "not applicable" otherwise). */
const CASH_METHODS = new Set(['BANK_TRANSFER', 'VIRTUAL_ACCOUNT']);
/** Requested methods a cash receipt may be asked for: easy pay may end up funded by a bank account. */
const CASH_REQUEST_METHODS = new Set(['BANK_TRANSFER', 'VIRTUAL_ACCOUNT', 'EASY_PAY']);
const ENDED_ATTEMPTS = new Set<AttemptStatus>(['REFUSED', 'CANCELED', 'WINDOW_ERROR', 'FAILED', 'AUTO_CANCELED']);

export type PaymentRow = typeof payments.$inferSelect;
export type AttemptRow = typeof paymentAttempts.$inferSelect;

const q = preparedFor((db) => ({
  payment: db.select().from(payments).where(eq(payments.id, sql.placeholder('id'))).prepare(),
  attempt: db.select().from(paymentAttempts).where(eq(paymentAttempts.id, sql.placeholder('id'))).prepare(),
  attemptsOf: db.select().from(paymentAttempts).where(eq(paymentAttempts.paymentId, sql.placeholder('paymentId'))).orderBy(paymentAttempts.seq).prepare(),
  customer: db.select().from(customersTable).where(eq(customersTable.id, sql.placeholder('id'))).prepare(),
  lastAttempt: db.select().from(paymentAttempts).where(eq(paymentAttempts.paymentId, sql.placeholder('paymentId'))).orderBy(desc(paymentAttempts.seq)).limit(1).prepare(),
}));

export const findPayment = (db: Db, id: string) => q(db).payment.get({ id });
export const attemptsOf = (db: Db, paymentId: string) => q(db).attemptsOf.all({ paymentId });

async function loadPayment(db: Db, id: string): Promise<PaymentRow> {
  const payment = await findPayment(db, id);
  if (!payment) throw fail(404, 'PAYMENT_NOT_FOUND');
  return payment;
}

const failure = (code: string, message: string, optionUnavailable: boolean, at: number): Failure => ({ code, message, optionUnavailable, at });

/** Why an attempt, a refund or (its last one) a payment failed. */
export const failureView = z.object({
  code: z.string().describe("The gateway's or the service's reason code, e.g. REJECT_CARD_PAYMENT, AMOUNT_MISMATCH, WINDOW_SUPERSEDED."),
  message: z.string(),
  optionUnavailable: z.boolean().describe("The store's gateway set-up is at fault; the buyer cannot fix it (another option may work)."),
  at: instant,
});
export const presentFailure = (f: Failure | null) => f && { code: f.code, message: f.message, optionUnavailable: f.optionUnavailable, at: isoAt(f.at) };
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
  const site = await findSite(services.db, storeId);
  if (!testPayment && site && (await isPreviewAddress(services, site, url))) throw fail(400, 'RETURN_URL_NOT_ALLOWED', { reason: 'PREVIEW', returnUrl: value });
  // Loopback: localhost and its names (svc dev's sites are at `{slug}.localhost`), 127.0.0.1.
  const loopback = url.hostname === 'localhost' || url.hostname.endsWith('.localhost') || url.hostname === '127.0.0.1';
  if (testPayment && loopback && (url.protocol === 'http:' || url.protocol === 'https:')) return;
  if (url.protocol !== 'https:') throw fail(400, 'RETURN_URL_NOT_ALLOWED', { reason: 'NOT_HTTPS', returnUrl: value });
  // Registered payment domains are joined by the store's connected custom domains (spec 02 §4.2); none registered: any https.
  const registered = await paymentDomains(services, storeId);
  const domains = registered.length ? [...registered, ...await connectedOrigins(services.db, storeId)] : registered;
  if (domains.length && !domains.some((d) => d === url.origin || d === url.hostname)) {
    throw fail(400, 'RETURN_URL_NOT_ALLOWED', { reason: 'NOT_PAYMENT_DOMAIN', returnUrl: value, paymentDomains: domains });
  }
}

/** The requested option among the enabled ones (409 PAYMENT_NOT_CONFIGURED / PAYMENT_OPTION_UNAVAILABLE). */
async function resolveOption(services: Services, storeId: string, input: PaymentOptionRef): Promise<PaymentOption> {
  const options = await paymentOptions(services, storeId);
  if (options.length === 0) throw fail(409, 'PAYMENT_NOT_CONFIGURED', { reason: (await checkoutMode(services, storeId)).reason ?? 'NO_PROVIDER' });
  const key = optionKey(input as Parameters<typeof optionKey>[0]);
  const option = options.find((o) => o.key === key);
  if (!option) throw fail(409, 'PAYMENT_OPTION_UNAVAILABLE', { option: input, paymentOptions: await presentOptions(services, storeId) });
  return option;
}

function assertCashReceiptAllowed(method: string | null, totalAmount: number) {
  if (totalAmount === 0 || method === null || !CASH_REQUEST_METHODS.has(method)) throw fail(400, 'CASH_RECEIPT_NOT_AVAILABLE', { method, totalAmount });
}

async function writeCashReceipt(services: Services, paymentId: string, storeId: string, now: number, receipt: { type: 'INCOME_DEDUCTION' | 'EXPENSE_PROOF'; digits: string }) {
  const row = {
    paymentId,
    storeId,
    type: receipt.type,
    identitySealed: sealSecrets(services, paymentId, { identityNumber: receipt.digits }),
    identityMasked: `${receipt.digits.slice(0, 3)}${'*'.repeat(Math.max(receipt.digits.length - 7, 1))}${receipt.digits.slice(-4)}`,
    status: 'REQUESTED' as const,
    receiptNo: null,
    attempts: 0,
    nextAttemptAt: null,
    failureCode: null,
    issuedAt: null,
    updatedAt: now,
  };
  await services.db.insert(cashReceipts).values(row).onConflictDoUpdate({ target: cashReceipts.paymentId, set: row }).run();
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
    if (product.typeChangedVersion !== item.typeVersion) throw fail(409, 'CHECKOUT_STALE', { productId: item.productId, reason: 'TYPE_CHANGED', fulfillmentType: product.fulfillment.type });
    const variant = product.inventoryMode === 'STANDARD' ? (await variantsOf(db, product.id)).find((v) => v.id === item.optionId) : undefined;
    if (variant && variant.stockQuantity < item.quantity) throw fail(409, 'INSUFFICIENT_STOCK', { productId: item.productId, optionId: item.optionId, quantity: item.quantity });
  }
}

const pgOrderId = (orderNo: number, seq: number) => `${orderNo}-${String(seq).padStart(2, '0')}`;

async function insertAttempt(db: Db, payment: PaymentRow, seq: number, option: PaymentOption, returnUrl: string, testPayment: boolean, now: number): Promise<AttemptRow> {
  const attempt: AttemptRow = {
    id: newId('att', now), storeId: payment.storeId, paymentId: payment.id, seq, pg: option.pg, method: option.method, provider: option.provider ?? null,
    pgOrderId: pgOrderId(payment.orderNo, seq), pgPaymentKey: null, credentialId: null, windowParams: null, pgTransactionId: null, approvedMethod: null, approvedAmount: null,
    status: 'READY', returnUrl, failure: null, testPayment, createdAt: now, updatedAt: now, approvedAt: null,
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
      paymentId: payment.id, attemptId: attempt.id, pgOrderId: attempt.pgOrderId, amount: payment.amounts.totalAmount, orderName: orderName(sheet),
      method: attempt.method as PaymentMethod, provider: (attempt.provider ?? undefined) as EasyPayProvider | undefined,
      // The gateway's window comes back to us first: we confirm, then send the buyer on to the storefront.
      returnUrl: `${services.config.origin}/pay/${payment.id}/return?attemptId=${attempt.id}`,
    });
    await updateById(services.db, paymentAttempts, attempt.id, {
      pgPaymentKey: prepared.pgPaymentKey ?? null, credentialId: prepared.credentialId, windowParams: prepared.client ?? null, updatedAt: services.clock.now(),
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

/** The answer of a payment start or a new attempt (spec 02 §2.4 "start response"). */
export const paymentStartView = z.object({
  status: z.enum(['ready', 'completed']).describe('`completed`: nothing was left to pay and the order is made; no window opens.'),
  paymentId: z.string(),
  payUrl: z.string().nullable().describe('The window to send the buyer to; null when `completed` or when a live gateway opens its window in the browser SDK.'),
  attemptId: z.string().nullable(),
  option: paymentOptionView.nullable(),
  amounts: amountsView,
  orderId: z.string().nullable(),
  testPayment: z.boolean(),
  expiresAt: instant.describe('The payment may be retried with other options until then (10 minutes).'),
});

function presentPaymentStart(payment: PaymentRow, attempt: AttemptRow | null, option: PaymentOption | null, payUrl: string | null) {
  return {
    status: payment.status === 'COMPLETED' ? 'completed' : 'ready',
    paymentId: payment.id,
    payUrl,
    attemptId: attempt?.id ?? null,
    option: option && presentOption(option),
    amounts: payment.amounts,
    orderId: payment.orderId,
    testPayment: payment.testPayment,
    expiresAt: isoAt(payment.expiresAt),
  };
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
    if (!sheet.requiresShipping && body.shippingAddress) throw validationFailed([{ field: 'shippingAddress', code: 'NOT_APPLICABLE', message: '배송이 필요 없는 주문입니다. shippingAddress를 보내지 마세요.' }]);
    await assertStillOrderable(ctx.db, sheet);
    const zipCode = body.shippingAddress?.zipCode ?? null;
    const customerId = customer?.id ?? null;
    const toPay = (await priceWithDiscounts(ctx.db, sheet, customerId, body, zipCode, ctx.now)).priced.amounts.totalAmount;
    const paid = toPay > 0;
    let option: PaymentOption | null = null;
    if (paid) {
      if (!body.option) throw validationFailed([{ field: 'option', code: 'REQUIRED', message: '결제 수단(option)이 필요합니다.' }]);
      if (!body.returnUrl) throw validationFailed([{ field: 'returnUrl', code: 'REQUIRED', message: '결제 후 돌아올 주소(returnUrl)가 필요합니다.' }]);
      option = await resolveOption(services, sheet.storeId, body.option);
      if (body.cashReceipt) assertCashReceiptAllowed(option.method, toPay);
    } else {
      if (body.option) throw validationFailed([{ field: 'option', code: 'NOT_APPLICABLE', message: '결제할 금액이 없으면 option을 보내지 않습니다.' }]);
      if (body.cashReceipt) assertCashReceiptAllowed(null, 0);
    }
    const gateway = paid ? await gatewayFor(services, sheet.storeId, option!.pg) : null;
    const testPayment = gateway ? gateway.sandbox : (await checkoutMode(services, sheet.storeId)).mode === 'TEST';
    if (paid) await assertReturnUrl(services, sheet.storeId, body.returnUrl!, testPayment);
    const guestPasswordHash = body.guest ? await hashPassword(body.guest.orderPassword) : null;

    const { payment, attempt } = await transaction(services.db, async () => {
      const now = services.clock.now();
      const fresh = await loadSheet(ctx.db, sheet.id);
      assertSheetOpen(fresh, now);
      // Checked again where they are taken: a coupon or points spent meanwhile refuse here.
      const { coupons, priced: { amounts } } = await priceWithDiscounts(ctx.db, fresh, customerId, body, zipCode, now);
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
        const orderId = await placeOrder(services, now, payment, fresh, customer, { pg: null, method: 'POINT', approvedMethod: 'POINT', provider: null, amount: 0 });
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
  if (payment.status === 'COMPLETED' || payment.status === 'CONFIRMING') throw fail(409, 'PAYMENT_IN_PROGRESS', { status: payment.status, orderId: payment.orderId });
  if (payment.status === 'FAILED') throw fail(409, 'PAYMENT_ENDED', { lastFailure: payment.lastFailure });
  if (now >= payment.expiresAt) throw fail(409, 'PAYMENT_EXPIRED', { expiresAt: isoAt(payment.expiresAt) });
  if ((await attemptsOf(db, payment.id)).some((a) => a.status === 'CONFIRMING' || a.status === 'APPROVED')) throw fail(409, 'PAYMENT_IN_PROGRESS', { status: 'CONFIRMING' });
}

/** Errors of `newAttempt`: the payment the buyer names, whether it may take another window, and the window. */
export const NEW_ATTEMPT_ERRORS = mergeErrors(BUYER_TOKEN_ERRORS, IDEMPOTENCY_ERRORS, WINDOW_ERRORS, {
  404: ['PAYMENT_NOT_FOUND'],
  409: ['ALREADY_PROCESSED', 'PAYMENT_IN_PROGRESS', 'PAYMENT_ENDED', 'PAYMENT_EXPIRED'],
});

/** `POST /payments/{paymentId}/attempts`: a new window on the same payment; omitted `cashReceipt` keeps the first request. */
export async function newAttempt(ctx: Ctx<{ option: PaymentOptionRef; returnUrl: string; cashReceipt?: { type: 'INCOME_DEDUCTION' | 'EXPENSE_PROOF'; digits: string } }, unknown, { paymentId: string }>) {
  const { services } = ctx;
  const payment = await buyerPayment(ctx);
  return idempotent(ctx, `payment:${payment.id}`, async () => {
    await assertRetryable(ctx.db, payment, ctx.now);
    const option = await resolveOption(services, payment.storeId, ctx.body.option);
    if (ctx.body.cashReceipt) assertCashReceiptAllowed(option.method, payment.amounts.totalAmount);
    const gateway = await gatewayFor(services, payment.storeId, option.pg);
    const testPayment = gateway.sandbox;
    await assertReturnUrl(services, payment.storeId, ctx.body.returnUrl, testPayment);
    const attempt = await transaction(services.db, async () => {
      const now = services.clock.now();
      const fresh = await loadPayment(ctx.db, payment.id);
      await assertRetryable(ctx.db, fresh, now);
      const seq = ((await q(ctx.db).lastAttempt.get({ paymentId: payment.id }))?.seq ?? 0) + 1;
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
    await services.db.update(paymentAttempts)
      .set({ status: 'CANCELED', failure: failure('WINDOW_SUPERSEDED', '새 결제창이 열려 이 결제창을 닫았습니다.', false, now), updatedAt: now })
      .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, 'READY')))
      .run();
  }
}

// ---------------------------------------------------------------------------------------------------
// Approval → order

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
async function placeOrder(services: Services, now: number, payment: PaymentRow, sheet: SheetRow, customer: Pick<Customer, 'name' | 'email'> | null, approval: Approval, paymentFields: Partial<PaymentRow> = {}): Promise<string> {
  const { db } = services;
  for (const item of sheet.items) {
    await recordSale(db, now, { storeId: sheet.storeId, productId: item.productId, variantId: item.optionId, quantity: item.quantity, stay: item.stay && { checkIn: item.stay.checkIn, checkOut: item.stay.checkOut } });
  }
  const { itemDeliveryFees } = priceSheet(sheet.items, await storeSettings(db, sheet.storeId), payment.shippingAddress?.zipCode ?? null, payment.amounts);
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
    items: await Promise.all(sheet.items.map(async (item, i) => ({
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
      pointEarnRateBp: (await findProduct(db, item.productId))?.pointEarnRateBp ?? null,
      stay: item.stay,
      fulfillment: item.fulfillment,
      refundPolicy: item.refundPolicy,
    }))),
  });
  await updateById(db, payments, payment.id, { ...paymentFields, status: 'COMPLETED', orderId: order.id, updatedAt: now });
  await linkDiscountsToOrder(db, now, payment.id, order.id);
  await recordPurchase(db, order, sheet.items, now);
  await updateById(db, checkoutSheets, sheet.id, { status: 'COMPLETED', orderId: order.id });
  await removeOrderedCartLines(db, sheet);
  if ((await cashReceiptOf(db, payment.id))?.status === 'REQUESTED') {
    const cash = CASH_METHODS.has(approval.approvedMethod);
    await updateById(db, cashReceipts, payment.id, { status: cash ? 'ISSUE_PENDING' : 'NOT_APPLICABLE', nextAttemptAt: cash ? now : null, updatedAt: now }, 'paymentId');
  }
  return order.id;
}

const customerOf = async (db: Db, id: string | null) => (id ? (await q(db).customer.get({ id })) ?? null : null);

const CANCEL_MESSAGES: Record<string, string> = {
  DUPLICATE_APPROVAL: '같은 주문서가 이미 결제되어 이 결제는 자동 취소되었습니다.',
  AMOUNT_MISMATCH: '결제 금액이 주문 금액과 달라 자동 취소되었습니다.',
  OUT_OF_STOCK: '결제 중 재고가 소진되어 자동 취소되었습니다.',
  PAYMENT_ENDED: '이미 끝난 결제라 자동 취소되었습니다.',
  PAYMENT_EXPIRED: '결제 유효 시간이 지난 뒤 승인되어 자동 취소되었습니다.',
};

type Settled = { kind: 'ORDER'; orderId: string } | { kind: 'CANCEL'; refundId: string; reason: string } | { kind: 'NOOP' };

/**
 * An approved attempt becomes the order — or is canceled automatically (spec 02 §3): a second approval for
 * the sheet, an amount differing from the sheet or the gateway, or stock gone during approval. One
 * transaction decides, so concurrent approvals can never both take the stock or both make an order.
 */
async function settleApproval(services: Services, attemptId: string, result: ConfirmResult): Promise<Settled> {
  return await transaction(services.db, async (): Promise<Settled> => {
    const { db } = services;
    const now = services.clock.now();
    const attempt = (await q(db).attempt.get({ id: attemptId }))!;
    if (attempt.status !== 'READY' && attempt.status !== 'CONFIRMING') return { kind: 'NOOP' };
    const payment = await loadPayment(db, attempt.paymentId);
    const sheet = await loadSheet(db, payment.checkoutId);
    const approval = { pgTransactionId: result.pgTransactionId, approvedAmount: result.approvedAmount, approvedMethod: result.approvedMethod, approvedAt: now, updatedAt: now };
    // The money was taken whatever happens next: an automatic cancel counts on both sides of the sales report.
    await countPayment(db, { storeId: attempt.storeId, at: now, pg: attempt.pg, method: result.approvedMethod ?? attempt.method, testPayment: attempt.testPayment, amount: result.approvedAmount });
    // The approving attempt names the payment's gateway, method and transaction (spec 01 §4.3 list items).
    const gatewayFields = { pg: attempt.pg, method: result.approvedMethod ?? attempt.method, pgTransactionId: result.pgTransactionId };

    let reason: string | null = null;
    if (payment.status === 'COMPLETED' || sheet.status === 'COMPLETED') reason = 'DUPLICATE_APPROVAL';
    else if (payment.status === 'FAILED') reason = 'PAYMENT_ENDED';
    // Approved in time but answered late (CONFIRMING) still counts; a window approved after the 10 minutes does not.
    else if (attempt.status === 'READY' && now >= payment.expiresAt) reason = 'PAYMENT_EXPIRED';
    else if (result.approvedAmount !== payment.amounts.totalAmount) reason = 'AMOUNT_MISMATCH';
    else if (priceSheet(sheet.items, await storeSettings(db, sheet.storeId), payment.shippingAddress?.zipCode ?? null, payment.amounts).amounts.totalAmount !== payment.amounts.totalAmount) reason = 'AMOUNT_MISMATCH';
    if (reason === null) {
      try {
        // A savepoint: stock taken for earlier items is given back when a later one is short.
        const orderId = await transaction(services.db, async () => placeOrder(services, now, payment, sheet, await customerOf(db, payment.customerId), {
          pg: attempt.pg, method: attempt.method, approvedMethod: result.approvedMethod ?? attempt.method, provider: attempt.provider, amount: result.approvedAmount,
        }, gatewayFields));
        await updateById(db, paymentAttempts, attempt.id, { ...approval, status: 'APPROVED' });
        return { kind: 'ORDER', orderId };
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
      id: refundId, storeId: payment.storeId, paymentId: payment.id, attemptId: attempt.id, amount: result.approvedAmount, pointRefundAmount: 0,
      reason, status: 'PROCESSING', failure: null, createdAt: now, completedAt: null,
    });
    return { kind: 'CANCEL', refundId, reason };
  });
}

/** How long a refund's gateway call holds it; a refusal or silence is tried again when that ends. */
const REFUND_RETRY_MS = 60_000;

/**
 * The claim of a PROCESSING refund for one gateway call, due from `firstTry` until its first call took a
 * lease (which is also when it is tried again).
 */
const refundClaim = (now: number, firstTry: SQL, where?: SQL) => ({
  due: sql`coalesce(${paymentRefunds.nextAttemptAt}, ${firstTry})`,
  where: and(eq(paymentRefunds.status, 'PROCESSING'), where),
  set: { nextAttemptAt: now + REFUND_RETRY_MS },
});

/**
 * Gives a refund's money back at the gateway (automatic cancels, seller cancels, claims); a refusal or
 * silence is retried by the refunds job. The refund is first taken for this call (of the request and the
 * refunds jobs of every process, one at a time), and the gateway is asked what it already canceled on the
 * attempt: beyond the refunds completed so far, that is this refund's money (an answer lost earlier), so a
 * cancel is never sent twice.
 */
export async function runRefund(services: Services, refundId: string) {
  const now = services.clock.now();
  // The request's own refund is due at once.
  const refund = await claimNextDue(services.db, paymentRefunds, now, refundClaim(now, sql`0`, eq(paymentRefunds.id, refundId)));
  if (refund) await refundAtGateway(services, refund);
}

async function refundAtGateway(services: Services, refund: typeof paymentRefunds.$inferSelect) {
  const { db } = services;
  const attempt = (await q(db).attempt.get({ id: refund.attemptId }))!;
  const gateway = await gatewayFor(services, refund.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
  const view = await gateway.lookup({ pgPaymentKey: attempt.pgPaymentKey!, pgOrderId: attempt.pgOrderId });
  const completed = (await db.select({ amount: paymentRefunds.amount }).from(paymentRefunds)
    .where(and(eq(paymentRefunds.attemptId, attempt.id), eq(paymentRefunds.status, 'COMPLETED'))).all()).reduce((n, r) => n + r.amount, 0);
  const result = view.canceledAmount >= completed + refund.amount
    ? { status: 'CANCELED' as const, canceledAmount: refund.amount }
    : await gateway.cancel({ pgTransactionId: attempt.pgTransactionId!, amount: refund.amount, reason: refund.reason });
  const now = services.clock.now();
  if (result.status === 'CANCELED') {
    await transaction(services.db, async () => {
      await db.update(paymentRefunds).set({ status: 'COMPLETED', completedAt: now, failure: null, heldReason: null, nextAttemptAt: null }).where(eq(paymentRefunds.id, refund.id)).run();
      await countRefund(db, { storeId: refund.storeId, at: now, pg: attempt.pg, method: attempt.approvedMethod ?? attempt.method, testPayment: attempt.testPayment, amount: refund.amount });
      if (attempt.status === 'APPROVED') await followCashReceipt(db, now, refund.paymentId);
    });
  }
  // Held until someone processes it again, which then takes it at once.
  else if (result.status === 'HELD') await db.update(paymentRefunds).set({ status: 'HELD', heldReason: result.failure?.message ?? 'REFUND_HELD', nextAttemptAt: null }).where(eq(paymentRefunds.id, refund.id)).run();
  else if (result.status === 'FAILED') await db.update(paymentRefunds).set({ failure: result.failure ? failure(result.failure.code, result.failure.message, result.failure.optionUnavailable, now) : null }).where(eq(paymentRefunds.id, refund.id)).run();
}

/**
 * Asks the gateway to approve an attempt the buyer authorised, then settles it: an order, an automatic
 * cancel, a refusal (the payment stays retryable), or CONFIRMING (the confirming job asks again).
 */
export async function confirmAttempt(services: Services, attemptId: string, outcome?: SandboxOutcome) {
  const { db } = services;
  const attempt = (await q(db).attempt.get({ id: attemptId }))!;
  const payment = await loadPayment(db, attempt.paymentId);
  const gateway = await gatewayFor(services, attempt.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
  const result = await gateway.confirm({
    pgPaymentKey: attempt.pgPaymentKey!, pgOrderId: attempt.pgOrderId, amount: payment.amounts.totalAmount,
    method: attempt.method as PaymentMethod, provider: (attempt.provider ?? undefined) as EasyPayProvider | undefined,
  });
  await applyGatewayResult(services, attempt, result, outcome);
}

async function applyGatewayResult(services: Services, attempt: AttemptRow, result: ConfirmResult, outcome?: SandboxOutcome) {
  const { db } = services;
  if (result.status === 'APPROVED') {
    const settled = await settleApproval(services, attempt.id, result);
    if (settled.kind === 'CANCEL') await runRefund(services, settled.refundId);
    return;
  }
  const now = services.clock.now();
  await transaction(services.db, async () => {
    if (result.status === 'CONFIRMING') {
      await db.update(paymentAttempts).set({ status: 'CONFIRMING', updatedAt: now }).where(eq(paymentAttempts.id, attempt.id)).run();
      await db.update(payments).set({ status: 'CONFIRMING', updatedAt: now }).where(and(eq(payments.id, attempt.paymentId), eq(payments.status, 'OPEN'))).run();
      return;
    }
    const f = failure(result.failure?.code ?? 'REFUSED', result.failure?.message ?? '결제가 거절되었습니다.', result.failure?.optionUnavailable ?? false, now);
    const status: AttemptStatus = outcome === 'CANCEL' || f.code === 'PAY_PROCESS_CANCELED' ? 'CANCELED' : outcome === 'WINDOW_ERROR' ? 'WINDOW_ERROR' : attempt.status === 'CONFIRMING' ? 'FAILED' : 'REFUSED';
    await db.update(paymentAttempts).set({ status, failure: f, updatedAt: now }).where(eq(paymentAttempts.id, attempt.id)).run();
    // A refusal does not end the payment (spec 02 §3): the buyer may try again until it expires.
    await db.update(payments).set({ status: sql`case when ${payments.status} = 'CONFIRMING' then 'OPEN' else ${payments.status} end`, lastFailure: f, updatedAt: now })
      .where(and(eq(payments.id, attempt.paymentId), inArray(payments.status, ['OPEN', 'CONFIRMING']))).run();
  });
}

/** The buyer's decision in the sandbox window (pay page buttons and the dev simulate helper). */
export async function decideSandbox(services: Services, paymentId: string, outcome: SandboxOutcome, options: { amount?: number } = {}) {
  const { db } = services;
  const payment = await loadPayment(db, paymentId);
  const now = services.clock.now();
  const open = (await attemptsOf(db, paymentId)).filter((a) => a.status === 'READY' && a.pgPaymentKey).at(-1);
  if (!open) {
    if (payment.status === 'COMPLETED' || payment.status === 'CONFIRMING') throw fail(409, 'PAYMENT_IN_PROGRESS', { status: payment.status, orderId: payment.orderId });
    throw fail(409, 'PAYMENT_WINDOW_NOT_OPEN');
  }
  if (payment.status === 'OPEN' && now >= payment.expiresAt) throw fail(409, 'PAYMENT_EXPIRED', { expiresAt: isoAt(payment.expiresAt) });
  await sandboxDecide(services, open.pgPaymentKey!, outcome, options);
  await confirmAttempt(services, open.id, outcome);
  const settled = await loadPayment(db, paymentId);
  const last = await q(db).lastAttempt.get({ paymentId });
  return { ...(await presentPaymentStatus(services, settled, last)), storefrontResult: await storefrontResult(services, settled, last) };
}

/**
 * The buyer back from a live gateway window (`/pay/{paymentId}/return`): a failure (`code`, `message`) ends
 * the attempt, success carries the gateway's payment key (pg_one gives it only now) and is confirmed.
 * Returns the storefront address to send the buyer to.
 */
export async function returnFromGateway(services: Services, paymentId: string, query: URLSearchParams): Promise<string> {
  const { db } = services;
  const attempt = await q(db).attempt.get({ id: query.get('attemptId') ?? '' });
  if (!attempt || attempt.paymentId !== paymentId) throw fail(404, 'PAYMENT_NOT_FOUND');
  if (attempt.status === 'READY') {
    const code = query.get('code');
    if (code) {
      await applyGatewayResult(services, attempt, { status: 'REFUSED', approvedAmount: 0, approvedMethod: null, pgTransactionId: null, failure: { code, message: query.get('message') ?? '', optionUnavailable: false } });
    } else {
      const key = query.get('paymentKey');
      if (!attempt.pgPaymentKey && key) await updateById(db, paymentAttempts, attempt.id, { pgPaymentKey: key, updatedAt: services.clock.now() });
      if (!attempt.pgPaymentKey && !key) throw validationFailed([{ field: 'paymentKey', code: 'REQUIRED', message: '게이트웨이가 결제 키를 돌려주지 않았습니다.' }]);
      await confirmAttempt(services, attempt.id);
    }
  }
  const url = new URL(attempt.returnUrl);
  for (const [k, v] of Object.entries(await storefrontResult(services, await loadPayment(db, paymentId)))) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  return url.toString();
}

// ---------------------------------------------------------------------------------------------------
// Reads

export function paymentResult(payment: PaymentRow, last: AttemptRow | undefined, now: number): 'COMPLETED' | 'FAILED' | 'EXPIRED' | 'PROCESSING' {
  if (payment.status === 'COMPLETED') return 'COMPLETED';
  if (payment.status === 'FAILED') return 'FAILED';
  if (payment.status === 'CONFIRMING') return 'PROCESSING';
  if (now >= payment.expiresAt) return 'EXPIRED';
  return last && ENDED_ATTEMPTS.has(last.status) ? 'FAILED' : 'PROCESSING';
}

export const paymentResultEnum = z.enum(['COMPLETED', 'FAILED', 'EXPIRED', 'PROCESSING']);

/** The payment status a storefront polls (spec 02 §2.4). */
export const paymentStatusView = z.object({
  paymentId: z.string(),
  result: paymentResultEnum.describe('Values may grow: treat an unknown one as PROCESSING and keep polling.'),
  status: z.enum(['OPEN', 'CONFIRMING', 'COMPLETED', 'FAILED', 'EXPIRED']).describe('OPEN: windows may still be opened; CONFIRMING: an approval awaits the gateway.'),
  orderId: z.string().nullable(),
  lastFailure: failureView.nullable(),
  amounts: amountsView,
  testPayment: z.boolean(),
  expiresAt: instant,
});

/** `GET /payments/{paymentId}` (no authentication): what a storefront polls after the window. */
export async function presentPaymentStatus(services: Services, payment: PaymentRow, last?: AttemptRow) {
  last ??= await q(services.db).lastAttempt.get({ paymentId: payment.id });
  const result = paymentResult(payment, last, services.clock.now());
  return {
    paymentId: payment.id,
    result,
    status: result === 'EXPIRED' ? 'EXPIRED' : payment.status,
    orderId: payment.orderId,
    lastFailure: presentFailure(payment.lastFailure),
    amounts: payment.amounts,
    testPayment: payment.testPayment,
    expiresAt: isoAt(payment.expiresAt),
  };
}

/** The payment result a storefront shows on its return page (spec 02 §2.4 "payment result seen by storefronts"). */
export const storefrontResultView = z.discriminatedUnion('status', [
  z.object({ status: z.literal('COMPLETED'), paymentId: z.string(), orderId: z.string() }),
  z.object({ status: z.literal('PROCESSING').describe('The result is being confirmed: never treat it as a failure.'), paymentId: z.string() }),
  z.object({ status: z.literal('CANCELED').describe('The buyer closed the window.'), paymentId: z.string() }),
  z.object({
    status: z.literal('FAILED'),
    paymentId: z.string(),
    code: z.string(),
    message: z.string(),
    optionUnavailable: z.literal(true).optional().describe("Present when the store's gateway set-up is at fault and the buyer cannot fix it."),
  }),
]);

/** The result a storefront reads on its return address (spec 02 §2.4 "payment result seen by storefronts"). */
export async function storefrontResult(services: Services, payment: PaymentRow, last?: AttemptRow) {
  last ??= await q(services.db).lastAttempt.get({ paymentId: payment.id });
  const view = await presentPaymentStatus(services, payment, last);
  switch (view.result) {
    case 'COMPLETED': return { status: 'COMPLETED', paymentId: payment.id, orderId: payment.orderId };
    case 'PROCESSING': return { status: 'PROCESSING', paymentId: payment.id };
    case 'EXPIRED': return { status: 'FAILED', paymentId: payment.id, code: 'PAYMENT_EXPIRED', message: '결제 유효 시간이 지났습니다.' };
    case 'FAILED':
      if (last?.status === 'CANCELED') return { status: 'CANCELED', paymentId: payment.id };
      return { status: 'FAILED', paymentId: payment.id, code: view.lastFailure?.code ?? 'FAILED', message: view.lastFailure?.message ?? '', ...(view.lastFailure?.optionUnavailable ? { optionUnavailable: true } : {}) };
  }
}

export { loadPayment };

// ---------------------------------------------------------------------------------------------------
// Jobs: durable follow-ups read from the tables.

/** Between two look-ups of one approval whose result the gateway has not given yet. */
const CONFIRM_RETRY_MS = 5_000;

/** Approvals whose result the gateway had not given: ask again (spec 01 §3.3 "confirming result"). */
export async function resolveConfirming(services: Services, now: number): Promise<number> {
  let handled = 0;
  // Each look is claimed by moving `updatedAt` to now: the next one, by whichever process, comes a retry period later.
  for await (const attempt of claimEachDue(services.db, paymentAttempts, now, {
    due: sql`${paymentAttempts.updatedAt} + ${CONFIRM_RETRY_MS}`,
    where: eq(paymentAttempts.status, 'CONFIRMING'),
    set: { updatedAt: now },
  })) {
    handled++;
    const gateway = await gatewayFor(services, attempt.storeId, attempt.pg as Pg, { credentialId: attempt.credentialId ?? undefined });
    const view = await gateway.lookup({ pgPaymentKey: attempt.pgPaymentKey!, pgOrderId: attempt.pgOrderId });
    if (view.status === 'APPROVED') {
      await applyGatewayResult(services, attempt, { status: 'APPROVED', approvedAmount: view.approvedAmount, approvedMethod: view.approvedMethod, pgTransactionId: view.pgTransactionId });
    } else if (view.status === 'REFUSED' || view.status === 'NOT_FOUND' || view.status === 'CANCELED') {
      await applyGatewayResult(services, attempt, { status: 'REFUSED', approvedAmount: 0, approvedMethod: null, pgTransactionId: null, failure: { code: `GATEWAY_${view.status}`, message: '결제가 승인되지 않았습니다.', optionUnavailable: false } });
    }
  }
  return handled;
}

/** Refunds the gateway has not finished yet (refused or unanswered): retried every minute, each by one process. */
export async function retryRefunds(services: Services, now: number): Promise<number> {
  let handled = 0;
  // A refund no call took yet is left to its request for a minute.
  for await (const refund of claimEachDue(services.db, paymentRefunds, now, refundClaim(now, sql`${paymentRefunds.createdAt} + ${REFUND_RETRY_MS}`))) {
    await refundAtGateway(services, refund);
    handled++;
  }
  return handled;
}

/** The cash a payment kept: its approved amount less the cash refunds the gateway completed. */
async function cashLeft(db: Db, payment: PaymentRow) {
  const refunded = (await db.select({ amount: paymentRefunds.amount }).from(paymentRefunds).innerJoin(paymentAttempts, eq(paymentAttempts.id, paymentRefunds.attemptId))
    .where(and(eq(paymentRefunds.paymentId, payment.id), eq(paymentRefunds.status, 'COMPLETED'), eq(paymentAttempts.status, 'APPROVED'))).all()).reduce((n, r) => n + r.amount, 0);
  return payment.amounts.totalAmount - refunded;
}

/**
 * A cash refund completed (spec 01 §3.4): an issued receipt is reissued for what is left, or canceled when
 * nothing is; one not issued yet is canceled when nothing is left.
 */
async function followCashReceipt(db: Db, now: number, paymentId: string) {
  const receipt = await cashReceiptOf(db, paymentId);
  if (!receipt || !['ISSUED', 'ISSUE_PENDING', 'REQUESTED'].includes(receipt.status)) return;
  const left = await cashLeft(db, (await findPayment(db, paymentId))!);
  if (left === 0) await db.update(cashReceipts).set({ status: 'ISSUE_CANCELED', nextAttemptAt: null, updatedAt: now }).where(eq(cashReceipts.paymentId, paymentId)).run();
  else if (receipt.status === 'ISSUED') await db.update(cashReceipts).set({ status: 'ISSUE_PENDING', nextAttemptAt: now, failureCode: null, updatedAt: now }).where(eq(cashReceipts.paymentId, paymentId)).run();
}

/** Sandbox cash receipts are issued at once; live issuance waits for a gateway receipt API (not in the adapters yet). */
export async function issueCashReceipts(services: Services, now: number): Promise<number> {
  let handled = 0;
  for await (const receipt of claimEachDue(services.db, cashReceipts, now, { key: [cashReceipts.paymentId], where: eq(cashReceipts.status, 'ISSUE_PENDING') })) {
    handled++;
    const payment = (await findPayment(services.db, receipt.paymentId))!;
    if (payment.testPayment) {
      // A reissue after a partial refund gets a number of its own.
      const receiptNo = receipt.receiptNo === null ? `SBX${payment.orderNo}` : `SBX${payment.orderNo}-${receipt.attempts + 1}`;
      await services.db.update(cashReceipts).set({ status: 'ISSUED', receiptNo, amount: await cashLeft(services.db, payment), issuedAt: now, attempts: receipt.attempts + 1, nextAttemptAt: null, updatedAt: now })
        .where(eq(cashReceipts.paymentId, receipt.paymentId)).run();
    } else {
      const attempts = receipt.attempts + 1;
      const failed = attempts >= 5;
      await services.db.update(cashReceipts).set({
        status: failed ? 'ISSUE_FAILED' : 'ISSUE_PENDING', attempts, nextAttemptAt: failed ? null : now + 60_000 * 2 ** attempts,
        failureCode: 'ISSUER_NOT_AVAILABLE', updatedAt: now,
      }).where(eq(cashReceipts.paymentId, receipt.paymentId)).run();
    }
  }
  return handled;
}
