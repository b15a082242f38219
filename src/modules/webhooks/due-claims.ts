import { and, eq, gte, lt, lte, notInArray, sql } from 'drizzle-orm';
import { claimPick } from '../../db/claim.js';
import { onPostgres, type Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { webhookDeliveries } from './schema.js';
import { PER_RECEIVER_CONCURRENCY, DEADLINE_MS } from './send.js';
import { MAX_ATTEMPTS } from './attempt-results.js';

/** Claiming due deliveries: which subscriptions have records due, and counting and leasing an attempt before its send. */

/**
 * How long a claimed attempt holds its record: the send's deadline and a little more. The result sets the
 * real retry time; only a process that died mid-send leaves the lease to lapse, and the record comes due
 * again seconds after the attempt would have ended, not after its retry delay.
 */
export const ATTEMPT_LEASE_MS = DEADLINE_MS + 5_000;

/** Placeholders naming this process's sends under way for one subscription (at most its concurrency). */
const BUSY_SLOTS = Array.from({ length: PER_RECEIVER_CONCURRENCY }, (_, i) => `busy${i}`);
/** A bound value in an update's SET (drizzle types SET values as column values, not placeholders). */
const ph = (name: string) => sql`${sql.placeholder(name)}`;

/** A claim counts the attempt and leases the record (`nextAttemptAt`) until the send's result is written. */
const claimedAttempt = {
  attemptCount: sql`${webhookDeliveries.attemptCount} + 1`,
  lastAttemptAt: ph('now'),
  nextAttemptAt: ph('nextAttemptAt'),
  updatedAt: ph('now'),
};
const claimedColumns = {
  id: webhookDeliveries.id,
  attemptCount: webhookDeliveries.attemptCount,
  eventId: webhookDeliveries.eventId,
  createdAt: webhookDeliveries.createdAt,
};

/**
 * A subscription's due records for sends about to start, earliest first: at most `limit`, passing over this
 * process's own sends still under way (`busy0…`; a manual clock can jump past their lease) and records whose
 * last attempt was started and never recorded (`exhaustedFor`).
 */
const dueToClaim = and(
  eq(webhookDeliveries.webhookId, sql.placeholder('webhookId')),
  lte(webhookDeliveries.nextAttemptAt, sql.placeholder('now')),
  lt(webhookDeliveries.attemptCount, MAX_ATTEMPTS),
  notInArray(
    webhookDeliveries.id,
    BUSY_SLOTS.map((name) => sql.placeholder(name)),
  ),
);

const statements = preparedFor((db) => ({
  // Written out to name the index: left to itself SQLite serves DISTINCT from the (webhook_id, …) index by
  // scanning every record ever kept, where the due range of (next_attempt_at, webhook_id) is all it needs.
  // PostgreSQL has no index hints (its planner picks the due index by itself).
  dueWebhooks: db.$client.prepare<[number], { webhookId: string }>(
    `SELECT DISTINCT webhook_id AS "webhookId" FROM webhook_deliveries ${onPostgres(db) ? '' : 'INDEXED BY webhook_deliveries_due '}WHERE next_attempt_at <= ?`,
  ),
  /** SQLite's pick of the records to claim (see `claimDueFor`). */
  dueFor: db
    .select(claimedColumns)
    .from(webhookDeliveries)
    .where(dueToClaim)
    .orderBy(webhookDeliveries.nextAttemptAt)
    .limit(sql.placeholder('limit'))
    .prepare(),
  /** SQLite's claim of one picked record. */
  claim: db
    .update(webhookDeliveries)
    .set(claimedAttempt)
    .where(eq(webhookDeliveries.id, sql.placeholder('id')))
    .prepare(),
  /** PostgreSQL's claim: the pick and the claim in one statement (see `claimDueFor`). */
  claimFor: db
    .update(webhookDeliveries)
    .set(claimedAttempt)
    .where(
      sql`${webhookDeliveries.id} in ${claimPick(db, db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(dueToClaim).orderBy(webhookDeliveries.nextAttemptAt).limit(sql.placeholder('limit')))}`,
    )
    .returning(claimedColumns)
    .prepare(),
  /** Due records whose last attempt was started by a process that stopped before recording it (its lease lapsed). */
  exhaustedFor: db
    .select({ id: webhookDeliveries.id, attemptCount: webhookDeliveries.attemptCount })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, sql.placeholder('webhookId')),
        lte(webhookDeliveries.nextAttemptAt, sql.placeholder('now')),
        gte(webhookDeliveries.attemptCount, MAX_ATTEMPTS),
      ),
    )
    .limit(PER_RECEIVER_CONCURRENCY)
    .prepare(),
}));

/** The subscriptions with records due at `now`. */
export async function dueWebhookIds(db: Db, now: number): Promise<string[]> {
  return (await statements(db).dueWebhooks.all(now)).map((r) => r.webhookId);
}

/** A subscription's due records whose last attempt a stopped process never recorded (see `exhaustedFor`). */
export function exhaustedFor(db: Db, webhookId: string, now: number) {
  return statements(db).exhaustedFor.all({ webhookId, now });
}

/**
 * Claims a subscription's due records for sends about to start: each attempt is counted and leased before
 * anything is sent. PostgreSQL: one statement, whose pick is `FOR UPDATE SKIP LOCKED`, so processes claiming
 * at once take different records. SQLite, the only writer, inside the pump's transaction: the pick, then each
 * record's claim by id — about two thirds of the CPU of the one-statement form there, which builds its
 * `IN (…)` list on every run.
 */
export async function claimDueFor(db: Db, webhookId: string, busy: Set<string>, now: number) {
  const q = statements(db);
  const busyIds = [...busy];
  const pick = { webhookId, now, limit: PER_RECEIVER_CONCURRENCY - busy.size, ...Object.fromEntries(BUSY_SLOTS.map((name, i) => [name, busyIds[i] ?? ''])) };
  const nextAttemptAt = now + ATTEMPT_LEASE_MS;
  if (onPostgres(db)) {
    // Returned in no set order.
    return (await q.claimFor.all({ ...pick, nextAttemptAt })).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }
  const claimed = [];
  for (const row of await q.dueFor.all(pick)) {
    await q.claim.run({ id: row.id, now, nextAttemptAt });
    claimed.push({ ...row, attemptCount: row.attemptCount + 1 });
  }
  return claimed;
}
