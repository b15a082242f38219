import { and, eq, sql } from 'drizzle-orm';
import { newSecret } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import type { Principal } from '../../kernel/identity.js';
import { signToken, type TokenClaims } from '../accounts/index.js';
import { appApiCalls, appInstallations, apps } from './schema.js';

/** Installation tokens live one hour; the runtime asks for a fresh one per call. */
const INSTALLATION_TOKEN_TTL_S = 3600;

const statements = preparedFor((db) => ({
  installation: db
    .select({
      id: appInstallations.id,
      storeId: appInstallations.storeId,
      status: appInstallations.status,
      grantedScopes: appInstallations.grantedScopes,
      appId: apps.id,
      appName: apps.name,
      handle: apps.handle,
    })
    .from(appInstallations)
    .innerJoin(apps, eq(apps.id, appInstallations.appId))
    .where(eq(appInstallations.id, sql.placeholder('id')))
    .prepare(),
  countCall: db
    .insert(appApiCalls)
    .values({ installationId: sql.placeholder('installationId'), day: sql.placeholder('day'), count: 1 })
    .onConflictDoUpdate({ target: [appApiCalls.installationId, appApiCalls.day], set: { count: sql`${appApiCalls.count} + 1` } })
    .prepare(),
}));

/** A token that acts as the installation: its store only, the consented scopes only. */
export async function issueInstallationToken(services: Services, installationId: string) {
  const expiresAt = services.clock.now() + INSTALLATION_TOKEN_TTL_S * 1000;
  const claims: TokenClaims = { sub: installationId, jti: newSecret(12), typ: 'installation' };
  return { token: await signToken(services, claims, expiresAt), expiresAt };
}

/**
 * The principal of an installation token, decided from the installation's record on every request:
 * uninstalling cuts access at once, and a consent to a wider version widens it at once.
 */
export async function resolveInstallationPrincipal(services: Services, installationId: string): Promise<Principal> {
  const q = statements(services.db);
  const row = await q.installation.get({ id: installationId });
  if (!row) throw fail(401, 'UNAUTHORIZED');
  if (row.status !== 'ACTIVE') throw fail(401, 'TOKEN_REVOKED');
  await q.countCall.run({ installationId: row.id, day: new Date(services.clock.now()).toISOString().slice(0, 10) });
  return {
    kind: 'installation',
    // The installation is the grant, as the login session is for login tokens (idempotency keys, audit).
    tokenId: row.id,
    // No person acts: audit records name the app.
    userId: row.appId,
    userName: row.appName,
    email: '',
    clientId: null,
    storePlatform: false,
    scopes: new Set(row.grantedScopes),
    storeIds: [row.storeId],
    agent: false,
    buyerDelegation: false,
    authTime: null,
    actorType: 'APP',
    source: `app.${row.handle}`,
  };
}

/** API calls of the last `days` UTC days, today included. */
export async function apiCallCount(services: Services, installationId: string, days: number): Promise<number> {
  const since = new Date(services.clock.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return (await services.db
    .select({ n: sql<number>`coalesce(sum(${appApiCalls.count}), 0)` })
    .from(appApiCalls)
    .where(and(eq(appApiCalls.installationId, installationId), sql`${appApiCalls.day} >= ${since}`))
    .get())!.n;
}
