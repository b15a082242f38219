import { and, eq, gt, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { countRows, transaction } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { instant } from '../../server/responses.js';
import { invalidatePrincipals } from './principal.js';
import { accessTokens } from './schema.js';
import { signToken } from './tokens.js';

const DAY = 24 * 60 * 60_000;

export const ACCESS_TOKEN_DEFAULT_DAYS = 90;
export const ACCESS_TOKEN_MAX_DAYS = 365;
export const LIVE_ACCESS_TOKEN_LIMIT = 50;
export const FRESH_LOGIN_SECONDS = 10 * 60;

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

export async function revokeAccessToken(services: Services, userId: string, tokenId: string) {
  const where = and(eq(accessTokens.id, tokenId), eq(accessTokens.userId, userId));
  const row = await services.db.select().from(accessTokens).where(where).get();
  if (!row) throw fail(404, 'NOT_FOUND');
  const now = services.clock.now();
  if (row.revokedAt === null) await services.db.update(accessTokens).set({ revokedAt: now }).where(where).run();
  invalidatePrincipals();
  return presentAccessToken({ ...row, revokedAt: row.revokedAt ?? now }, now);
}
