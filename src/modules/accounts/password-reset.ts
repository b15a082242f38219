import { and, eq, isNull } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import { newSecret } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { sendMail } from '../../server/mail.js';
import { reserveAttempt, type ThrottleRule } from '../../server/throttle.js';
import { defineMessages } from '../../server/messages.js';
import { hashPassword } from './password.js';
import { invalidatePrincipals } from './principal.js';
import { accessTokens, loginSessions, passwordResets, users } from './schema.js';
import { hashSecret } from './tokens.js';
import { normalizeEmail } from './users.js';

const MINUTE = 60_000;
const RESET_TTL_MS = 30 * MINUTE;

defineMessages({
  PASSWORD_RESET_THROTTLED: '비밀번호 재설정 요청이 너무 많습니다. Retry-After 이후에 다시 시도하세요.',
});

/** Reset mails per e-mail address, so nobody can flood an owner's inbox. */
const RESET_MAILS: ThrottleRule = { limit: 5, windowMs: 60 * MINUTE };

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
