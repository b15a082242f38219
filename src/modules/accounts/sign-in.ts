import { eq } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { clearAttempts, releaseAttempt, reserveAttempt, type ThrottleRule } from '../../server/throttle.js';
import { defineMessages } from '../../server/messages.js';
import { checkPassword } from './password.js';
import { users } from './schema.js';
import { normalizeEmail } from './users.js';

const MINUTE = 60_000;

defineMessages({
  LOGIN_THROTTLED: '로그인 시도가 너무 많습니다. Retry-After 이후에 다시 시도하세요.',
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
