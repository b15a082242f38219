/**
 * # What checkout (and tests) call of the payments module (issue 4 part A → used by checkout/orders, part B)
 *
 * Functions from this file; the types they take and give are the contract in `./gateway.js`.
 * Functions that read the database return a Promise; outside `Gateway` they touch nothing but the
 * database, so they may be awaited inside a caller's transaction.
 *
 * ## Options and mode (spec 02 §2.4, spec 01 §5.5)
 * - `paymentOptions(services, storeId, { preview }?): Promise<PaymentOption[]>` — options of the providers in use
 *   (`candidates`), in priority order, enabled methods only, EASY_PAY expanded per configured
 *   easy-pay provider (a generic EASY_PAY option, key `pg_one:EASY_PAY`, when none are configured).
 *   Empty list ⇔ payment impossible (also a public shop on sandbox gateways, NOT_LIVE, unless `preview`:
 *   the seller's trusted preview browser still pays in the sandbox).
 * - `optionKey({ pg, method, provider? })` → `pg:method:provider` (`pg:method` without provider);
 *   `findPaymentOption(services, storeId, input)` resolves a request's `{ pg, method, provider? }`
 *   or key string against the current options (undefined when not enabled → your
 *   409 PAYMENT_OPTION_UNAVAILABLE with `details.paymentOptions`).
 * - `checkoutMode(services, storeId, { preview }?): Promise<{ mode: 'LIVE' | 'TEST' | null, reason: 'NO_PROVIDER' | 'NOT_LIVE' | null }>`
 *   (`reason` is `PAYMENT_NOT_CONFIGURED`'s `details.reason`; `mode === 'TEST'` ⇔ `testPayment: true`).
 * - `checkoutAvailability(services, storeId, { preview }?)` → `{ checkoutAvailable, checkoutMode, checkoutUnavailableReason }`
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
export { paymentOptions, optionKey, findPaymentOption, checkoutMode, checkoutAvailability, paymentDomains } from './routing.js';
export { gatewayFor } from './adapters.js';
export { sandboxDecide } from './sandbox-gateways.js';
export { recordProviderFailure, recordSandboxSuccess } from './records.js';
