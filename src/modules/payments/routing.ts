import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import type { Services } from '../../server/services.js';
import { cachedPerStoreSettings, type CheckoutAvailability } from '../stores/index.js';
import { storefrontIsPublic } from '../storefront/index.js';
import { PROVIDERS, type CheckoutMode, type EasyPayProvider, type Environment, type PaymentMethod, type PaymentOption, type Pg } from './gateway.js';
import { paymentCredentials, paymentProviders, paymentSettings, type PgTwoConfig } from './schema.js';

export type ProviderRow = typeof paymentProviders.$inferSelect;
export type CredentialRow = typeof paymentCredentials.$inferSelect;
export type SettingsRow = typeof paymentSettings.$inferSelect;
export const ROUTING_EXCLUSIONS = ['NOT_CONNECTED', 'DISABLED', 'CREDENTIAL_MISSING', 'SANDBOX_IN_LIVE_STORE', 'PLATFORM_BLOCKED'] as const;
export type RoutingExclusion = (typeof ROUTING_EXCLUSIONS)[number];

const q = preparedFor((db: Db) => ({
  settings: db
    .select()
    .from(paymentSettings)
    .where(eq(paymentSettings.storeId, sql.placeholder('storeId')))
    .prepare(),
  providers: db
    .select()
    .from(paymentProviders)
    .where(eq(paymentProviders.storeId, sql.placeholder('storeId')))
    .prepare(),
  activeCredentials: db
    .select()
    .from(paymentCredentials)
    .where(and(eq(paymentCredentials.storeId, sql.placeholder('storeId')), eq(paymentCredentials.status, 'ACTIVE')))
    .prepare(),
}));

export const defaultSettings = (storeId: string, now: number): SettingsRow => ({
  storeId,
  priority: [],
  checkoutOrigins: [],
  platformLiveEnabled: false,
  warningMailedAt: null,
  version: 0,
  updatedAt: now,
});

export const readSettings = async (db: Db, storeId: string, now = 0): Promise<SettingsRow> =>
  (await q(db).settings.get({ storeId })) ?? defaultSettings(storeId, now);

/** The key set a provider uses: test keys in sandbox mode, live keys otherwise (spec 01 §5.5). */
export const environmentOf = (row: Pick<ProviderRow, 'sandboxMode'>): Environment => (row.sandboxMode ? 'TEST' : 'LIVE');

export interface ProviderState {
  provider: Pg;
  row: ProviderRow | null;
  credentials: Partial<Record<Environment, CredentialRow>>;
  exclusion: RoutingExclusion | null;
}

export interface StoreRouting {
  settings: SettingsRow;
  /** Both providers: connected ones in priority order, then the others. */
  providers: ProviderState[];
  /** Providers in use, by priority; empty means no payment possible. */
  candidates: ProviderState[];
  environment: Environment | null;
  /** The hosted storefront is public: sandbox-only checkout then stops (PAYMENT_NOT_LIVE). */
  storefrontPublic: boolean;
}

/**
 * Which providers take payments. Exclusions are decided one provider at a time, then the store-wide
 * rule: once any provider in use is live, all checkout is live and sandbox providers step aside.
 */
export const storeRouting = cachedPerStoreSettings((db: Db) => db, buildStoreRouting);

async function buildStoreRouting(db: Db, storeId: string): Promise<StoreRouting> {
  const statements = q(db);
  const settings = await readSettings(db, storeId);
  const rows = await statements.providers.all({ storeId });
  const credentials = await statements.activeCredentials.all({ storeId });
  const order = [...settings.priority, ...PROVIDERS.filter((p) => !settings.priority.includes(p))];
  const providers: ProviderState[] = order.map((provider) => {
    const row = rows.find((r) => r.provider === provider) ?? null;
    const sets: ProviderState['credentials'] = {};
    for (const c of credentials) if (c.provider === provider) sets[c.environment] = c;
    let exclusion: RoutingExclusion | null = null;
    if (!row) exclusion = 'NOT_CONNECTED';
    else if (!row.enabled) exclusion = 'DISABLED';
    else if (!sets[environmentOf(row)]) exclusion = 'CREDENTIAL_MISSING';
    else if (!row.sandboxMode && !settings.platformLiveEnabled) exclusion = 'PLATFORM_BLOCKED';
    return { provider, row, credentials: sets, exclusion };
  });
  if (providers.some((p) => p.exclusion === null && !p.row!.sandboxMode)) {
    for (const p of providers) if (p.exclusion === null && p.row!.sandboxMode) p.exclusion = 'SANDBOX_IN_LIVE_STORE';
  }
  const candidates = providers.filter((p) => p.exclusion === null);
  const environment = candidates.length === 0 ? null : candidates.some((p) => !p.row!.sandboxMode) ? 'LIVE' : 'TEST';
  return { settings, providers, candidates, environment, storefrontPublic: await storefrontIsPublic(db, storeId) };
}

export const PG_NAMES: Record<Pg, string> = { pg_one: 'PG One', pg_two: 'PG Two' };
const METHOD_LABELS: Record<PaymentMethod, string> = {
  CARD: '신용·체크카드',
  EASY_PAY: '간편결제',
  BANK_TRANSFER: '계좌이체',
  MOBILE: '휴대폰',
  VIRTUAL_ACCOUNT: '가상계좌',
};
const EASY_PAY_LABELS: Record<EasyPayProvider, string> = {
  EASYPAY_1: '간편결제 1',
  EASYPAY_2: '간편결제 2',
  EASYPAY_3: '간편결제 3',
  EASYPAY_4: '간편결제 4',
};

/** `신용·체크카드`, `간편결제 1`: what a buyer reads for a method (and easy-pay provider). */
export const methodLabel = (method: PaymentMethod, provider?: EasyPayProvider | null) => (provider ? EASY_PAY_LABELS[provider] : METHOD_LABELS[method]);

/** Methods buyers may choose; virtual account is not supported by either gateway yet (spec 01 §5.5). */
const OFFERED: PaymentMethod[] = ['CARD', 'EASY_PAY', 'BANK_TRANSFER', 'MOBILE'];

/** pg_one takes every offered method; pg_two what the channels of its key set in use accept. */
export function methodsOf(state: ProviderState): PaymentMethod[] {
  if (state.provider === 'pg_one') return OFFERED;
  const config = state.credentials[environmentOf(state.row!)]!.publicConfig as PgTwoConfig;
  return OFFERED.filter((m) => config.channels.some((c) => c.methods.includes(m)));
}

export const optionKey = (o: { pg: Pg; method: PaymentMethod; provider?: EasyPayProvider | null }) =>
  o.provider ? `${o.pg}:${o.method}:${o.provider}` : `${o.pg}:${o.method}`;

/** What buyers may pay with; nothing while checkout is unavailable to them (`checkoutMode`), e.g. a public shop on sandbox gateways. */
export async function paymentOptions(services: Pick<Services, 'db'>, storeId: string, audience: CheckoutAudience = {}): Promise<PaymentOption[]> {
  const options: PaymentOption[] = [];
  const routing = await storeRouting(services.db, storeId);
  if (modeOf(routing, audience).mode === null) return options;
  for (const state of routing.candidates) {
    const pgName = PG_NAMES[state.provider];
    for (const method of methodsOf(state)) {
      const providers = method === 'EASY_PAY' && state.row!.easyPayProviders.length ? state.row!.easyPayProviders : [undefined];
      for (const provider of providers) {
        const option: PaymentOption = {
          pg: state.provider,
          method,
          key: optionKey({ pg: state.provider, method, provider }),
          label: methodLabel(method, provider),
          pgName,
        };
        if (provider) option.provider = provider;
        options.push(option);
      }
    }
  }
  return options;
}

/** A request's option (`{ pg, method, provider? }` or its key string) among the enabled ones. */
export async function findPaymentOption(
  services: Pick<Services, 'db'>,
  storeId: string,
  input: string | { pg: string; method: string; provider?: string | null },
  audience: CheckoutAudience = {},
): Promise<PaymentOption | undefined> {
  const key = typeof input === 'string' ? input.replace(/:$/, '') : optionKey(input as Parameters<typeof optionKey>[0]);
  return (await paymentOptions(services, storeId, audience)).find((o) => o.key === key);
}

/** Who asks: the seller's trusted preview browser still pays in the sandbox once the site is public. */
export interface CheckoutAudience {
  preview?: boolean;
}

/** Whether buyers can pay, and how (spec 01 §5.5 table). */
export async function checkoutMode(services: Pick<Services, 'db'>, storeId: string, audience: CheckoutAudience = {}): Promise<CheckoutMode> {
  return modeOf(await storeRouting(services.db, storeId), audience);
}

function modeOf({ environment, storefrontPublic }: StoreRouting, { preview = false }: CheckoutAudience): CheckoutMode {
  if (environment === null) return { mode: null, reason: 'NO_PROVIDER' };
  if (environment === 'TEST' && storefrontPublic && !preview) return { mode: null, reason: 'NOT_LIVE' };
  return { mode: environment, reason: null };
}

/** `checkoutAvailable`, `checkoutMode`, `checkoutUnavailableReason` of the store resources. */
export async function checkoutAvailability(services: Pick<Services, 'db'>, storeId: string, audience: CheckoutAudience = {}): Promise<CheckoutAvailability> {
  const { mode, reason } = await checkoutMode(services, storeId, audience);
  return {
    checkoutAvailable: mode !== null,
    checkoutMode: mode,
    checkoutUnavailableReason: reason === 'NO_PROVIDER' ? 'PAYMENT_NOT_CONFIGURED' : reason === 'NOT_LIVE' ? 'PAYMENT_NOT_LIVE' : null,
  };
}

export const paymentDomains = async (services: Pick<Services, 'db'>, storeId: string): Promise<string[]> =>
  (await readSettings(services.db, storeId)).checkoutOrigins;
