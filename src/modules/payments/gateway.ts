/**
 * # Payments module contract (issue 4 part A → used by checkout/orders, part B)
 *
 * Import everything from this file: `import { … } from '../payments/gateway.js'`.
 * Functions that read the database return a Promise; outside `Gateway` they touch nothing but the
 * database, so they may be awaited inside a caller's transaction. Gateway methods may do network I/O
 * (live adapters do HTTP): call them outside a transaction, then write the outcome in a short
 * transaction of your own.
 *
 * ## Options and mode (spec 02 §2.4, spec 01 §5.5)
 * - `paymentOptions(services, storeId): Promise<PaymentOption[]>` — options of the providers in use
 *   (`candidates`), in priority order, enabled methods only, EASY_PAY expanded per configured
 *   easy-pay provider (a generic EASY_PAY option, key `pg_one:EASY_PAY`, when none are configured).
 *   Empty list ⇔ payment impossible.
 * - `optionKey({ pg, method, provider? })` → `pg:method:provider` (`pg:method` without provider);
 *   `findPaymentOption(services, storeId, input)` resolves a request's `{ pg, method, provider? }`
 *   or key string against the current options (undefined when not enabled → your
 *   409 PAYMENT_OPTION_UNAVAILABLE with `details.paymentOptions`).
 * - `checkoutMode(services, storeId): Promise<{ mode: 'LIVE' | 'TEST' | null, reason: 'NO_PROVIDER' | 'NOT_LIVE' | null }>`
 *   (`reason` is `PAYMENT_NOT_CONFIGURED`'s `details.reason`; `mode === 'TEST'` ⇔ `testPayment: true`).
 * - `checkoutAvailability(services, storeId)` → `{ checkoutAvailable, checkoutMode, checkoutUnavailableReason }`
 *   exactly as the store resources show them (spec 01 §5.5 table).
 * - `paymentDomains(services, storeId): Promise<string[]>` — the seller's `checkoutOrigins` (empty = any https
 *   return URL; RETURN_URL_NOT_ALLOWED is yours to raise).
 *
 * ## Gateways
 * - `gatewayFor(services, storeId, pg, { credentialId? }?): Promise<Gateway>` — without `credentialId`, the
 *   provider's key set in use (TEST keys + sandbox simulator in sandbox mode, LIVE keys + live adapter
 *   otherwise); throws 503 PAYMENT_PROVIDER_UNAVAILABLE when the provider has no usable key set.
 *   With the `credentialId` an attempt was prepared with (kept on your attempt row), the gateway of
 *   that exact key set — also when archived since — for confirm, cancel and lookup of old payments.
 * - `Gateway.prepareWindow(input)` — sandbox: records the window in the simulator and returns
 *   `windowUrl = {origin}/pay/{paymentId}` (your page) and a `pgPaymentKey`; live: nothing is sent to
 *   the gateway (both open their window in the browser SDK) and `client` holds the public parameters
 *   the browser SDK needs. Throws 503 PAYMENT_PROVIDER_UNAVAILABLE (`details.optionUnavailable: true`)
 *   when the method has no channel, after recording the configuration failure itself.
 * - `Gateway.confirm({ pgPaymentKey, pgOrderId, amount, method, provider? })` — asks the gateway to
 *   approve (pg_one: `POST /v1/payments/confirm`; pg_two: `GET /payments/{id}`). `approvedAmount` is
 *   the gateway's amount: compare it with yours (mismatch → your automatic cancel). `CONFIRMING` =
 *   result unknown (time-out, 5xx): ask again later with `lookup`. Configuration faults come back as
 *   `REFUSED` with `failure.optionUnavailable: true` and are already recorded for `warnings[]`.
 *   A sandbox payment approved (or refunded, via `cancel`) counts for the live gate by itself.
 * - `Gateway.cancel({ pgTransactionId, amount, reason })` — full or partial (`amount` = this cancel).
 *   `pgTransactionId` is what confirm returned (the id the gateway cancels by).
 * - `Gateway.lookup({ pgPaymentKey, pgOrderId })` — the gateway's current view of a payment.
 *
 * ## Sandbox simulator (test keys only; never any HTTP)
 * - `sandboxDecide(services, pgPaymentKey, outcome, { amount? }?)` — the buyer's action in the sandbox
 *   window, for `/pay/{paymentId}` and `/_dev/v1/payments/{paymentId}/simulate`:
 *   `APPROVE` (buyer authenticated; `amount` overrides the gateway's amount to test mismatches; then
 *   call `confirm` → APPROVED), `REFUSE` (card refused; confirm → REFUSED), `CANCEL` (window closed;
 *   confirm → REFUSED `PAY_PROCESS_CANCELED`), `WINDOW_ERROR` (window failed to load: recorded as a
 *   configuration failure; confirm → REFUSED with optionUnavailable), `CONFIRMING` (buyer
 *   authenticated but the gateway answers late: confirm → CONFIRMING, later lookup → APPROVED).
 *   Throws 404 SANDBOX_PAYMENT_NOT_FOUND for an unknown key, 409 SANDBOX_PAYMENT_DECIDED when the
 *   window was already decided. Returns the simulator's view (`SandboxView`).
 *
 * ## Records
 * - `recordProviderFailure(services, storeId, { pg, method, easyPayProvider?, code })` — a payment
 *   failure caused by the store's gateway configuration (3 in 24 h → `warnings[]`, owner mailed at most
 *   daily). The gateway methods above already call it for the faults they see.
 * - `recordSandboxSuccess(services, storeId, pg, 'PAYMENT' | 'REFUND')` — live-gate conditions
 *   `SANDBOX_PAYMENT` / `SANDBOX_REFUND`; the sandbox gateway calls it itself on approve / cancel.
 */
export const PROVIDERS = ['pg_one', 'pg_two'] as const;
export type Pg = (typeof PROVIDERS)[number];
export const METHODS = ['CARD', 'EASY_PAY', 'BANK_TRANSFER', 'MOBILE', 'VIRTUAL_ACCOUNT'] as const;
export type PaymentMethod = (typeof METHODS)[number];
export const EASY_PAY_PROVIDERS = ['EASYPAY_1', 'EASYPAY_2', 'EASYPAY_3', 'EASYPAY_4'] as const;
export type EasyPayProvider = (typeof EASY_PAY_PROVIDERS)[number];
export type Environment = 'TEST' | 'LIVE';

export interface PaymentOption {
  pg: Pg;
  method: PaymentMethod;
  provider?: EasyPayProvider;
  /** `<pg>:<method>:<provider>`, or `<pg>:<method>` without provider. */
  key: string;
  label: string;
  pgName: string;
}

export interface CheckoutMode {
  mode: 'LIVE' | 'TEST' | null;
  reason: 'NO_PROVIDER' | 'NOT_LIVE' | null;
}

export interface PrepareWindowInput {
  paymentId: string;
  attemptId: string;
  /** `<orderNo>-<2-digit attempt>`; the id the gateway knows the order by. */
  pgOrderId: string;
  amount: number;
  orderName: string;
  method: PaymentMethod;
  provider?: EasyPayProvider;
  returnUrl: string;
}

export interface PreparedWindow {
  /** Sandbox: `{origin}/pay/{paymentId}`. Live: absent (the browser SDK opens the window). */
  windowUrl?: string;
  /** Sandbox and pg_two: known now. pg_one live: arrives on the return URL (`paymentKey`). */
  pgPaymentKey?: string;
  sandbox: boolean;
  /** The key set used; keep it with the attempt and pass it to `gatewayFor` for confirm/cancel/lookup. */
  credentialId: string;
  /** Public parameters for the gateway's browser SDK (live only; never a secret). */
  client?: Record<string, string>;
}

export interface GatewayFailure {
  code: string;
  message: string;
  /** The store's gateway set-up is at fault; the buyer cannot fix it (spec 02 §2.4 `optionUnavailable`). */
  optionUnavailable: boolean;
}

export interface ConfirmInput {
  pgPaymentKey: string;
  pgOrderId: string;
  amount: number;
  method: PaymentMethod;
  provider?: EasyPayProvider;
}

export interface ConfirmResult {
  status: 'APPROVED' | 'REFUSED' | 'CONFIRMING';
  /** The gateway's amount (0 unless APPROVED). */
  approvedAmount: number;
  /** Actual method (e.g. EASY_PAY), null unless APPROVED. */
  approvedMethod: PaymentMethod | null;
  /** The id `cancel` takes; null unless APPROVED. */
  pgTransactionId: string | null;
  failure?: GatewayFailure;
}

export interface CancelInput {
  pgTransactionId: string;
  amount: number;
  reason: string;
}

export interface CancelResult {
  /**
   * PENDING: the gateway accepted the request but has not finished it (pg_two `REQUESTED`); HELD: it cannot
   * refund now (the merchant's balance or a pending settlement) — retried when the seller asks.
   */
  status: 'CANCELED' | 'PENDING' | 'HELD' | 'FAILED';
  canceledAmount: number;
  failure?: GatewayFailure;
}

export interface LookupResult {
  status: 'READY' | 'APPROVED' | 'PARTIALLY_CANCELED' | 'CANCELED' | 'REFUSED' | 'NOT_FOUND' | 'UNKNOWN';
  amount: number;
  approvedAmount: number;
  canceledAmount: number;
  approvedMethod: PaymentMethod | null;
  pgTransactionId: string | null;
}

export interface Gateway {
  pg: Pg;
  sandbox: boolean;
  credentialId: string;
  prepareWindow(input: PrepareWindowInput): Promise<PreparedWindow>;
  confirm(input: ConfirmInput): Promise<ConfirmResult>;
  cancel(input: CancelInput): Promise<CancelResult>;
  lookup(input: { pgPaymentKey: string; pgOrderId: string }): Promise<LookupResult>;
  /**
   * Closes a prepared window the buyer has not decided, so it can no longer be approved (a newer window of
   * the same payment replaced it). Absent where the gateway has no such API; then a late approval of the
   * old window is handled like any duplicate approval.
   */
  expireWindow?(input: { pgPaymentKey: string; pgOrderId: string }): Promise<'EXPIRED' | 'ALREADY_DECIDED'>;
}

export type SandboxOutcome = 'APPROVE' | 'REFUSE' | 'CANCEL' | 'WINDOW_ERROR' | 'CONFIRMING';

export interface SandboxView {
  pgPaymentKey: string;
  pg: Pg;
  status: 'READY' | 'AUTHORIZED' | 'APPROVED' | 'PARTIALLY_CANCELED' | 'CANCELED' | 'REFUSED' | 'WINDOW_CLOSED' | 'WINDOW_ERROR' | 'EXPIRED';
  amount: number;
  gatewayAmount: number;
  canceledAmount: number;
  method: PaymentMethod;
  provider: EasyPayProvider | null;
}

export interface ProviderFailureInput {
  pg: Pg;
  method: PaymentMethod;
  easyPayProvider?: EasyPayProvider | null;
  code: string;
}

export { paymentOptions, optionKey, findPaymentOption, checkoutMode, checkoutAvailability, checkoutAvailabilityFields, paymentDomains } from './routing.js';
export { gatewayFor } from './adapters.js';
export { sandboxDecide } from './sandbox.js';
export { recordProviderFailure, recordSandboxSuccess } from './records.js';
