import { and, eq, gt, inArray, isNull, lt } from 'drizzle-orm';
import { z } from 'zod';
import { countRows, transaction, type Db } from '../../db/client.js';
import { newId, newSecret } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { sendMail } from '../../server/mail.js';
import { checkPassword, hashPassword } from './password.js';
import { invalidatePrincipals } from './principal.js';
import { accessTokens, authorizationCodes, loginSessions, passwordResets, refreshTokens, users } from './schema.js';
import { clearAttempts, releaseAttempt, reserveAttempt, type ThrottleRule } from '../../server/throttle.js';
import { defineMessages } from '../../server/messages.js';
import { instant } from '../../server/responses.js';
import { hashSecret, signToken, verifyToken } from './tokens.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export const LOGIN_ACCESS_TTL_MS = 15 * MINUTE;
export const REFRESH_TTL_MS = 30 * DAY;
export const SESSION_MAX_MS = 90 * DAY;
export const AUTH_CODE_TTL_MS = 2 * MINUTE;
export const ACCESS_TOKEN_DEFAULT_DAYS = 90;
export const ACCESS_TOKEN_MAX_DAYS = 365;
export const LIVE_ACCESS_TOKEN_LIMIT = 50;
export const FRESH_LOGIN_SECONDS = 10 * 60;
const RESET_TTL_MS = 30 * MINUTE;

defineMessages({
  LOGIN_THROTTLED: '로그인 시도가 너무 많습니다. Retry-After 이후에 다시 시도하세요.',
  PASSWORD_RESET_THROTTLED: '비밀번호 재설정 요청이 너무 많습니다. Retry-After 이후에 다시 시도하세요.',
});

/**
 * At most 10 sign-in attempts per account from one client address in 15 minutes (issue 10); the right
 * password too while that address is held. Only the guessing address is held: the owner elsewhere is not.
 */
const PAIR_LOGINS: ThrottleRule = { limit: 10, windowMs: 15 * MINUTE };
/** A wider net per client address, against guessing across many accounts. */
const ADDRESS_LOGINS: ThrottleRule = { limit: 100, windowMs: 15 * MINUTE };
/**
 * Per account from all addresses together, against guessing spread over many addresses. A short window:
 * it slows such guessing, and the owner it holds waits a minute at most — to hold them longer, a guesser
 * must bring new addresses every minute, as each is held at 10.
 */
const ACCOUNT_LOGINS: ThrottleRule = { limit: 30, windowMs: MINUTE };
/** Reset mails per e-mail address, so nobody can flood an owner's inbox. */
const RESET_MAILS: ThrottleRule = { limit: 5, windowMs: 60 * MINUTE };

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** An account as other modules see it: who it is, never its credentials. */
export interface AccountUser {
  id: string;
  email: string;
  name: string;
}

const accountUserColumns = { id: users.id, email: users.email, name: users.name };

/** The account signed up with this e-mail address (normalized here), if any. */
export async function userByEmail(db: Db, email: string): Promise<AccountUser | undefined> {
  return db
    .select(accountUserColumns)
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();
}

/** The accounts of these user ids, by id; an id with no account is absent. */
export async function usersByIds(db: Db, ids: readonly string[]): Promise<Map<string, AccountUser>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const rows = await db.select(accountUserColumns).from(users).where(inArray(users.id, wanted)).all();
  return new Map(rows.map((u) => [u.id, u]));
}

/** A new account as `POST /auth/v1/signup` answers it. */
export const newAccountSchema = z.object({ userId: z.string(), email: z.string(), name: z.string(), createdAt: instant });

export async function signup(services: Services, input: { email: string; password: string; name: string }): Promise<z.output<typeof newAccountSchema>> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const { db, clock } = services;
  return transaction(services.db, async () => {
    if (await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) throw fail(409, 'EMAIL_TAKEN');
    const now = clock.now();
    const user = { id: newId('usr', now), email, name: input.name, passwordHash, tokensValidFrom: 0, createdAt: now };
    await db.insert(users).values(user).run();
    return { userId: user.id, email: user.email, name: user.name, createdAt: new Date(now).toISOString() };
  });
}

/**
 * A password sign-in from `address`. Attempts are reserved per account and address, per address and per
 * account before the password is hashed (so concurrent guesses cannot all be evaluated); over a limit the
 * answer is 429 — for the right password too — until its window ends, and none of the three is taken. A
 * success clears its account and address's count and gives the other two their attempt back.
 */
export async function verifyCredentials(services: Services, email: string, password: string, address: string) {
  const { db, clock } = services;
  const accountKey = `login:${normalizeEmail(email)}`;
  // The address first: it has no spaces, so no other address and e-mail make the same key.
  const pairKey = `login-pair:${address} ${normalizeEmail(email)}`;
  const addressKey = `login-address:${address}`;
  await transaction(services.db, async () => {
    await reserveAttempt(db, pairKey, PAIR_LOGINS, clock.now(), 'LOGIN_THROTTLED');
    await reserveAttempt(db, addressKey, ADDRESS_LOGINS, clock.now(), 'LOGIN_THROTTLED');
    await reserveAttempt(db, accountKey, ACCOUNT_LOGINS, clock.now(), 'LOGIN_THROTTLED');
  });
  const user = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();
  // Unknown e-mail and wrong password look alike, and take alike long.
  const ok = await checkPassword(password, user?.passwordHash ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  if (!user || !ok) throw fail(401, 'INVALID_LOGIN');
  await transaction(services.db, async () => {
    await clearAttempts(db, pairKey);
    await releaseAttempt(db, addressKey);
    await releaseAttempt(db, accountKey);
  });
  return user;
}

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

export async function revokeAccessToken(services: Services, userId: string, tokenId: string) {
  const where = and(eq(accessTokens.id, tokenId), eq(accessTokens.userId, userId));
  const row = await services.db.select().from(accessTokens).where(where).get();
  if (!row) throw fail(404, 'NOT_FOUND');
  const now = services.clock.now();
  if (row.revokedAt === null) await services.db.update(accessTokens).set({ revokedAt: now }).where(where).run();
  invalidatePrincipals();
  return presentAccessToken({ ...row, revokedAt: row.revokedAt ?? now }, now);
}

export async function createAuthorizationCode(
  services: Services,
  input: { userId: string; clientId: string; redirectUri: string; codeChallenge: string; scope: string; authTime: number },
): Promise<string> {
  const code = newSecret(32);
  await services.db
    .insert(authorizationCodes)
    .values({ ...input, codeHash: hashSecret(code), expiresAt: services.clock.now() + AUTH_CODE_TTL_MS, usedAt: null })
    .run();
  return code;
}

/**
 * Codes are single use: the first exchange gets the code with the id its login session will have; a
 * replay gets only that session id, to revoke what the code already gave out. The PKCE verifier is checked
 * by the caller against `codeChallenge`.
 */
export async function takeAuthorizationCode(services: Services, code: string) {
  const now = services.clock.now();
  const codeHash = hashSecret(code);
  const taken = await services.db
    .update(authorizationCodes)
    .set({ usedAt: now, sessionId: newId('lgs', now) })
    .where(and(eq(authorizationCodes.codeHash, codeHash), isNull(authorizationCodes.usedAt), gt(authorizationCodes.expiresAt, now)))
    .returning()
    .get();
  if (taken) return { code: taken, replayedSessionId: null };
  const replayed = await services.db
    .select({ sessionId: authorizationCodes.sessionId })
    .from(authorizationCodes)
    .where(eq(authorizationCodes.codeHash, codeHash))
    .get();
  return replayed?.sessionId ? { code: null, replayedSessionId: replayed.sessionId } : null;
}

export interface AccessTokenInput {
  name: string;
  scopes: string[];
  storeScope: { all: true } | { storeIds: string[] };
  expiresInDays: number;
  agent: boolean;
  buyerDelegation: boolean;
}

export const liveAccessTokenCount = (services: Services, userId: string, now: number) =>
  countRows(services.db, accessTokens, and(eq(accessTokens.userId, userId), isNull(accessTokens.revokedAt), gt(accessTokens.expiresAt, now)));

/** The value is returned once; only its first characters are kept, to recognise it in lists. */
export async function createAccessToken(services: Services, userId: string, input: AccessTokenInput) {
  const now = services.clock.now();
  const id = newId('tok', now);
  const expiresAt = now + input.expiresInDays * DAY;
  const value = await signToken(services, { sub: userId, jti: id, typ: 'access' }, expiresAt);
  const row = {
    id,
    userId,
    name: input.name,
    scopes: input.scopes,
    storeIds: 'all' in input.storeScope ? null : input.storeScope.storeIds,
    agent: input.agent,
    buyerDelegation: input.buyerDelegation,
    valuePrefix: value.slice(-8),
    createdAt: now,
    expiresAt,
    revokedAt: null,
    lastUsedAt: null,
  };
  await transaction(services.db, async () => {
    if ((await liveAccessTokenCount(services, userId, now)) >= LIVE_ACCESS_TOKEN_LIMIT) {
      throw fail(409, 'TOKEN_LIMIT_EXCEEDED', { limit: LIVE_ACCESS_TOKEN_LIMIT });
    }
    await services.db.insert(accessTokens).values(row).run();
  });
  return { ...presentAccessToken(row, now), token: value };
}

/** An account access token as lists show it; its value appears only in the answer that created it. */
export const accessTokenSchema = z.object({
  tokenId: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  storeScope: z.union([z.object({ all: z.literal(true) }), z.object({ storeIds: z.array(z.string()) })]),
  agent: z.boolean(),
  buyerDelegation: z.boolean(),
  tokenSuffix: z.string(),
  status: z.enum(['ACTIVE', 'EXPIRED', 'REVOKED']),
  createdAt: instant,
  expiresAt: instant,
  lastUsedAt: instant.nullable(),
  revokedAt: instant.nullable(),
});
export const newAccessTokenSchema = accessTokenSchema.extend({ token: z.string() });

export function presentAccessToken(t: typeof accessTokens.$inferSelect, now: number): z.output<typeof accessTokenSchema> {
  return {
    tokenId: t.id,
    name: t.name,
    scopes: t.scopes,
    storeScope: t.storeIds === null ? { all: true } : { storeIds: t.storeIds },
    agent: t.agent,
    buyerDelegation: t.buyerDelegation,
    /** The token's last 8 characters, to tell tokens apart. */
    tokenSuffix: t.valuePrefix,
    status: t.revokedAt !== null ? 'REVOKED' : t.expiresAt <= now ? 'EXPIRED' : 'ACTIVE',
    createdAt: new Date(t.createdAt).toISOString(),
    expiresAt: new Date(t.expiresAt).toISOString(),
    lastUsedAt: t.lastUsedAt === null ? null : new Date(t.lastUsedAt).toISOString(),
    revokedAt: t.revokedAt === null ? null : new Date(t.revokedAt).toISOString(),
  };
}

export async function requestPasswordReset(services: Services, email: string) {
  // Counted per e-mail whether or not the account exists, so the limit itself probes nothing.
  await reserveAttempt(services.db, `reset:${normalizeEmail(email)}`, RESET_MAILS, services.clock.now(), 'PASSWORD_RESET_THROTTLED');
  const user = await services.db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();
  // The answer is the same whether or not the account exists, so the endpoint cannot probe e-mails.
  if (!user) return;
  const token = newSecret(32);
  const now = services.clock.now();
  await services.db
    .insert(passwordResets)
    .values({ tokenHash: hashSecret(token), userId: user.id, expiresAt: now + RESET_TTL_MS, usedAt: null })
    .run();
  await sendMail(services, {
    to: user.email,
    subject: '[svc] 비밀번호 재설정',
    body: `비밀번호를 재설정하려면 30분 안에 다음 토큰을 사용하세요.\n\nPOST ${services.urls.auth}/v1/password-reset/confirm\n{"token":"${token}","newPassword":"…"}\n\ntoken: ${token}`,
  });
}

/** A reset sets the password and revokes every login and access token of the account at once. */
export async function confirmPasswordReset(services: Services, token: string, newPassword: string) {
  const passwordHash = await hashPassword(newPassword);
  const { db, clock } = services;
  await transaction(services.db, async () => {
    const now = clock.now();
    const row = await db
      .select()
      .from(passwordResets)
      .where(eq(passwordResets.tokenHash, hashSecret(token)))
      .get();
    if (!row || row.usedAt !== null || row.expiresAt <= now) throw fail(400, 'RESET_TOKEN_INVALID');
    await db.update(passwordResets).set({ usedAt: now }).where(eq(passwordResets.tokenHash, row.tokenHash)).run();
    // Tokens carry second-resolution `iat`: the cut-off is the next whole second so none issued before survive.
    const validFrom = (Math.floor(now / 1000) + 1) * 1000;
    await db.update(users).set({ passwordHash, tokensValidFrom: validFrom }).where(eq(users.id, row.userId)).run();
    await db
      .update(loginSessions)
      .set({ revokedAt: now })
      .where(and(eq(loginSessions.userId, row.userId), isNull(loginSessions.revokedAt)))
      .run();
    await db
      .update(accessTokens)
      .set({ revokedAt: now })
      .where(and(eq(accessTokens.userId, row.userId), isNull(accessTokens.revokedAt)))
      .run();
  });
  invalidatePrincipals();
}

/** Housekeeping for the job runner: codes and refresh tokens past their end are deleted. */
export async function pruneExpiredGrants(services: Services, now: number): Promise<number> {
  return (
    (await services.db.delete(authorizationCodes).where(lt(authorizationCodes.expiresAt, now)).run()).changes +
    (await services.db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now)).run()).changes
  );
}
