import type { CancelInput, CancelResult, ConfirmInput, ConfirmResult, GatewayFailure, LookupResult, PaymentMethod, PrepareWindowInput } from './gateway.js';
import type { PgOneConfig, PgTwoConfig, PublicConfig, SecretFields } from './schema.js';

/**
 * Live adapters: the gateways' public server APIs. pg_one follows Toss Payments (`POST /v1/payments/confirm`,
 * `POST /v1/payments/{paymentKey}/cancel`, Basic auth with the secret key); pg_two follows PortOne V2
 * (`GET /payments/{id}`, `POST /payments/{id}/cancel`, `Authorization: PortOne <apiSecret>`). Base URLs
 * come from SVC_PG_ONE_API_URL / SVC_PG_TWO_API_URL (tests point them at a local fake). Never used with
 * test keys: those go to the sandbox simulator.
 */
export interface LiveApi {
  /** Public parameters for the browser SDK that opens the window; null when no channel takes the method. */
  windowParams(input: PrepareWindowInput): Record<string, string> | null;
  /** pg_two's payment id is ours to choose; pg_one's paymentKey arrives with the buyer's return. */
  paymentKeyFor(input: PrepareWindowInput): string | undefined;
  verify(): Promise<VerifyResult>;
  confirm(input: ConfirmInput): Promise<ConfirmResult>;
  cancel(input: CancelInput): Promise<CancelResult>;
  lookup(input: { pgPaymentKey: string; pgOrderId: string }): Promise<LookupResult>;
}

export type VerifyResult = { ok: true } | { ok: false; code: string; message: string };

const TIMEOUT_MS = 10_000;
const CONNECTION_PROBE_ID = 'svc-connection-check';

export interface GatewayAnswer {
  status: number;
  body: any;
}

/** One HTTP call; null when the gateway did not answer (network error, time-out) — the result is unknown. */
export async function call(
  url: string,
  init: { method: string; authorization: string; body?: unknown; headers?: Record<string, string> },
): Promise<GatewayAnswer | null> {
  try {
    const res = await fetch(url, {
      method: init.method,
      headers: { authorization: init.authorization, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'error',
    });
    const text = await res.text();
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { status: res.status, body };
  } catch {
    return null;
  }
}

const unknownResult = (): ConfirmResult => ({ status: 'CONFIRMING', approvedAmount: 0, approvedMethod: null, pgTransactionId: null });
const refused = (failure: GatewayFailure): ConfirmResult => ({ status: 'REFUSED', approvedAmount: 0, approvedMethod: null, pgTransactionId: null, failure });
export const unreachable: GatewayFailure = { code: 'GATEWAY_UNAVAILABLE', message: '결제사 서버가 응답하지 않습니다.', optionUnavailable: false };
const notFound: LookupResult = { status: 'NOT_FOUND', amount: 0, approvedAmount: 0, canceledAmount: 0, approvedMethod: null, pgTransactionId: null };
/**
 * Refusals the buyer cannot fix because the store's set-up is at fault (keys wrong or revoked, method
 * not contracted). A 401 always is; pg_one also answers 403 for card refusals, so beyond 401 it goes by code.
 */
export const PG_ONE_CONFIGURATION_CODES = new Set([
  'UNAUTHORIZED_KEY',
  'INVALID_API_KEY',
  'INVALID_CLIENT_KEY',
  'NOT_SUPPORTED_METHOD',
  'NOT_REGISTERED_BUSINESS',
  'INVALID_UNREGISTERED_SUBMALL',
]);
export const PG_TWO_CONFIGURATION_CODES = new Set(['UNAUTHORIZED', 'FORBIDDEN', 'CHANNEL_NOT_FOUND', 'PG_PROVIDER_ERROR']);
/**
 * Cancel refusals that asking again will not change until the seller acts (the merchant's balance short of
 * the refund, the refund period over): the refund is held for the seller (`CancelResult` HELD).
 */
const PG_ONE_HELD_CANCEL_CODES = new Set(['NOT_CANCELABLE_PAYMENT', 'EXCEED_MAX_REFUND_DUE']);
/** PortOne passes the underlying gateway's refusal of a cancel on as `PG_PROVIDER` (its `pgMessage` says why). */
const PG_TWO_HELD_CANCEL_CODES = new Set(['PG_PROVIDER']);

/** The gateway's own trouble (5xx): its reason when it gave one, else that it did not answer. */
export const troubleOf = (answer: GatewayAnswer | null, code: string | undefined): GatewayFailure =>
  answer && code ? { code, message: answer.body?.message ?? unreachable.message, optionUnavailable: false } : unreachable;

/** A refused cancel: HELD when only the seller can clear it, else FAILED (tried again later). */
function refusedCancel(failure: GatewayFailure, heldCodes: Set<string>): CancelResult {
  return { status: heldCodes.has(failure.code) ? 'HELD' : 'FAILED', canceledAmount: 0, failure };
}

export function failureOf(answer: GatewayAnswer, code: string | undefined, message: string | undefined, configurationCodes: Set<string>): GatewayFailure {
  return {
    code: code ?? `HTTP_${answer.status}`,
    message: message ?? '결제사가 요청을 거절했습니다.',
    optionUnavailable: answer.status === 401 || (code !== undefined && configurationCodes.has(code)),
  };
}

// ---- pg_one (Toss Payments) ----

const PG_ONE_METHODS: Record<string, PaymentMethod> = {
  카드: 'CARD',
  간편결제: 'EASY_PAY',
  계좌이체: 'BANK_TRANSFER',
  휴대폰: 'MOBILE',
  가상계좌: 'VIRTUAL_ACCOUNT',
  CARD: 'CARD',
  EASY_PAY: 'EASY_PAY',
  TRANSFER: 'BANK_TRANSFER',
  MOBILE_PHONE: 'MOBILE',
  VIRTUAL_ACCOUNT: 'VIRTUAL_ACCOUNT',
};
const PG_ONE_WINDOW_METHOD: Record<PaymentMethod, string> = {
  CARD: 'CARD',
  EASY_PAY: 'CARD',
  BANK_TRANSFER: 'TRANSFER',
  MOBILE: 'MOBILE_PHONE',
  VIRTUAL_ACCOUNT: 'VIRTUAL_ACCOUNT',
};

function pgOnePayment(body: any): LookupResult {
  const total = Number(body?.totalAmount ?? 0);
  const balance = Number(body?.balanceAmount ?? total);
  const status: LookupResult['status'] =
    (
      {
        READY: 'READY',
        IN_PROGRESS: 'READY',
        WAITING_FOR_DEPOSIT: 'READY',
        DONE: 'APPROVED',
        CANCELED: 'CANCELED',
        PARTIAL_CANCELED: 'PARTIALLY_CANCELED',
        ABORTED: 'REFUSED',
        EXPIRED: 'REFUSED',
      } as Record<string, LookupResult['status']>
    )[body?.status] ?? 'UNKNOWN';
  const paid = status === 'APPROVED' || status === 'CANCELED' || status === 'PARTIALLY_CANCELED';
  return {
    status,
    amount: total,
    approvedAmount: paid ? total : 0,
    canceledAmount: paid ? total - balance : 0,
    approvedMethod: paid ? (PG_ONE_METHODS[body?.method] ?? 'CARD') : null,
    pgTransactionId: paid ? String(body.paymentKey) : null,
  };
}

/** pg_one's API root and its Basic authorization with the secret key. */
export const pgOneEndpoint = (secrets: SecretFields) => ({
  base: (process.env.SVC_PG_ONE_API_URL ?? 'https://api.tosspayments.com').replace(/\/$/, ''),
  authorization: `Basic ${Buffer.from(`${secrets.secretKey}:`).toString('base64')}`,
});

export function pgOneApi(config: PgOneConfig, secrets: SecretFields): LiveApi {
  const { base, authorization } = pgOneEndpoint(secrets);
  const api = {
    windowParams: (input: PrepareWindowInput) => ({
      clientKey: config.clientKey,
      method: PG_ONE_WINDOW_METHOD[input.method],
      ...(input.provider ? { easyPay: input.provider } : {}),
      orderId: input.pgOrderId,
      orderName: input.orderName,
      amount: String(input.amount),
      successUrl: input.returnUrl,
      failUrl: input.returnUrl,
    }),
    paymentKeyFor: () => undefined,
    async verify(): Promise<VerifyResult> {
      // No ping endpoint: a look-up of an order that cannot exist answers 404 with good keys, 401 without.
      const answer = await call(`${base}/v1/payments/orders/${CONNECTION_PROBE_ID}`, { method: 'GET', authorization });
      if (!answer) return { ok: false, code: unreachable.code, message: unreachable.message };
      if (answer.status === 404 || answer.status === 200) return { ok: true };
      return { ok: false, code: answer.body?.code ?? `HTTP_${answer.status}`, message: answer.body?.message ?? '연결 확인에 실패했습니다.' };
    },
    async confirm(input: ConfirmInput): Promise<ConfirmResult> {
      const answer = await call(`${base}/v1/payments/confirm`, {
        method: 'POST',
        authorization,
        body: { paymentKey: input.pgPaymentKey, orderId: input.pgOrderId, amount: input.amount },
      });
      if (!answer || answer.status >= 500) return unknownResult();
      if (answer.status === 200) {
        const payment = pgOnePayment(answer.body);
        return payment.status === 'APPROVED'
          ? { status: 'APPROVED', approvedAmount: payment.approvedAmount, approvedMethod: payment.approvedMethod, pgTransactionId: payment.pgTransactionId }
          : unknownResult();
      }
      if (answer.body?.code === 'ALREADY_PROCESSED_PAYMENT') {
        // A retried confirm: the first one went through; read what the gateway holds.
        const payment = await api.lookup(input);
        if (payment.status === 'APPROVED')
          return {
            status: 'APPROVED',
            approvedAmount: payment.approvedAmount,
            approvedMethod: payment.approvedMethod,
            pgTransactionId: payment.pgTransactionId,
          };
      }
      return refused(failureOf(answer, answer.body?.code, answer.body?.message, PG_ONE_CONFIGURATION_CODES));
    },
    async cancel(input: CancelInput): Promise<CancelResult> {
      const answer = await call(`${base}/v1/payments/${encodeURIComponent(input.pgTransactionId)}/cancel`, {
        method: 'POST',
        authorization,
        body: { cancelReason: input.reason, cancelAmount: input.amount },
      });
      if (!answer || answer.status >= 500) return { status: 'FAILED', canceledAmount: 0, failure: troubleOf(answer, answer?.body?.code) };
      if (answer.status === 200) return { status: 'CANCELED', canceledAmount: input.amount };
      return refusedCancel(failureOf(answer, answer.body?.code, answer.body?.message, PG_ONE_CONFIGURATION_CODES), PG_ONE_HELD_CANCEL_CODES);
    },
    async lookup(input: { pgPaymentKey: string; pgOrderId: string }): Promise<LookupResult> {
      const path = input.pgPaymentKey ? `/v1/payments/${encodeURIComponent(input.pgPaymentKey)}` : `/v1/payments/orders/${encodeURIComponent(input.pgOrderId)}`;
      const answer = await call(`${base}${path}`, { method: 'GET', authorization });
      if (!answer || answer.status >= 500) return { ...notFound, status: 'UNKNOWN' };
      if (answer.status === 404) return notFound;
      if (answer.status !== 200) return { ...notFound, status: 'UNKNOWN' };
      return pgOnePayment(answer.body);
    },
  };
  return api;
}

// ---- pg_two (PortOne V2) ----

const PG_TWO_METHODS: Record<string, PaymentMethod> = {
  PaymentMethodCard: 'CARD',
  PaymentMethodEasyPay: 'EASY_PAY',
  PaymentMethodTransfer: 'BANK_TRANSFER',
  PaymentMethodMobile: 'MOBILE',
  PaymentMethodVirtualAccount: 'VIRTUAL_ACCOUNT',
};
const PG_TWO_WINDOW_METHOD: Record<PaymentMethod, string> = {
  CARD: 'CARD',
  EASY_PAY: 'EASY_PAY',
  BANK_TRANSFER: 'TRANSFER',
  MOBILE: 'MOBILE',
  VIRTUAL_ACCOUNT: 'VIRTUAL_ACCOUNT',
};

function pgTwoPayment(body: any): LookupResult {
  const total = Number(body?.amount?.total ?? 0);
  const status: LookupResult['status'] =
    (
      {
        READY: 'READY',
        PENDING: 'READY',
        PAY_PENDING: 'READY',
        VIRTUAL_ACCOUNT_ISSUED: 'READY',
        PAID: 'APPROVED',
        CANCELLED: 'CANCELED',
        PARTIAL_CANCELLED: 'PARTIALLY_CANCELED',
        FAILED: 'REFUSED',
      } as Record<string, LookupResult['status']>
    )[body?.status] ?? 'UNKNOWN';
  const paid = status === 'APPROVED' || status === 'CANCELED' || status === 'PARTIALLY_CANCELED';
  return {
    status,
    amount: total,
    approvedAmount: paid ? Number(body?.amount?.paid ?? total) : 0,
    canceledAmount: paid ? Number(body?.amount?.cancelled ?? 0) : 0,
    approvedMethod: paid ? (PG_TWO_METHODS[body?.method?.type] ?? 'CARD') : null,
    pgTransactionId: paid ? String(body.id) : null,
  };
}

/** pg_two's API root and its `PortOne <apiSecret>` authorization. */
export const pgTwoEndpoint = (secrets: SecretFields) => ({
  base: (process.env.SVC_PG_TWO_API_URL ?? 'https://api.portone.io').replace(/\/$/, ''),
  authorization: `PortOne ${secrets.apiSecret}`,
});

export function pgTwoApi(config: PgTwoConfig, secrets: SecretFields): LiveApi {
  const { base, authorization } = pgTwoEndpoint(secrets);
  const paymentUrl = (id: string, suffix = '') => `${base}/payments/${encodeURIComponent(id)}${suffix}?storeId=${encodeURIComponent(config.storeId)}`;
  const get = (id: string) => call(paymentUrl(id), { method: 'GET', authorization });
  return {
    windowParams(input) {
      // Per method the first channel that accepts it is used (spec 01 §5.5).
      const channel = config.channels.find((c) => c.methods.includes(input.method));
      if (!channel) return null;
      return {
        storeId: config.storeId,
        channelKey: channel.channelKey,
        paymentId: input.pgOrderId,
        orderName: input.orderName,
        totalAmount: String(input.amount),
        currency: 'KRW',
        payMethod: PG_TWO_WINDOW_METHOD[input.method],
        ...(input.provider ? { easyPayProvider: input.provider } : {}),
        redirectUrl: input.returnUrl,
      };
    },
    paymentKeyFor: (input) => input.pgOrderId,
    async verify() {
      const answer = await get(CONNECTION_PROBE_ID);
      if (!answer) return { ok: false, code: unreachable.code, message: unreachable.message };
      if (answer.status === 404 || answer.status === 200) return { ok: true };
      return { ok: false, code: answer.body?.type ?? `HTTP_${answer.status}`, message: answer.body?.message ?? '연결 확인에 실패했습니다.' };
    },
    async confirm(input) {
      // PortOne V2 approves in the window; the server's confirmation is reading the payment back.
      const answer = await get(input.pgPaymentKey);
      if (!answer || answer.status >= 500) return unknownResult();
      if (answer.status !== 200) return refused(failureOf(answer, answer.body?.type, answer.body?.message, PG_TWO_CONFIGURATION_CODES));
      const payment = pgTwoPayment(answer.body);
      if (payment.status === 'REFUSED') {
        return refused({
          code: answer.body?.failure?.pgCode ?? 'PAYMENT_FAILED',
          message: answer.body?.failure?.reason ?? '결제가 실패했습니다.',
          optionUnavailable: false,
        });
      }
      if (payment.status !== 'APPROVED') return unknownResult();
      return { status: 'APPROVED', approvedAmount: payment.approvedAmount, approvedMethod: payment.approvedMethod, pgTransactionId: payment.pgTransactionId };
    },
    async cancel(input) {
      const answer = await call(paymentUrl(input.pgTransactionId, '/cancel'), {
        method: 'POST',
        authorization,
        body: { storeId: config.storeId, amount: input.amount, reason: input.reason },
      });
      if (!answer || answer.status >= 500) return { status: 'FAILED', canceledAmount: 0, failure: troubleOf(answer, answer?.body?.type) };
      if (answer.status !== 200)
        return refusedCancel(
          failureOf(answer, answer.body?.type, answer.body?.pgMessage ?? answer.body?.message, PG_TWO_CONFIGURATION_CODES),
          PG_TWO_HELD_CANCEL_CODES,
        );
      const cancellation = answer.body?.cancellation;
      if (cancellation?.status === 'SUCCEEDED') return { status: 'CANCELED', canceledAmount: Number(cancellation.totalAmount ?? input.amount) };
      if (cancellation?.status === 'REQUESTED') return { status: 'PENDING', canceledAmount: 0 };
      return {
        status: 'FAILED',
        canceledAmount: 0,
        failure: { code: 'CANCEL_FAILED', message: '결제사가 취소를 처리하지 못했습니다.', optionUnavailable: false },
      };
    },
    async lookup(input) {
      const answer = await get(input.pgPaymentKey || input.pgOrderId);
      if (!answer || answer.status >= 500) return { ...notFound, status: 'UNKNOWN' };
      if (answer.status === 404) return notFound;
      if (answer.status !== 200) return { ...notFound, status: 'UNKNOWN' };
      return pgTwoPayment(answer.body);
    },
  };
}

export const liveApi = (provider: 'pg_one' | 'pg_two', config: PublicConfig, secrets: SecretFields): LiveApi =>
  provider === 'pg_one' ? pgOneApi(config as PgOneConfig, secrets) : pgTwoApi(config as PgTwoConfig, secrets);
