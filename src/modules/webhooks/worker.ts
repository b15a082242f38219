import { claimingBatch } from '../../db/claim.js';
import type { Job } from '../../server/jobs.js';
import type { Services } from '../../server/services.js';
import { eventForDelivery, eventPayload } from '../events/index.js';
import { webhooks } from './schema.js';
import { PER_RECEIVER_CONCURRENCY, sendOnce, storedPayload } from './send.js';
import { signingSecrets, buildRequest } from './request.js';
import { claimDueFor, dueWebhookIds, exhaustedFor } from './due-claims.js';
import { interrupted, settleOutcome, webhookById, type Outcome } from './attempt-results.js';

type Webhook = typeof webhooks.$inferSelect;

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

  constructor(private readonly services: Services) {}

  /** New deliveries of a subscription were committed (receivers.ts): a pass sends them now, not on the next clock tick. */
  wake(webhookId: string) {
    if (this.services.db.$client.open) this.schedule([webhookId]);
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
    const outcomes = this.outcomes;
    this.outcomes = [];
    const everything = this.wantAll;
    const wanted = everything ? await dueWebhookIds(db, now) : [...this.wanted];
    this.wantAll = false;
    this.wanted = new Set();
    if (outcomes.length === 0 && wanted.length === 0) return 0;

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
        const webhook = await webhookById(db, webhookId);
        if (!webhook || webhook.status !== 'ACTIVE') continue;
        const exhausted = everything ? await exhaustedFor(db, webhookId, now) : [];
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

  private settle(o: Outcome) {
    return settleOutcome(this.services.db, o);
  }
}

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
