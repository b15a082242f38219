import { eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { instant } from '../../server/responses.js';
import { hashPassword } from './password.js';
import { users } from './schema.js';

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
  return createAccount(services, { email: input.email, name: input.name, passwordHash: await hashPassword(input.password) });
}

/** A new account whose password's hash is made already (the seeded dev account's, see src/server/seed.ts). */
export async function createAccount(
  services: Services,
  input: { email: string; passwordHash: string; name: string },
): Promise<z.output<typeof newAccountSchema>> {
  const email = normalizeEmail(input.email);
  const { passwordHash } = input;
  const { db, clock } = services;
  return transaction(services.db, async () => {
    if (await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) throw fail(409, 'EMAIL_TAKEN');
    const now = clock.now();
    const user = { id: newId('usr', now), email, name: input.name, passwordHash, tokensValidFrom: 0, createdAt: now };
    await db.insert(users).values(user).run();
    return { userId: user.id, email: user.email, name: user.name, createdAt: new Date(now).toISOString() };
  });
}
