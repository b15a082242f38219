/**
 * # The gateway contract of the payments module: providers, methods, options, and what a `Gateway` does
 *
 * Gateway methods may do network I/O (live adapters do HTTP): call them outside a transaction, then write
 * the outcome in a short transaction of your own.
 *
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
 * - `Gateway.issueCashReceipt(input)` / `cancelCashReceipt({ receiptKey })` — live only (pg_one:
 *   `POST /v1/cash-receipts`, `POST /v1/cash-receipts/{receiptKey}/cancel`; pg_two: `POST /cash-receipts`,
 *   `POST /payments/{id}/cash-receipt/cancel`). Sandbox gateways have none: checkout issues sandbox
 *   receipts itself. A repeat with the same `receiptId` is the same receipt, never a second one.
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

export interface CashReceiptInput {
  /** Our id of this receipt, the same on every try of it: the gateway takes a repeat as the same receipt. */
  receiptId: string;
  orderName: string;
  amount: number;
  type: 'INCOME_DEDUCTION' | 'EXPENSE_PROOF';
  /** Digits only (phone, card or business registration number). */
  identityNumber: string;
}

export interface CashReceiptResult {
  /** ISSUED: `receiptKey` cancels it; PENDING: no answer or not finished (ask again); REFUSED: it will not be issued. */
  status: 'ISSUED' | 'PENDING' | 'REFUSED';
  receiptKey: string | null;
  /** The number the tax office knows the receipt by. */
  issueNumber: string | null;
  failure?: GatewayFailure;
}

export interface CashReceiptCancelResult {
  status: 'CANCELED' | 'PENDING' | 'REFUSED';
  failure?: GatewayFailure;
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
  /** Live gateways only (see the top of this file). */
  issueCashReceipt?(input: CashReceiptInput): Promise<CashReceiptResult>;
  cancelCashReceipt?(input: { receiptKey: string }): Promise<CashReceiptCancelResult>;
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
