import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { webhookDeliveries, webhooks } from './schema.js';
import { ERROR_CODE, type AttemptResult } from './send.js';

/** An attempt's result on its record: the retry schedule, the subscription's failure run, suspension. */

export const MAX_ATTEMPTS = 5;
/** Pause after attempt n (1-based) before attempt n+1 (spec 01 §6.4). */
const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000];
const SUSPEND_AFTER_MS = 24 * 3600_000;
const QUIET_RESET_MS = 3 * 3600_000;

const ACTIVE = ['PENDING', 'PENDING_RETRY'] as const;
/** A bound value in an update's SET (drizzle types SET values as column values, not placeholders). */
const ph = (name: string) => sql`${sql.placeholder(name)}`;

const statements = preparedFor((db) => ({
  webhook: db
    .select()
    .from(webhooks)
    .where(eq(webhooks.id, sql.placeholder('id')))
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

/** A subscription by id. */
export function webhookById(db: Db, id: string) {
  return statements(db).webhook.get({ id });
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

export interface Outcome {
  deliveryId: string;
  webhookId: string;
  /** When the attempt ended: a pass that settles it later (waiting its turn) must not count from its own start. */
  at: number;
  attempt: number;
  result: AttemptResult;
  request: { payload: string; payloadTruncated: boolean; payloadMasked: boolean; requestHeaders: { name: string; value: string | null }[] } | null;
}

/** Writes one attempt's result onto its record: done, failed for good, or due again after its retry delay. */
export async function settleOutcome(db: Db, o: Outcome) {
  const now = o.at;
  const q = statements(db);
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
  if (changed.changes > 0) await noteOutcome(db, o.webhookId, result.ok, now);
}

/** The result of an attempt a stopped process started and never recorded. */
export const interrupted: AttemptResult = {
  ok: false,
  statusCode: null,
  timeMs: 0,
  bodyExcerpt: null,
  failureReason: 'INTERRUPTED',
  errorCode: ERROR_CODE.INTERRUPTED,
};
