import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { EasyPayProvider, Environment, PaymentMethod, Pg, SandboxView } from './gateway.js';

/** Store-wide payment settings (spec 01 §4.6 `PUT /store/payment-settings`) and the platform's live permission. */
export const paymentSettings = sqliteTable('payment_settings', {
  storeId: text('store_id').primaryKey(),
  priority: text('priority', { mode: 'json' }).$type<Pg[]>().notNull(),
  checkoutOrigins: text('checkout_origins', { mode: 'json' }).$type<string[]>().notNull(),
  /** Condition `PLATFORM_LIVE_ENABLED`: the platform lets this store take live payments. */
  platformLiveEnabled: integer('platform_live_enabled', { mode: 'boolean' }).notNull(),
  /** Last repeated-failure mail to the owners (at most one a day per store). */
  warningMailedAt: integer('warning_mailed_at'),
  version: integer('version').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/** A connected gateway of a store; disconnecting deletes the row (its keys stay, archived). */
export const paymentProviders = sqliteTable(
  'payment_providers',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    provider: text('provider').$type<Pg>().notNull(),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    sandboxMode: integer('sandbox_mode', { mode: 'boolean' }).notNull(),
    easyPayProviders: text('easy_pay_providers', { mode: 'json' }).$type<EasyPayProvider[]>().notNull(),
    /** Live-gate conditions `SANDBOX_PAYMENT` and `SANDBOX_REFUND`: first success with test keys. */
    sandboxPaymentAt: integer('sandbox_payment_at'),
    sandboxRefundAt: integer('sandbox_refund_at'),
    /** `liveGate.openedAt`: the last switch to live mode. */
    liveSwitchedAt: integer('live_switched_at'),
    /** Optimistic concurrency: every change bumps it (409 PAYMENT_PROVIDER_CHANGED). */
    version: integer('version').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('payment_providers_store_provider').on(t.storeId, t.provider)],
);

export interface PgOneConfig {
  clientKey: string;
}
export interface PgTwoChannel {
  channelKey: string;
  channelName: string | null;
  methods: PaymentMethod[];
}
export interface PgTwoConfig {
  storeId: string;
  channels: PgTwoChannel[];
}
export type PublicConfig = PgOneConfig | PgTwoConfig;
/** Secret fields by name (`secretKey` / `apiSecret`, `webhookSecret`); stored only encrypted. */
export type SecretFields = Record<string, string>;

/**
 * A key set. At most one `ACTIVE` set per store, provider and environment; replaced merchants,
 * deleted sets and disconnected providers leave `ARCHIVED` sets that serve only cancels and look-ups.
 */
export const paymentCredentials = sqliteTable(
  'payment_credentials',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    provider: text('provider').$type<Pg>().notNull(),
    environment: text('environment').$type<Environment>().notNull(),
    status: text('status').$type<'ACTIVE' | 'ARCHIVED'>().notNull(),
    /** Who the keys belong to: pg_one's client key, pg_two's store id; another merchant archives the set. */
    merchant: text('merchant').notNull(),
    publicConfig: text('public_config', { mode: 'json' }).$type<PublicConfig>().notNull(),
    /** AES-256-GCM of the JSON SecretFields, bound to this row's id (crypto.ts). */
    secrets: text('secrets').notNull(),
    /** First 4 characters of each secret, computed at save so reads never decrypt. */
    masked: text('masked', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    verification: text('verification').$type<'PASSED' | 'FAILED'>(),
    verificationCode: text('verification_code'),
    verifiedAt: integer('verified_at'),
    version: integer('version').notNull(),
    archivedAt: integer('archived_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('payment_credentials_store').on(t.storeId, t.provider, t.environment, t.status)],
);

/** Payment failures caused by the store's gateway configuration, for `warnings[]` (kept 48 hours). */
export const paymentProviderFailures = sqliteTable(
  'payment_provider_failures',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    provider: text('provider').$type<Pg>().notNull(),
    method: text('method').$type<PaymentMethod>().notNull(),
    easyPayProvider: text('easy_pay_provider').$type<EasyPayProvider>(),
    code: text('code').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('payment_provider_failures_store').on(t.storeId, t.at)],
);

/** The sandbox gateways' own ledger: what the simulated gateway knows about each window it opened. */
export const sandboxGatewayPayments = sqliteTable(
  'sandbox_gateway_payments',
  {
    pgPaymentKey: text('pg_payment_key').primaryKey(),
    storeId: text('store_id').notNull(),
    provider: text('provider').$type<Pg>().notNull(),
    credentialId: text('credential_id').notNull(),
    paymentId: text('payment_id').notNull(),
    pgOrderId: text('pg_order_id').notNull(),
    orderName: text('order_name').notNull(),
    method: text('method').$type<PaymentMethod>().notNull(),
    easyPayProvider: text('easy_pay_provider').$type<EasyPayProvider>(),
    /** Amount the window was opened for. */
    amount: integer('amount').notNull(),
    /** Amount the buyer authenticated for — "the gateway's amount" (differs only when a test says so). */
    gatewayAmount: integer('gateway_amount').notNull(),
    canceledAmount: integer('canceled_amount').notNull(),
    status: text('status').$type<SandboxView['status']>().notNull(),
    /** Outcome CONFIRMING: the first confirm answers late (CONFIRMING) although the gateway approved. */
    slowConfirm: integer('slow_confirm', { mode: 'boolean' }).notNull(),
    /** Outcome REFUND_HELD: the next cancel answers that the merchant cannot refund now (insufficient balance). */
    refundHeld: integer('refund_held', { mode: 'boolean' }).notNull().default(false),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('sandbox_gateway_payments_payment').on(t.paymentId)],
);
