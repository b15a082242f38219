import { and, eq, gt, isNull } from 'drizzle-orm';
import { newId, newSecret } from '../../db/ids.js';
import type { Services } from '../../server/services.js';
import { authorizationCodes } from './schema.js';
import { hashSecret } from './tokens.js';

const MINUTE = 60_000;

export const AUTH_CODE_TTL_MS = 2 * MINUTE;

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
