import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import type { Db } from '../../db/client.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { EASY_PAY_PROVIDERS, METHODS, PROVIDERS, type Pg } from './gateway.js';
import { providerWarnings } from './records.js';
import { PG_NAMES, ROUTING_EXCLUSIONS, environmentOf, storeRouting, type CredentialRow, type ProviderState, type SettingsRow } from './routing.js';
import { paymentCredentials, type PgOneConfig, type PgTwoConfig } from './schema.js';

/** Secret fields per provider, in display order; only their first 4 characters are ever shown. */
export const SECRET_FIELDS: Record<Pg, string[]> = { pg_one: ['secretKey', 'webhookSecret'], pg_two: ['apiSecret', 'webhookSecret'] };

export const GATE_CODES = ['TEST_CONNECTION', 'SANDBOX_PAYMENT', 'SANDBOX_REFUND', 'LIVE_CONNECTION', 'PLATFORM_LIVE_ENABLED'] as const;
const GATE_MESSAGES: Record<(typeof GATE_CODES)[number], string> = {
  TEST_CONNECTION: '테스트 키 연결 확인을 통과해야 합니다.',
  SANDBOX_PAYMENT: '테스트 키로 결제를 한 번 승인받아야 합니다.',
  SANDBOX_REFUND: '테스트 결제를 한 번 취소(부분 취소 포함)해야 합니다.',
  LIVE_CONNECTION: '라이브 키 연결 확인을 통과해야 합니다.',
  PLATFORM_LIVE_ENABLED: '플랫폼의 라이브 결제 허용이 필요합니다.',
};

export interface GateCondition {
  code: (typeof GATE_CODES)[number];
  met: boolean;
  message: string;
}

const environment = z.enum(['TEST', 'LIVE']);

export const liveGateView = z.object({
  status: z.enum(['OPEN', 'LOCKED']).describe('LOCKED until all five conditions are met; switching to live (`sandboxMode: false`) needs OPEN.'),
  conditions: z.array(z.object({ code: z.enum(GATE_CODES), met: z.boolean(), message: z.string() })),
  openedAt: instant.nullable().describe('The last switch to live mode.'),
});

/** The live gate of spec 01 §3.6: five conditions, `OPEN` only when every one is met. */
export function liveGate(state: ProviderState, settings: SettingsRow) {
  const row = state.row!;
  const met: Record<GateCondition['code'], boolean> = {
    TEST_CONNECTION: state.credentials.TEST?.verification === 'PASSED',
    SANDBOX_PAYMENT: row.sandboxPaymentAt !== null,
    SANDBOX_REFUND: row.sandboxRefundAt !== null,
    LIVE_CONNECTION: state.credentials.LIVE?.verification === 'PASSED',
    PLATFORM_LIVE_ENABLED: settings.platformLiveEnabled,
  };
  const conditions: GateCondition[] = GATE_CODES.map((code) => ({ code, met: met[code], message: GATE_MESSAGES[code] }));
  return {
    status: conditions.every((c) => c.met) ? ('OPEN' as const) : ('LOCKED' as const),
    conditions,
    openedAt: row.liveSwitchedAt === null ? null : isoAt(row.liveSwitchedAt),
  };
}

const credentialFields = {
  credentialId: z.string(),
  environment,
  secrets: z.array(
    z.object({
      field: z.string().describe('secretKey / apiSecret, webhookSecret'),
      set: z.boolean(),
      masked: z.string().nullable().describe('The first 4 characters only.'),
    }),
  ),
  verification: z.object({
    status: z.enum(['PASSED', 'FAILED', 'NOT_TESTED']).describe('The last connection test; edits to the keys reset it to NOT_TESTED.'),
    code: z.string().nullable().describe("The gateway's code of a failed test."),
    testedAt: instant.nullable(),
  }),
  version: z.number().int().describe('Send as `expectedVersion` to save only over this version.'),
  updatedAt: instant,
};

/** A key set, secrets masked: pg_one's client key, or pg_two's store id and channels. */
export const credentialSetView = z.union([
  z.object({ ...credentialFields, clientKey: z.string() }),
  z.object({
    ...credentialFields,
    storeId: z.string(),
    channels: z.array(z.object({ channelKey: z.string(), channelName: z.string().nullable(), methods: z.array(z.enum(METHODS)) })),
  }),
]);

function presentCredential(provider: Pg, c: CredentialRow | undefined) {
  if (!c) return null;
  const publicFields =
    provider === 'pg_one'
      ? { clientKey: (c.publicConfig as PgOneConfig).clientKey }
      : { storeId: (c.publicConfig as PgTwoConfig).storeId, channels: (c.publicConfig as PgTwoConfig).channels };
  return {
    credentialId: c.id,
    environment: c.environment,
    ...publicFields,
    secrets: SECRET_FIELDS[provider].map((field) => ({ field, set: field in c.masked, masked: c.masked[field] ?? null })),
    verification: { status: c.verification ?? 'NOT_TESTED', code: c.verificationCode, testedAt: c.verifiedAt === null ? null : isoAt(c.verifiedAt) },
    version: c.version,
    updatedAt: isoAt(c.updatedAt),
  };
}

const archivedCount = async (db: Db, storeId: string, provider: Pg) =>
  (
    await db
      .select({ id: paymentCredentials.id })
      .from(paymentCredentials)
      .where(and(eq(paymentCredentials.storeId, storeId), eq(paymentCredentials.provider, provider), eq(paymentCredentials.status, 'ARCHIVED')))
      .all()
  ).length;

/** Display state of spec 01 §3.6: not connected, disabled, in use, excluded from payment, connection check failed. */
function displayStatus(state: ProviderState) {
  if (!state.row) return 'NOT_CONNECTED';
  if (!state.row.enabled) return 'DISABLED';
  if (state.credentials[environmentOf(state.row)]?.verification === 'FAILED') return 'CONNECTION_FAILED';
  return state.exclusion ? 'EXCLUDED' : 'IN_USE';
}

/** A payment provider of the store, connected or not (spec 01 §5.5). */
export const paymentProviderView = z
  .object({
    provider: z.enum(PROVIDERS),
    pgName: z.string(),
    connected: z.boolean(),
    status: z
      .enum(['NOT_CONNECTED', 'DISABLED', 'IN_USE', 'EXCLUDED', 'CONNECTION_FAILED'])
      .describe('Display state: EXCLUDED means enabled but not taking payments (see `routingExclusion`).'),
    enabled: z.boolean(),
    sandboxMode: z.boolean().describe('True: the TEST key set and the sandbox gateway are used.'),
    environment: environment.nullable().describe('The key set in use; null when not connected.'),
    easyPayProviders: z.array(z.enum(EASY_PAY_PROVIDERS)),
    credentialSets: z.object({ TEST: credentialSetView.nullable(), LIVE: credentialSetView.nullable() }),
    liveGate: liveGateView.nullable(),
    retiredCredentialCount: z.number().int().describe('Archived key sets, kept for refunds of the payments made with them.'),
    routingExclusion: z.enum(ROUTING_EXCLUSIONS).nullable().describe('Why the provider takes no payments; null when it does.'),
    version: z.number().int().nullable().describe('Send as `expectedVersion` with a PATCH; null when not connected.'),
    connectedAt: instant.nullable(),
  })
  .meta({ id: 'PaymentProvider' });

async function presentProvider(db: Db, storeId: string, state: ProviderState, settings: SettingsRow) {
  const row = state.row;
  return {
    provider: state.provider,
    pgName: PG_NAMES[state.provider],
    connected: row !== null,
    status: displayStatus(state),
    enabled: row?.enabled ?? false,
    sandboxMode: row?.sandboxMode ?? true,
    environment: row ? environmentOf(row) : null,
    easyPayProviders: row?.easyPayProviders ?? [],
    credentialSets: { TEST: presentCredential(state.provider, state.credentials.TEST), LIVE: presentCredential(state.provider, state.credentials.LIVE) },
    liveGate: row ? liveGate(state, settings) : null,
    retiredCredentialCount: await archivedCount(db, storeId, state.provider),
    routingExclusion: state.exclusion,
    version: row?.version ?? null,
    connectedAt: row ? isoAt(row.createdAt) : null,
  };
}

/** A repeated configuration failure (`providerWarnings`). */
const providerWarningView = z.object({
  provider: z.enum(PROVIDERS),
  method: z.enum(METHODS),
  easyPayProvider: z.enum(EASY_PAY_PROVIDERS).nullable(),
  code: z.string().describe('The latest failure code, e.g. NO_CHANNEL_FOR_METHOD.'),
  count: z.number().int().describe('Failures within the 24 hours before the latest one.'),
  lastAt: instant,
  message: z.string(),
});

/** The store's payment settings (`GET /v1/store/payment-settings`). */
export const paymentSettingsView = z.object({
  providers: z.array(paymentProviderView).describe('Connected providers in priority order, then the others.'),
  candidates: z.array(z.enum(PROVIDERS)).describe('Providers taking payments, by priority; empty when payment is impossible.'),
  environment: environment.nullable().describe('LIVE once any provider in use is live; null when no provider takes payments.'),
  priority: z.array(z.enum(PROVIDERS)),
  checkoutOrigins: z.array(z.string()).describe('Allowed payment return origins; empty: any https address.'),
  warnings: z.array(providerWarningView),
  version: z.number().int(),
});

export async function presentPaymentSettings(services: Pick<Services, 'db' | 'clock'>, storeId: string) {
  const routing = await storeRouting(services.db, storeId);
  return {
    providers: await Promise.all(routing.providers.map((p) => presentProvider(services.db, storeId, p, routing.settings))),
    candidates: routing.candidates.map((p) => p.provider),
    environment: routing.environment,
    priority: routing.settings.priority,
    checkoutOrigins: routing.settings.checkoutOrigins,
    warnings: await providerWarnings(services, storeId, services.clock.now()),
    version: routing.settings.version,
  };
}

export async function presentOneProvider(services: Pick<Services, 'db'>, storeId: string, provider: Pg) {
  const routing = await storeRouting(services.db, storeId);
  return presentProvider(
    services.db,
    storeId,
    routing.providers.find((p) => p.provider === provider)!,
    routing.settings,
  );
}
