import { eq, sql } from 'drizzle-orm';
import { preparedFor } from '../../db/prepared.js';
import type { Principal } from '../../kernel/identity.js';
import { fail } from '../../server/errors.js';
import { requestHooks } from '../../server/module.js';
import type { Services } from '../../server/services.js';
import { findClient } from './clients.js';
import { accessTokens, loginSessions, users } from './schema.js';
import { verifyToken } from './tokens.js';

const RETIRED_PREFIXES = ['svc_pat_'];
/** Token kinds accounts resolves itself; other live kinds are resolved by the module that issues them. */
const OWN_KINDS = new Set(['login', 'access']);
/** Live kinds that are not for this API: buyer tokens work only in the buyer API of their store. */
const OTHER_API_KINDS = new Set(['buyer']);

const statements = preparedFor((db) => ({
  accessToken: db
    .select({ token: accessTokens, user: { id: users.id, name: users.name, email: users.email, tokensValidFrom: users.tokensValidFrom } })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .where(eq(accessTokens.id, sql.placeholder('id')))
    .prepare(),
  loginSession: db
    .select({ session: loginSessions, user: { id: users.id, name: users.name, email: users.email, tokensValidFrom: users.tokensValidFrom } })
    .from(loginSessions)
    .innerJoin(users, eq(users.id, loginSessions.userId))
    .where(eq(loginSessions.id, sql.placeholder('id')))
    .prepare(),
  touchAccessToken: db
    .update(accessTokens)
    .set({ lastUsedAt: sql`${sql.placeholder('now')}` })
    .where(eq(accessTokens.id, sql.placeholder('id')))
    .prepare(),
  touchLoginSession: db
    .update(loginSessions)
    .set({ lastUsedAt: sql`${sql.placeholder('now')}` })
    .where(eq(loginSessions.id, sql.placeholder('id')))
    .prepare(),
}));

/** Last-use times are written at most once a minute per token: a write per request would cost the hot path. */
const lastTouched = new Map<string, number>();

/**
 * Resolved principals are remembered briefly, for the exact `Authorization` value. Every revocation in this
 * process (token revoked, logout, password reset, refresh reuse) bumps `revocations` and so drops them all
 * at once; the short lifetime bounds what another process of a deployment could miss ("within seconds").
 * The map is keyed by the value's tail (the signature's end) and the whole value compared on a hit:
 * hashing the whole 600-character header was a tenth of a cached request.
 */
const PRINCIPAL_CACHE_MS = 2000;
const PRINCIPAL_CACHE_LIMIT = 20_000;
const principals = new Map<string, { authorization: string; principal: Principal; revocations: number; cachedAt: number; expiresAt: number }>();
const cacheKey = (authorization: string) => authorization.slice(-32);
let revocations = 0;

export function invalidatePrincipals() {
  revocations++;
}

export function bearerToken(authorization: string | null): string | null {
  if (!authorization || authorization.length < 8 || authorization.slice(0, 7).toLowerCase() !== 'bearer ') return null;
  const token = authorization.slice(7).trim();
  return token === '' || /\s/.test(token) ? null : token;
}

/** Resolves `Authorization: Bearer …` to a principal or throws the 401 of spec 01 §7. */
export function authenticate(services: Services, authorization: string | null): Principal | Promise<Principal> {
  const now = services.clock.now();
  const cached = authorization === null ? undefined : principals.get(cacheKey(authorization));
  // A cached principal is answered synchronously: no promise on the hot path.
  if (
    cached &&
    cached.authorization === authorization &&
    cached.revocations === revocations &&
    cached.cachedAt > now - PRINCIPAL_CACHE_MS &&
    cached.expiresAt > now
  ) {
    return cached.principal;
  }
  const token = bearerToken(authorization);
  if (!token) throw fail(401, 'UNAUTHORIZED');
  return resolveAndRemember(services, authorization!, token, now);
}

async function resolveAndRemember(services: Services, authorization: string, token: string, now: number): Promise<Principal> {
  // Counted before the records are read: a revocation while they are read leaves the answer uncached.
  const seen = revocations;
  const { principal, expiresAt } = await resolvePrincipal(services, token, now);
  // Installation tokens are checked on every request: uninstalling must cut an app off at once.
  if (principal.kind === 'installation') return principal;
  if (principals.size >= PRINCIPAL_CACHE_LIMIT) principals.clear();
  principals.set(cacheKey(authorization), { authorization, principal, revocations: seen, cachedAt: now, expiresAt });
  return principal;
}

async function resolvePrincipal(services: Services, token: string, now: number): Promise<{ principal: Principal; expiresAt: number }> {
  if (RETIRED_PREFIXES.some((p) => token.startsWith(p))) throw fail(401, 'TOKEN_TYPE_RETIRED');
  const claims = await verifyToken(services, token);
  if (!claims) throw fail(401, 'UNAUTHORIZED');
  if (OTHER_API_KINDS.has(claims.typ)) throw fail(401, 'UNAUTHORIZED');
  const ofOtherModule = requestHooks(services.modules).tokenPrincipals.get(claims.typ);
  if (!ofOtherModule && !OWN_KINDS.has(claims.typ)) throw fail(401, 'TOKEN_TYPE_RETIRED');

  const tokenExpiresAt = claims.exp === undefined ? Infinity : claims.exp * 1000;
  if (tokenExpiresAt <= now) throw fail(401, 'UNAUTHORIZED');
  if (ofOtherModule) return { principal: await ofOtherModule(services, claims.sub), expiresAt: tokenExpiresAt };
  const resolved =
    claims.typ === 'access'
      ? await accessTokenPrincipal(services, claims.jti, now)
      : await loginSessionPrincipal(services, claims.sid ?? '', (claims.iat ?? 0) * 1000);
  if (resolved.principal.userId !== claims.sub) throw fail(401, 'UNAUTHORIZED');
  return { principal: resolved.principal, expiresAt: Math.min(tokenExpiresAt, resolved.expiresAt) };
}

/**
 * The principal behind a token record, without the token string: approved requests run later with
 * the requester's permission as it is then (a revoked token or ended login gives 401).
 */
export async function principalOfRecord(services: Services, kind: 'login' | 'access', tokenId: string): Promise<Principal> {
  const now = services.clock.now();
  return kind === 'access' ? (await accessTokenPrincipal(services, tokenId, now)).principal : (await loginSessionPrincipal(services, tokenId, now)).principal;
}

async function accessTokenPrincipal(services: Services, tokenId: string, now: number): Promise<{ principal: Principal; expiresAt: number }> {
  const q = statements(services.db);
  const row = await q.accessToken.get({ id: tokenId });
  if (!row) throw fail(401, 'UNAUTHORIZED');
  const { token: t, user } = row;
  if (t.revokedAt !== null || t.createdAt < user.tokensValidFrom) throw fail(401, 'TOKEN_REVOKED');
  if (t.expiresAt <= now) throw fail(401, 'UNAUTHORIZED');
  if ((lastTouched.get(t.id) ?? 0) < now - 60_000) {
    lastTouched.set(t.id, now);
    await q.touchAccessToken.run({ id: t.id, now });
  }
  const principal: Principal = {
    kind: 'access',
    tokenId: t.id,
    userId: user.id,
    userName: user.name,
    email: user.email,
    clientId: null,
    storePlatform: false,
    scopes: new Set(t.scopes),
    storeIds: t.storeIds,
    agent: t.agent,
    buyerDelegation: t.buyerDelegation,
    authTime: null,
    actorType: t.agent ? 'AGENT' : 'USER',
    source: 'API',
  };
  return { principal, expiresAt: t.expiresAt };
}

/** `issuedAt`: when the presented token was issued; tokens from before a password reset are revoked. */
async function loginSessionPrincipal(services: Services, sessionId: string, issuedAt: number): Promise<{ principal: Principal; expiresAt: number }> {
  const q = statements(services.db);
  const row = await q.loginSession.get({ id: sessionId });
  if (!row) throw fail(401, 'UNAUTHORIZED');
  const { session, user } = row;
  if (session.revokedAt !== null || issuedAt < user.tokensValidFrom) throw fail(401, 'TOKEN_REVOKED');
  const now = services.clock.now();
  if ((lastTouched.get(session.id) ?? session.lastUsedAt ?? 0) < now - 60_000) {
    lastTouched.set(session.id, now);
    await q.touchLoginSession.run({ id: session.id, now });
  }
  const client = await findClient(services.db, session.clientId);
  const firstParty = client?.firstParty ?? false;
  const agent = client?.agent ?? false;
  const principal: Principal = {
    kind: 'login',
    tokenId: session.id,
    userId: user.id,
    userName: user.name,
    email: user.email,
    clientId: session.clientId,
    storePlatform: firstParty,
    scopes: session.scope === '*' ? null : new Set(session.scope.split(' ').filter(Boolean)),
    storeIds: null,
    agent,
    buyerDelegation: firstParty,
    authTime: session.authTime,
    actorType: agent ? 'AGENT' : firstParty ? 'USER' : 'APP',
    source: agent ? 'MCP' : session.clientId === 'svc-cli' ? 'CLI' : firstParty ? 'STORE_PLATFORM' : session.clientId,
  };
  return { principal, expiresAt: session.maxExpiresAt };
}
