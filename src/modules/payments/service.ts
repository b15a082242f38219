import { and, eq } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { StoreCtx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { credentialSecrets, verifyKeys } from './adapters.js';
import { maskSecret, sealSecrets } from './crypto.js';
import type { EasyPayProvider, Environment, Pg } from './gateway.js';
import { defaultSettings, environmentOf, readSettings, storeRouting, type CredentialRow, type ProviderRow } from './routing.js';
import { paymentCredentials, paymentProviders, paymentSettings, type PublicConfig, type SecretFields } from './schema.js';
import { liveGate, presentOneProvider, presentPaymentSettings } from './settings.js';

type Db = Services['db'];

export const findProvider = async (db: Db, storeId: string, provider: Pg): Promise<ProviderRow | undefined> =>
  await db
    .select()
    .from(paymentProviders)
    .where(and(eq(paymentProviders.storeId, storeId), eq(paymentProviders.provider, provider)))
    .get();

export const activeCredential = async (db: Db, storeId: string, provider: Pg, environment: Environment): Promise<CredentialRow | undefined> =>
  await db
    .select()
    .from(paymentCredentials)
    .where(
      and(
        eq(paymentCredentials.storeId, storeId),
        eq(paymentCredentials.provider, provider),
        eq(paymentCredentials.environment, environment),
        eq(paymentCredentials.status, 'ACTIVE'),
      ),
    )
    .get();

async function requireProvider(db: Db, storeId: string, provider: Pg): Promise<ProviderRow> {
  const row = await findProvider(db, storeId, provider);
  if (!row) throw fail(404, 'PAYMENT_PROVIDER_NOT_FOUND', { provider });
  return row;
}

async function writeSettings(db: Db, storeId: string, now: number, change: Partial<typeof paymentSettings.$inferInsert>) {
  const current = await readSettings(db, storeId, now);
  const next = { ...current, ...change, version: current.version + 1, updatedAt: now };
  await db.insert(paymentSettings).values(next).onConflictDoUpdate({ target: paymentSettings.storeId, set: next }).run();
}

/**
 * A key set as the request would leave it, checked against the provider's format rules by the
 * caller: public settings replace stored ones field by field, omitted secrets keep their stored value,
 * `webhookSecret: null` erases it. Another merchant starts a fresh set (the old one is archived).
 */
export interface KeyDraft {
  environment: Environment;
  merchant: string | null;
  publicConfig: Partial<PublicConfig>;
  secrets: Record<string, string | null | undefined>;
}

export interface PreparedKeys {
  provider: ProviderRow | undefined;
  existing: CredentialRow | undefined;
  merchantChange: boolean;
  publicConfig: PublicConfig;
  secrets: SecretFields;
}

const REQUIRED_SECRET: Record<Pg, string> = { pg_one: 'secretKey', pg_two: 'apiSecret' };

async function prepareKeys(
  services: Services,
  storeId: string,
  pg: Pg,
  draft: KeyDraft,
  required: string[],
  expectedVersion: number | undefined,
): Promise<PreparedKeys> {
  const { db } = services;
  const provider = await findProvider(db, storeId, pg);
  const existing = await activeCredential(db, storeId, pg, draft.environment);
  if (expectedVersion !== undefined && expectedVersion !== (existing?.version ?? 0)) {
    throw fail(409, 'PAYMENT_CREDENTIAL_CHANGED', { provider: pg, environment: draft.environment, version: existing?.version ?? 0 });
  }
  const merchantChange = !!existing && draft.merchant !== null && draft.merchant !== existing.merchant;
  const base = existing && !merchantChange ? existing : undefined;
  const publicConfig = { ...base?.publicConfig, ...draft.publicConfig } as PublicConfig;
  const secrets: SecretFields = base ? { ...credentialSecrets(services, base) } : {};
  for (const [field, value] of Object.entries(draft.secrets)) {
    if (value === null) delete secrets[field];
    else if (value !== undefined) secrets[field] = value;
  }
  // First registration (also of another merchant) needs every key; later edits may send only changes.
  const missing = [...required.filter((f) => !(f in publicConfig)), ...(secrets[REQUIRED_SECRET[pg]] ? [] : [REQUIRED_SECRET[pg]])];
  if (missing.length) throw fail(400, 'PAYMENT_PROVIDER_INCOMPLETE', { provider: pg, environment: draft.environment, missing });
  return { provider, existing, merchantChange, publicConfig, secrets };
}

/**
 * `PUT /store/payment-providers/{pg}`. While the provider is live, a live key set is first tested
 * against the gateway and refused on failure; the save then re-checks that nothing changed meanwhile.
 */
export async function saveKeys(ctx: StoreCtx, pg: Pg, draft: KeyDraft, required: string[], expectedVersion: number | undefined) {
  const { services } = ctx;
  const storeId = ctx.store.id;
  const prepared = await prepareKeys(services, storeId, pg, draft, required, expectedVersion);
  let verified: { at: number } | null = null;
  if (draft.environment === 'LIVE' && prepared.provider && !prepared.provider.sandboxMode) {
    const check = await verifyKeys(services, pg, { environment: 'LIVE', publicConfig: prepared.publicConfig }, prepared.secrets);
    if (!check.ok)
      throw fail(409, 'PAYMENT_PROVIDER_VERIFICATION_FAILED', { provider: pg, environment: 'LIVE', gatewayCode: check.code, gatewayMessage: check.message });
    verified = { at: services.clock.now() };
  }
  return transaction(services.db, async () => {
    const { db } = services;
    const now = services.clock.now();
    const currentProvider = await findProvider(db, storeId, pg);
    if (currentProvider?.id !== prepared.provider?.id || currentProvider?.version !== prepared.provider?.version)
      throw fail(409, 'PAYMENT_PROVIDER_CHANGED', { provider: pg });
    const current = await activeCredential(db, storeId, pg, draft.environment);
    if (current?.id !== prepared.existing?.id || current?.version !== prepared.existing?.version) {
      throw fail(409, 'PAYMENT_CREDENTIAL_CHANGED', { provider: pg, environment: draft.environment });
    }
    if (!currentProvider) await connectProvider(services, storeId, pg, now);
    if (prepared.merchantChange) {
      await db.update(paymentCredentials).set({ status: 'ARCHIVED', archivedAt: now, updatedAt: now }).where(eq(paymentCredentials.id, current!.id)).run();
    }
    await storeKeySet(
      services,
      storeId,
      pg,
      draft.environment,
      prepared.merchantChange ? undefined : current,
      prepared.publicConfig,
      prepared.secrets,
      verified?.at ?? null,
    );
    return presentOneProvider(services, storeId, pg);
  });
}

/** A newly connected provider starts disabled, in sandbox mode (spec 01 §5.5), last in priority. */
async function connectProvider(services: Services, storeId: string, pg: Pg, now: number, enabled = false) {
  await services.db
    .insert(paymentProviders)
    .values({
      id: newId('pgp', now),
      storeId,
      provider: pg,
      enabled,
      sandboxMode: true,
      easyPayProviders: [],
      sandboxPaymentAt: null,
      sandboxRefundAt: null,
      liveSwitchedAt: null,
      version: 1,
      createdAt: now,
      updatedAt: now,
    })
    .run();
  const settings = await readSettings(services.db, storeId, now);
  await writeSettings(services.db, storeId, now, { priority: [...settings.priority.filter((p) => p !== pg), pg] });
}

/**
 * Writes a key set: over `current` (same merchant) or as a new active set. Editing a key erases its
 * test result, unless the keys were tested just now (`verifiedAt`, the live pre-check).
 */
async function storeKeySet(
  services: Services,
  storeId: string,
  pg: Pg,
  environment: Environment,
  current: CredentialRow | undefined,
  publicConfig: PublicConfig,
  secrets: SecretFields,
  verifiedAt: number | null,
) {
  const now = services.clock.now();
  const id = current?.id ?? newId('pgc', now);
  const values = {
    publicConfig,
    merchant: merchantOf(pg, publicConfig),
    secrets: sealSecrets(services, id, secrets),
    masked: Object.fromEntries(Object.entries(secrets).map(([f, v]) => [f, maskSecret(v)])),
    verification: verifiedAt === null ? null : ('PASSED' as const),
    verificationCode: null,
    verifiedAt,
    updatedAt: now,
  };
  if (current) {
    await services.db
      .update(paymentCredentials)
      .set({ ...values, version: current.version + 1 })
      .where(eq(paymentCredentials.id, id))
      .run();
  } else {
    await services.db
      .insert(paymentCredentials)
      .values({ id, storeId, provider: pg, environment, status: 'ACTIVE', version: 1, archivedAt: null, createdAt: now, ...values })
      .run();
  }
}

/**
 * The seeded dev store takes sandbox payments from its first start (pg_one, test keys, enabled), so
 * `svc checkout try` works with no set-up; test keys only ever reach the simulator.
 */
export async function seedSandboxProvider(services: Services, storeId: string) {
  await connectProvider(services, storeId, 'pg_one', services.clock.now(), true);
  await storeKeySet(
    services,
    storeId,
    'pg_one',
    'TEST',
    undefined,
    { clientKey: 'test_ck_svcDevStoreSandbox0001' },
    { secretKey: 'test_sk_svcDevStoreSandbox0001' },
    null,
  );
}

export const merchantOf = (pg: Pg, config: PublicConfig) =>
  pg === 'pg_one' ? (config as { clientKey: string }).clientKey : (config as { storeId: string }).storeId;

/** The merchant a key set belongs to, for payment records (spec 01 §5.4 "merchant is shown"); null for none. */
export const merchantOfCredential = async (db: Db, credentialId: string | null): Promise<string | null> =>
  credentialId === null
    ? null
    : ((await db.select({ merchant: paymentCredentials.merchant }).from(paymentCredentials).where(eq(paymentCredentials.id, credentialId)).get())?.merchant ??
      null);

export interface ProviderPatch {
  enabled?: boolean;
  sandboxMode?: boolean;
  easyPayProviders?: EasyPayProvider[];
  expectedVersion?: number;
}

/** `PATCH /store/payment-providers/{pg}`: switching to live needs the gate open; enabling needs a usable key. */
export async function patchProvider(ctx: StoreCtx, pg: Pg, patch: ProviderPatch) {
  const { db, now } = ctx;
  const storeId = ctx.store.id;
  const row = await requireProvider(db, storeId, pg);
  if (patch.expectedVersion !== undefined && patch.expectedVersion !== row.version) {
    throw fail(409, 'PAYMENT_PROVIDER_CHANGED', { provider: pg, version: row.version });
  }
  const goingLive = patch.sandboxMode === false && row.sandboxMode;
  if (goingLive) {
    const routing = await storeRouting(db, storeId);
    const gate = liveGate(
      routing.providers.find((p) => p.provider === pg)!,
      routing.settings,
    );
    if (gate.status !== 'OPEN') {
      const onlyPlatform = gate.conditions.every((c) => c.met || c.code === 'PLATFORM_LIVE_ENABLED');
      throw fail(409, onlyPlatform ? 'LIVE_PAYMENTS_DISABLED' : 'LIVE_GATE_NOT_MET', { provider: pg, conditions: gate.conditions });
    }
  }
  const next = {
    enabled: patch.enabled ?? row.enabled,
    sandboxMode: patch.sandboxMode ?? row.sandboxMode,
    easyPayProviders: patch.easyPayProviders ?? row.easyPayProviders,
  };
  if (patch.enabled === true && !(await activeCredential(db, storeId, pg, environmentOf(next)))) {
    throw fail(409, 'PAYMENT_PROVIDER_INCOMPLETE', { provider: pg, environment: environmentOf(next) });
  }
  await db
    .update(paymentProviders)
    .set({ ...next, version: row.version + 1, updatedAt: now, ...(goingLive ? { liveSwitchedAt: now } : {}) })
    .where(eq(paymentProviders.id, row.id))
    .run();
  return presentOneProvider(ctx.services, storeId, pg);
}

/** `POST …/verify`: a connection test of one key set; the result is kept on the set until it is edited. */
export async function verifyProvider(ctx: StoreCtx, pg: Pg, environment: Environment | undefined) {
  const { services } = ctx;
  const storeId = ctx.store.id;
  const row = await requireProvider(services.db, storeId, pg);
  const env = environment ?? environmentOf(row);
  const credential = await activeCredential(services.db, storeId, pg, env);
  if (!credential) throw fail(404, 'PAYMENT_CREDENTIAL_NOT_FOUND', { provider: pg, environment: env });
  const result = await verifyKeys(services, pg, credential, credentialSecrets(services, credential));
  return transaction(services.db, async () => {
    const now = services.clock.now();
    const current = await activeCredential(services.db, storeId, pg, env);
    if (current?.id !== credential.id || current.version !== credential.version) {
      throw fail(409, 'PAYMENT_CREDENTIAL_CHANGED', { provider: pg, environment: env });
    }
    await services.db
      .update(paymentCredentials)
      .set({ verification: result.ok ? 'PASSED' : 'FAILED', verificationCode: result.ok ? null : result.code, verifiedAt: now })
      .where(eq(paymentCredentials.id, credential.id))
      .run();
    return {
      environment: env,
      result: result.ok ? { status: 'PASSED', code: null, message: null } : { status: 'FAILED', code: result.code, message: result.message },
      provider: await presentOneProvider(services, storeId, pg),
    };
  });
}

/** `DELETE …/credentials/{environment}`: archives a key set that is not in use. */
export async function deleteCredentials(ctx: StoreCtx, pg: Pg, environment: Environment) {
  const storeId = ctx.store.id;
  const row = await requireProvider(ctx.db, storeId, pg);
  const credential = await activeCredential(ctx.db, storeId, pg, environment);
  if (!credential) throw fail(404, 'PAYMENT_CREDENTIAL_NOT_FOUND', { provider: pg, environment });
  if (row.enabled && environmentOf(row) === environment) throw fail(409, 'PAYMENT_CREDENTIAL_ACTIVE', { provider: pg, environment });
  await ctx.db
    .update(paymentCredentials)
    .set({ status: 'ARCHIVED', archivedAt: ctx.now, updatedAt: ctx.now })
    .where(eq(paymentCredentials.id, credential.id))
    .run();
  return presentOneProvider(ctx.services, storeId, pg);
}

/** `DELETE /store/payment-providers/{pg}`: every key set archived, the provider leaves the priority. */
export async function disconnectProvider(ctx: StoreCtx, pg: Pg) {
  const storeId = ctx.store.id;
  const row = await requireProvider(ctx.db, storeId, pg);
  await ctx.db
    .update(paymentCredentials)
    .set({ status: 'ARCHIVED', archivedAt: ctx.now, updatedAt: ctx.now })
    .where(and(eq(paymentCredentials.storeId, storeId), eq(paymentCredentials.provider, pg), eq(paymentCredentials.status, 'ACTIVE')))
    .run();
  await ctx.db.delete(paymentProviders).where(eq(paymentProviders.id, row.id)).run();
  await writeSettings(ctx.db, storeId, ctx.now, { priority: (await readSettings(ctx.db, storeId)).priority.filter((p) => p !== pg) });
  return presentOneProvider(ctx.services, storeId, pg);
}

/** `PUT /store/payment-settings`: only sent items change; `priority` names every connected provider once. */
export async function updateSettings(ctx: StoreCtx, body: { priority?: Pg[]; checkoutOrigins?: string[] }) {
  const storeId = ctx.store.id;
  if (body.priority) {
    const connected = (await storeRouting(ctx.db, storeId)).providers.filter((p) => p.row).map((p) => p.provider);
    const exact =
      body.priority.length === connected.length && new Set(body.priority).size === body.priority.length && connected.every((p) => body.priority!.includes(p));
    if (!exact) throw fail(400, 'INVALID_PRIORITY', { connected });
  }
  await writeSettings(ctx.db, storeId, ctx.now, {
    ...(body.priority ? { priority: body.priority } : {}),
    ...(body.checkoutOrigins ? { checkoutOrigins: [...new Set(body.checkoutOrigins)] } : {}),
  });
  return presentPaymentSettings(ctx.services, storeId);
}

/** The platform's live permission (condition PLATFORM_LIVE_ENABLED); under `svc dev` a /_dev route sets it. */
export async function setPlatformLive(services: Services, storeId: string, enabled: boolean) {
  const now = services.clock.now();
  await transaction(services.db, async () => {
    const current = (await services.db.select().from(paymentSettings).where(eq(paymentSettings.storeId, storeId)).get()) ?? defaultSettings(storeId, now);
    const next = { ...current, platformLiveEnabled: enabled, updatedAt: now };
    await services.db.insert(paymentSettings).values(next).onConflictDoUpdate({ target: paymentSettings.storeId, set: next }).run();
  });
}
