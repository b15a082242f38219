import { and, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { placeholderValue, preparedFor } from '../db/prepared.js';
import { fail } from './errors.js';
import { idempotencyKeys } from './schema.js';

/**
 * How long a request may hold its `Idempotency-Key` while it runs. A process killed mid-request never
 * settles its key; once the lease lapses a retry under the key runs (nothing of the first run was
 * committed with its answer) instead of being told `IDEMPOTENCY_KEY_IN_USE` forever.
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;

export interface Remembered {
  status: number;
  body: string;
}

const scopedKey = and(eq(idempotencyKeys.tokenId, sql.placeholder('scope')), eq(idempotencyKeys.key, sql.placeholder('key')));

const q = preparedFor((db) => ({
  /** A new key, or a lapsed claim of the same request taken over: one guarded statement. */
  claim: db
    .insert(idempotencyKeys)
    .values({
      tokenId: sql.placeholder('scope'),
      key: sql.placeholder('key'),
      fingerprint: sql.placeholder('fingerprint'),
      state: 'IN_PROGRESS',
      status: null,
      body: null,
      createdAt: sql.placeholder('now'),
      leaseExpiresAt: sql.placeholder('leaseExpiresAt'),
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.tokenId, idempotencyKeys.key],
      set: { leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAt')}` },
      setWhere: and(
        eq(idempotencyKeys.state, 'IN_PROGRESS'),
        lte(idempotencyKeys.leaseExpiresAt, sql.placeholder('now')),
        eq(idempotencyKeys.fingerprint, sql.placeholder('fingerprint')),
      ),
    })
    .returning({ key: idempotencyKeys.key })
    .prepare(),
  row: db.select().from(idempotencyKeys).where(scopedKey).prepare(),
  settle: db
    .update(idempotencyKeys)
    .set({ state: 'DONE', status: placeholderValue('status'), body: placeholderValue('body') })
    .where(scopedKey)
    .prepare(),
  forget: db.delete(idempotencyKeys).where(scopedKey).prepare(),
}));

/**
 * Claims `key` in `scope` (a token, or a buyer's sheet or payment) for a request with `fingerprint`: null when
 * this request is to run, the first answer when one is remembered; 409 IDEMPOTENCY_KEY_REUSED for another
 * request under the key, 409 IDEMPOTENCY_KEY_IN_USE while the first still holds it.
 */
export async function claimIdempotencyKey(db: Db, scope: string, key: string, fingerprint: string, now: number): Promise<Remembered | null> {
  if (await q(db).claim.get({ scope, key, fingerprint, now, leaseExpiresAt: now + IDEMPOTENCY_LEASE_MS })) return null;
  const row = (await q(db).row.get({ scope, key }))!;
  if (row.fingerprint !== fingerprint) throw fail(409, 'IDEMPOTENCY_KEY_REUSED');
  if (row.state === 'IN_PROGRESS') throw fail(409, 'IDEMPOTENCY_KEY_IN_USE');
  return { status: row.status!, body: row.body! };
}

/** The request's answer, remembered for replays; server faults (5xx) are forgotten so they can be retried. */
export async function settleIdempotencyKey(db: Db, scope: string, key: string, answer: Remembered) {
  if (answer.status >= 500) await q(db).forget.run({ scope, key });
  else await q(db).settle.run({ scope, key, status: answer.status, body: answer.body });
}
