import { and, eq } from 'drizzle-orm';
import { isoAt } from '../../db/clock.js';
import type { Db } from '../../db/client.js';
import type { Services } from '../../server/services.js';
import type { Pg } from './gateway.js';
import { providerWarnings } from './records.js';
import { PG_NAMES, environmentOf, storeRouting, type CredentialRow, type ProviderState, type SettingsRow } from './routing.js';
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

function credentialView(provider: Pg, c: CredentialRow | undefined) {
  if (!c) return null;
  const publicFields = provider === 'pg_one'
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

const archivedCount = (db: Db, storeId: string, provider: Pg) =>
  db.select({ id: paymentCredentials.id }).from(paymentCredentials)
    .where(and(eq(paymentCredentials.storeId, storeId), eq(paymentCredentials.provider, provider), eq(paymentCredentials.status, 'ARCHIVED')))
    .all().length;

/** Display state of spec 01 §3.6: not connected, disabled, in use, excluded from payment, connection check failed. */
function displayStatus(state: ProviderState) {
  if (!state.row) return 'NOT_CONNECTED';
  if (!state.row.enabled) return 'DISABLED';
  if (state.credentials[environmentOf(state.row)]?.verification === 'FAILED') return 'CONNECTION_FAILED';
  return state.exclusion ? 'EXCLUDED' : 'IN_USE';
}

function providerView(db: Db, storeId: string, state: ProviderState, settings: SettingsRow) {
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
    credentialSets: { TEST: credentialView(state.provider, state.credentials.TEST), LIVE: credentialView(state.provider, state.credentials.LIVE) },
    liveGate: row ? liveGate(state, settings) : null,
    retiredCredentialCount: archivedCount(db, storeId, state.provider),
    routingExclusion: state.exclusion,
    version: row?.version ?? null,
    connectedAt: row ? isoAt(row.createdAt) : null,
  };
}

export function settingsView(services: Pick<Services, 'db' | 'clock'>, storeId: string) {
  const routing = storeRouting(services.db, storeId);
  return {
    providers: routing.providers.map((p) => providerView(services.db, storeId, p, routing.settings)),
    candidates: routing.candidates.map((p) => p.provider),
    environment: routing.environment,
    priority: routing.settings.priority,
    checkoutOrigins: routing.settings.checkoutOrigins,
    warnings: providerWarnings(services, storeId, services.clock.now()),
    version: routing.settings.version,
  };
}

export function oneProviderView(services: Pick<Services, 'db'>, storeId: string, provider: Pg) {
  const routing = storeRouting(services.db, storeId);
  return providerView(services.db, storeId, routing.providers.find((p) => p.provider === provider)!, routing.settings);
}

