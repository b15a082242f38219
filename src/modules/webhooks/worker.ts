import { and, eq, gte, inArray, isNotNull, lt, lte, notInArray, sql } from 'drizzle-orm';
import { claimingBatch, claimPick } from '../../db/claim.js';
import { onPostgres, transaction, type Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import type { Job } from '../../server/jobs.js';
import type { Services } from '../../server/services.js';
import { deleteEventsCreatedBefore, eventBus, eventForDelivery, eventPayload } from '../events/index.js';
import { webhookDeliveries, webhooks } from './schema.js';
import { ERROR_CODE, PER_RECEIVER_CONCURRENCY, sendOnce, storedPayload, DEADLINE_MS, type AttemptResult } from './send.js';
import { signatureHeader } from '../../kernel/webhook-signature.js';

export const MAX_ATTEMPTS = 5;
/** Pause after attempt n (1-based) before attempt n+1 (spec 01 §6.4). */
const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000];
/**
 * How long a claimed attempt holds its record: the send's deadline and a little more. The result sets the
 * real retry time; only a process that died mid-send leaves the lease to lapse, and the record comes due
 * again seconds after the attempt would have ended, not after its retry delay.
 */
export const ATTEMPT_LEASE_MS = DEADLINE_MS + 5_000;
const SUSPEND_AFTER_MS = 24 * 3600_000;
const QUIET_RESET_MS = 3 * 3600_000;
const RECORDS_KEPT_MS = 30 * 86400_000;
const USER_AGENT = 'svc-webhooks/1.0 (+https://svc.dev/docs/webhooks)';

type Webhook = typeof webhooks.$inferSelect;

/** Secrets that sign right now, newest first: the old one only during its 24-hour overlap. */
export function signingSecrets(w: Pick<Webhook, 'secret' | 'oldSecret' | 'oldSecretExpiresAt'>, now: number): string[] {
  return w.oldSecret && w.oldSecretExpiresAt !== null && w.oldSecretExpiresAt > now ? [w.secret, w.oldSecret] : [w.secret];
}

/** The webhook request of spec 01 §6.1: wire headers, and the headers as delivery records show them. */
export function buildRequest(body: string, event: { id: string; type: string }, deliveryId: string, secrets: string[], now: number) {
  const signature = signatureHeader(secrets, Math.floor(now / 1000), body);
  const shown: [string, string | null][] = [
    ['Content-Type', 'application/json'],
    ['User-Agent', USER_AGENT],
    ['Svc-Signature', null],
    ['Svc-Event-Id', event.id],
    ['Svc-Event-Type', event.type],
    ['Svc-Delivery-Id', deliveryId],
    ['Content-Length', String(Buffer.byteLength(body))],
  ];
  const headers = Object.fromEntries(shown.map(([name, value]) => [name, value ?? signature]));
  return { headers, requestHeaders: shown.map(([name, value]) => ({ name, value })) };
}

const ACTIVE = ['PENDING', 'PENDING_RETRY'] as const;
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
  webhook: db
    .select()
    .from(webhooks)
    .where(eq(webhooks.id, sql.placeholder('id')))
    .prepare(),
  storeWebhooks: db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.storeId, sql.placeholder('storeId')), eq(webhooks.status, 'ACTIVE')))
    .prepare(),
  settle: db
    .update(webhookDeliveries)
    .set({
      status: ph('status'),
      nextAttemptAt: ph('nextAttemptAt'),
      responseStatusCode: ph('statusCode'),
      responseTimeMs: ph('timeMs'),
      responseBodyExcerpt: ph('bodyExcerpt'),
      errorCode: ph('errorCode'),
      failureReason: ph('failureReason'),
      payload: ph('payload'),
      payloadTruncated: ph('payloadTruncated'),
      payloadMasked: ph('payloadMasked'),
      requestHeaders: ph('requestHeaders'),
      updatedAt: ph('now'),
    })
    // A result only lands on the attempt it belongs to, and never revives a record suspension ended.
    .where(
      and(
        eq(webhookDeliveries.id, sql.placeholder('id')),
        eq(webhookDeliveries.attemptCount, sql.placeholder('attempt')),
        inArray(webhookDeliveries.status, [...ACTIVE]),
      ),
    )
    .prepare(),
  clearFailures: db
    .update(webhooks)
    .set({ failingSince: null, lastFailureAt: null })
    .where(and(eq(webhooks.id, sql.placeholder('id')), isNotNull(webhooks.lastFailureAt)))
    .prepare(),
  failureRecord: db
    .update(webhooks)
    .set({ failingSince: ph('failingSince'), lastFailureAt: ph('lastFailureAt') })
    .where(eq(webhooks.id, sql.placeholder('id')))
    .prepare(),
}));

/**
 * Claims a subscription's due records for sends about to start: each attempt is counted and leased before
 * anything is sent. PostgreSQL: one statement, whose pick is `FOR UPDATE SKIP LOCKED`, so processes claiming
 * at once take different records. SQLite, the only writer, inside the pump's transaction: the pick, then each
 * record's claim by id — about two thirds of the CPU of the one-statement form there, which builds its
 * `IN (…)` list on every run.
 */
async function claimDueFor(db: Db, webhookId: string, busy: Set<string>, now: number) {
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

/** Ends the subscription's pending sends as FAILED/WEBHOOK_SUSPENDED and marks it SUSPENDED (spec 01 §3.5). */
export async function suspend(db: Db, webhookId: string, now: number) {
  await db.update(webhooks).set({ status: 'SUSPENDED', suspendedAt: now, updatedAt: now }).where(eq(webhooks.id, webhookId)).run();
  await db
    .update(webhookDeliveries)
    .set({ status: 'FAILED', nextAttemptAt: null, failureReason: 'SUSPENDED', errorCode: ERROR_CODE.SUSPENDED, updatedAt: now })
    .where(and(eq(webhookDeliveries.webhookId, webhookId), inArray(webhookDeliveries.status, [...ACTIVE])))
    .run();
}

/** Failure record of spec 01 §3.5: a failure run that lasts over 24 h suspends; 3 quiet hours start a new run. */
async function noteOutcome(db: Db, webhookId: string, ok: boolean, now: number) {
  const q = statements(db);
  if (ok) {
    await q.clearFailures.run({ id: webhookId });
    return;
  }
  const w = await q.webhook.get({ id: webhookId });
  if (!w || w.status !== 'ACTIVE') return;
  const fresh = w.failingSince === null || w.lastFailureAt === null || now - w.lastFailureAt > QUIET_RESET_MS;
  const since = fresh ? now : w.failingSince!;
  await q.failureRecord.run({ id: webhookId, failingSince: since, lastFailureAt: now });
  if (now - since > SUSPEND_AFTER_MS) await suspend(db, webhookId, now);
}

interface Outcome {
  deliveryId: string;
  webhookId: string;
  /** When the attempt ended: a pass that settles it later (waiting its turn) must not count from its own start. */
  at: number;
  attempt: number;
  result: AttemptResult;
  request: { payload: string; payloadTruncated: boolean; payloadMasked: boolean; requestHeaders: { name: string; value: string | null }[] } | null;
}

/**
 * The delivery worker of one service. Due rows are claimed (attempt counted, leased for ATTEMPT_LEASE_MS) in
 * a transaction before anything is sent, so a crash loses no event: the claimed row simply comes due again.
 * Sends run concurrently, at most PER_RECEIVER_CONCURRENCY per subscription; results are written in
 * batches, and each finished send pulls the next due row of its subscription at once.
 */
class DeliveryWorker {
  /** This process's sends under way: the records being sent, by subscription. */
  private readonly inFlight = new Map<string, Set<string>>();
  private outcomes: Outcome[] = [];
  private wanted = new Set<string>();
  private wantAll = false;
  private scheduled = false;
  /** The pump running or queued last: pumps take turns, as they share the state above. */
  private pumping: Promise<unknown> = Promise.resolve();

  constructor(private readonly services: Services) {
    const storeWebhooks = statements(services.db).storeWebhooks;
    eventBus(services.db).on('event', async (storeId: string) => {
      if (!this.services.db.$client.open) return;
      try {
        this.schedule((await storeWebhooks.all({ storeId })).map((w) => w.id));
      } catch (error) {
        this.failed(error);
      }
    });
  }

  private schedule(webhookIds: string[] | 'all') {
    if (webhookIds === 'all') this.wantAll = true;
    else for (const id of webhookIds) this.wanted.add(id);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.inTurn(() => this.pump(this.services.clock.now())).catch((error: unknown) => this.failed(error)));
  }

  /** A pass that failed (the database away or closing): the clock-driven pass tries again. */
  private failed(error: unknown) {
    if (this.services.db.$client.open) console.error('[svc] webhook deliveries: a pass failed, the next clock tick retries it:', error);
  }

  /** Everything due at `now`, for the clock-driven job (retries coming due, work left by a stopped process). */
  runDue(now: number): Promise<number> {
    return this.inTurn(() => {
      this.wantAll = true;
      return this.pump(now);
    });
  }

  /** Runs `pump` once every pump started before it has ended. */
  private inTurn(pump: () => Promise<number>): Promise<number> {
    const run = this.pumping.then(pump);
    this.pumping = run.catch(() => undefined);
    return run;
  }

  /**
   * Writes finished attempts, then claims and starts what is due; returns how many sends it started. The
   * clock-driven pass (`everything`) also ends records whose last attempt a stopped process never recorded:
   * looking for them reads every due record of a subscription, too much for each finished send. Only ever
   * called through `inTurn`.
   */
  private async pump(now: number): Promise<number> {
    this.scheduled = false;
    const { db } = this.services;
    if (!db.$client.open) return 0;
    const q = statements(db);
    const outcomes = this.outcomes;
    this.outcomes = [];
    const everything = this.wantAll;
    const wanted = everything ? (await q.dueWebhooks.all(now)).map((r) => r.webhookId) : [...this.wanted];
    this.wantAll = false;
    this.wanted = new Set();

    const starts = await claimingBatch(db, async (together) => {
      if (outcomes.length > 0) {
        await together(async () => {
          for (const o of outcomes) await this.settle(o);
        });
        // Busy until settled: a pass in between would find the record due again once a manual clock moved past its lease.
        for (const o of outcomes) this.inFlight.get(o.webhookId)?.delete(o.deliveryId);
      }
      const out: { webhook: Webhook; row: Parameters<DeliveryWorker['start']>[1] }[] = [];
      for (const webhookId of new Set([...wanted, ...outcomes.map((o) => o.webhookId)])) {
        const busy = this.inFlight.get(webhookId) ?? new Set<string>();
        if (busy.size >= PER_RECEIVER_CONCURRENCY) continue;
        const webhook = await q.webhook.get({ id: webhookId });
        if (!webhook || webhook.status !== 'ACTIVE') continue;
        const exhausted = everything ? await q.exhaustedFor.all({ webhookId, now }) : [];
        if (exhausted.length > 0) {
          await together(async () => {
            for (const row of exhausted)
              await this.settle({ deliveryId: row.id, webhookId, at: now, attempt: row.attemptCount, result: interrupted, request: null });
          });
        }
        for (const row of await claimDueFor(db, webhookId, busy, now)) {
          const event = await eventForDelivery(db, row.eventId);
          // The event's own creation time, not the record's, goes into the payload.
          if (event) out.push({ webhook, row: { ...row, ...event } });
        }
      }
      return out;
    });

    for (const { webhook, row } of starts) this.start(webhook, row, now);
    return starts.length;
  }

  private start(
    webhook: Webhook,
    row: { id: string; attemptCount: number; eventId: string; type: string; createdAt: number; storeId: string; sequence: number | null; dataJson: string },
    now: number,
  ) {
    let busy = this.inFlight.get(webhook.id);
    if (!busy) this.inFlight.set(webhook.id, (busy = new Set()));
    busy.add(row.id);
    const body = eventPayload({
      id: row.eventId,
      type: row.type,
      createdAt: row.createdAt,
      storeId: row.storeId,
      sequence: row.sequence,
      dataJson: row.dataJson,
    });
    const request = buildRequest(body, { id: row.eventId, type: row.type }, row.id, signingSecrets(webhook, now), now);
    void sendOnce(webhook.url, body, request.headers, { allowHosts: this.services.config.unsafeWebhookHosts, poolKey: webhook.id }).then((result) => {
      this.outcomes.push({
        deliveryId: row.id,
        webhookId: webhook.id,
        at: this.services.clock.now(),
        attempt: row.attemptCount,
        result,
        request: { ...storedPayload(body), requestHeaders: request.requestHeaders },
      });
      this.schedule([webhook.id]);
    });
  }

  private async settle(o: Outcome) {
    const now = o.at;
    const q = statements(this.services.db);
    const { result } = o;
    const status = result.ok ? 'SUCCESS' : o.attempt >= MAX_ATTEMPTS ? 'FAILED' : 'PENDING_RETRY';
    const changed = await q.settle.run({
      id: o.deliveryId,
      attempt: o.attempt,
      status,
      nextAttemptAt: status === 'PENDING_RETRY' ? now + RETRY_DELAYS_MS[o.attempt - 1] : null,
      statusCode: result.statusCode,
      timeMs: result.timeMs,
      bodyExcerpt: result.bodyExcerpt,
      errorCode: result.errorCode,
      failureReason: result.failureReason,
      payload: o.request?.payload ?? null,
      payloadTruncated: o.request ? Number(o.request.payloadTruncated) : null,
      payloadMasked: o.request ? Number(o.request.payloadMasked) : null,
      requestHeaders: o.request ? JSON.stringify(o.request.requestHeaders) : null,
      now,
    });
    if (changed.changes > 0) await noteOutcome(this.services.db, o.webhookId, result.ok, now);
  }
}

const interrupted: AttemptResult = {
  ok: false,
  statusCode: null,
  timeMs: 0,
  bodyExcerpt: null,
  failureReason: 'INTERRUPTED',
  errorCode: ERROR_CODE.INTERRUPTED,
};

const workers = new WeakMap<Services, DeliveryWorker>();
export function deliveryWorker(services: Services): DeliveryWorker {
  let worker = workers.get(services);
  if (!worker) {
    worker = new DeliveryWorker(services);
    workers.set(services, worker);
  }
  return worker;
}

export const deliveryJob: Job = {
  name: 'webhooks.deliver',
  run: (services, now) => deliveryWorker(services).runDue(now),
};

/** Records are kept 30 days (spec 01 §8); events a day longer, so a redelivery queued on day 30 still finds its event. */
export const retentionJob: Job = {
  name: 'webhooks.retention',
  run(services, now) {
    const cutoff = now - RECORDS_KEPT_MS;
    return transaction(
      services.db,
      async () =>
        (
          await services.db
            .delete(webhookDeliveries)
            .where(and(lt(webhookDeliveries.createdAt, cutoff), inArray(webhookDeliveries.status, ['SUCCESS', 'FAILED'])))
            .run()
        ).changes + (await deleteEventsCreatedBefore(services.db, cutoff - 86400_000)),
    );
  },
};
