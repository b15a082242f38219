// What a buyer and a storefront see of a payment: the start answer, its status, the result, failures.
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import type { PaymentOption } from '../payments/index.js';
import { lastAttemptOf, type AttemptRow, type PaymentRow } from './payment-records.js';
import { amountsView } from '../orders/index.js';
import type { AttemptStatus, Failure } from './schema.js';
import { paymentOptionView, presentOption } from './payment-options.js';

const ENDED_ATTEMPTS = new Set<AttemptStatus>(['REFUSED', 'CANCELED', 'WINDOW_ERROR', 'FAILED', 'AUTO_CANCELED']);

/** Why an attempt, a refund or (its last one) a payment failed. */
export const failureView = z.object({
  code: z.string().describe("The gateway's or the service's reason code, e.g. REJECT_CARD_PAYMENT, AMOUNT_MISMATCH, WINDOW_SUPERSEDED."),
  message: z.string(),
  optionUnavailable: z.boolean().describe("The store's gateway set-up is at fault; the buyer cannot fix it (another option may work)."),
  at: instant,
});
export const presentFailure = (f: Failure | null) => f && { code: f.code, message: f.message, optionUnavailable: f.optionUnavailable, at: isoAt(f.at) };

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

export function presentPaymentStart(payment: PaymentRow, attempt: AttemptRow | null, option: PaymentOption | null, payUrl: string | null) {
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
  status: z
    .enum(['OPEN', 'CONFIRMING', 'COMPLETED', 'FAILED', 'EXPIRED'])
    .describe('OPEN: windows may still be opened; CONFIRMING: an approval awaits the gateway.'),
  orderId: z.string().nullable(),
  lastFailure: failureView.nullable(),
  amounts: amountsView,
  testPayment: z.boolean(),
  expiresAt: instant,
});

/** `GET /payments/{paymentId}` (no authentication): what a storefront polls after the window. */
export async function presentPaymentStatus(services: Services, payment: PaymentRow, last?: AttemptRow) {
  last ??= await lastAttemptOf(services.db, payment.id);
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
  last ??= await lastAttemptOf(services.db, payment.id);
  const view = await presentPaymentStatus(services, payment, last);
  switch (view.result) {
    case 'COMPLETED':
      return { status: 'COMPLETED', paymentId: payment.id, orderId: payment.orderId };
    case 'PROCESSING':
      return { status: 'PROCESSING', paymentId: payment.id };
    case 'EXPIRED':
      return { status: 'FAILED', paymentId: payment.id, code: 'PAYMENT_EXPIRED', message: '결제 유효 시간이 지났습니다.' };
    case 'FAILED':
      if (last?.status === 'CANCELED') return { status: 'CANCELED', paymentId: payment.id };
      return {
        status: 'FAILED',
        paymentId: payment.id,
        code: view.lastFailure?.code ?? 'FAILED',
        message: view.lastFailure?.message ?? '',
        ...(view.lastFailure?.optionUnavailable ? { optionUnavailable: true } : {}),
      };
  }
}
