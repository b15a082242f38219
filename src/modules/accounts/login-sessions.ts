import { and, eq, isNull, lt } from 'drizzle-orm';
import { z } from 'zod';
import { transaction } from '../../db/client.js';
import { newId, newSecret } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { instant } from '../../server/responses.js';
import { invalidatePrincipals } from './principal.js';
import { accessTokens, authorizationCodes, loginSessions, refreshTokens, users } from './schema.js';
import { hashSecret, signToken, verifyToken } from './tokens.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const LOGIN_ACCESS_TTL_MS = 15 * MINUTE;
export const REFRESH_TTL_MS = 30 * DAY;
export const SESSION_MAX_MS = 90 * DAY;

/** A login's token pair (issueLoginTokens). */
export const loginTokensSchema = z.object({
  accessToken: z.string(),
  tokenType: z.literal('Bearer'),
  /** Seconds the access token lives. */
  expiresIn: z.number().int(),
  refreshToken: z.string(),
  refreshTokenExpiresAt: instant,
  scope: z.string(),
});
export type LoginTokens = z.output<typeof loginTokensSchema>;

/** Opens a login session (one OAuth grant) and issues its first token pair. */
export async function openLoginSession(services: Services, input: { sessionId?: string; userId: string; clientId: string; scope: string; authTime: number }) {
  const now = services.clock.now();
  const session = {
    id: input.sessionId ?? newId('lgs', now),
    userId: input.userId,
    clientId: input.clientId,
    scope: input.scope,
    authTime: input.authTime,
    createdAt: now,
    maxExpiresAt: now + SESSION_MAX_MS,
    revokedAt: null,
    lastUsedAt: now,
  };
  await services.db.insert(loginSessions).values(session).run();
  return issueLoginTokens(services, session);
}

async function issueLoginTokens(services: Services, session: typeof loginSessions.$inferSelect): Promise<LoginTokens> {
  const now = services.clock.now();
  const accessExpires = Math.min(now + LOGIN_ACCESS_TTL_MS, session.maxExpiresAt);
  const refreshExpires = Math.min(now + REFRESH_TTL_MS, session.maxExpiresAt);
  const refreshToken = newSecret(32, 'svc_rt_');
  await services.db
    .insert(refreshTokens)
    .values({ tokenHash: hashSecret(refreshToken), sessionId: session.id, expiresAt: refreshExpires, usedAt: null })
    .run();
  const accessToken = await signToken(
    services,
    { sub: session.userId, jti: newId('jti', now), typ: 'login', sid: session.id, client_id: session.clientId },
    accessExpires,
  );
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresIn: Math.round((accessExpires - now) / 1000),
    refreshToken,
    refreshTokenExpiresAt: new Date(refreshExpires).toISOString(),
    scope: session.scope,
  };
}

/**
 * Refresh rotation: every refresh token works once. Presenting a used one means it leaked, so the
 * whole session is revoked (OAuth 2.1 §4.3.1).
 */
export async function refreshLogin(services: Services, refreshToken: string, clientId: string | null): Promise<LoginTokens> {
  const { db, clock } = services;
  const now = clock.now();
  const session = await transaction(services.db, async () => {
    const row = await db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, hashSecret(refreshToken)))
      .get();
    if (!row) return null;
    const s = (await db.select().from(loginSessions).where(eq(loginSessions.id, row.sessionId)).get())!;
    const user = (await db.select({ tokensValidFrom: users.tokensValidFrom }).from(users).where(eq(users.id, s.userId)).get())!;
    if (row.usedAt !== null) {
      await db.update(loginSessions).set({ revokedAt: now }).where(eq(loginSessions.id, s.id)).run();
      invalidatePrincipals();
      return null;
    }
    if (row.expiresAt <= now || s.revokedAt !== null || s.maxExpiresAt <= now || s.createdAt < user.tokensValidFrom) return null;
    if (clientId !== null && clientId !== s.clientId) return null;
    await db.update(refreshTokens).set({ usedAt: now }).where(eq(refreshTokens.tokenHash, row.tokenHash)).run();
    await db.update(loginSessions).set({ lastUsedAt: now }).where(eq(loginSessions.id, s.id)).run();
    return s;
  });
  if (!session) throw fail(400, 'invalid_grant');
  return issueLoginTokens(services, session);
}

/**
 * RFC 7009 revocation of whatever token was presented: a refresh token or a login access token ends its
 * login session (both halves), an account access token is revoked. `OTHER_CLIENT` when a client names a
 * login of another client; anything unknown or already invalid is `NONE`, which the endpoint answers 200 too.
 */
export async function revokePresentedToken(services: Services, token: string, clientId: string | null): Promise<'REVOKED' | 'NONE' | 'OTHER_CLIENT'> {
  const { db } = services;
  const refresh = await db
    .select({ sessionId: refreshTokens.sessionId })
    .from(refreshTokens)
    .where(eq(refreshTokens.tokenHash, hashSecret(token)))
    .get();
  const claims = refresh ? null : await verifyToken(services, token);
  const sessionId = refresh?.sessionId ?? (claims?.typ === 'login' ? claims.sid : undefined);
  if (sessionId) {
    const session = await db.select({ clientId: loginSessions.clientId }).from(loginSessions).where(eq(loginSessions.id, sessionId)).get();
    if (!session) return 'NONE';
    if (clientId !== null && clientId !== session.clientId) return 'OTHER_CLIENT';
    await revokeLoginSession(services, sessionId);
    return 'REVOKED';
  }
  if (claims?.typ === 'access') {
    await db
      .update(accessTokens)
      .set({ revokedAt: services.clock.now() })
      .where(and(eq(accessTokens.id, claims.jti), isNull(accessTokens.revokedAt)))
      .run();
    invalidatePrincipals();
    return 'REVOKED';
  }
  return 'NONE';
}

export async function revokeLoginSession(services: Services, sessionId: string) {
  await services.db.update(loginSessions).set({ revokedAt: services.clock.now() }).where(eq(loginSessions.id, sessionId)).run();
  invalidatePrincipals();
}

/** Housekeeping for the job runner: codes and refresh tokens past their end are deleted. */
export async function pruneExpiredGrants(services: Services, now: number): Promise<number> {
  return (
    (await services.db.delete(authorizationCodes).where(lt(authorizationCodes.expiresAt, now)).run()).changes +
    (await services.db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now)).run()).changes
  );
}
