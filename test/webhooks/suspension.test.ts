import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
let api: Api;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let failing = true;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  api = svc.api;
  receiver = await startReceiver(() => (failing ? { status: 503 } : { status: 204 }));
});
test.after(async () => {
  await receiver.close();
  await svc.close();
});

/** Moves the clock (running what came due) and logs in again: login tokens live 15 minutes. */
async function advance(seconds: number) {
  await svc.advance(seconds);
  api = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
}

const emit = async () => {
  const res = await api('POST', '/_dev/v1/events', { body: { type: 'INQUIRY.CREATED' } });
  assert.is(res.status, 201);
};
/** Waits until every delivery of the subscription was tried and none is mid-attempt (status reflects the last answer). */
const settled = (webhookId: string) =>
  eventually(async () => {
    const sent = receiver.received.length;
    const list = (await api('GET', `/v1/webhooks/${webhookId}/deliveries`, { query: { limit: 100 } })).data.contents as {
      attemptCount: number;
      responseStatusCode: number | null;
      status: string;
    }[];
    // A new record waits for the worker, which takes it on its own turn after the event's commit.
    const unanswered = list.filter(
      (d) => (d.attemptCount > 0 && d.responseStatusCode === null && d.status !== 'FAILED') || (d.attemptCount === 0 && d.status === 'PENDING'),
    );
    return unanswered.length === 0 && sent === receiver.received.length && list;
  });

test('a run of failures over 24 h suspends: pending retries end FAILED/WEBHOOK_SUSPENDED, new events are not queued', async () => {
  const { data: w } = await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['INQUIRY.CREATED'] } });
  // Every 2 h a new event fails (never 3 quiet hours); the failures at 24 h (plus the ms real time adds) are over 24 h.
  for (let hour = 0; hour <= 24; hour += 2) {
    if (hour > 0) await advance(2 * 3600);
    await emit();
    await settled(w.webhookId);
    const status = (await api('GET', `/v1/webhooks/${w.webhookId}`)).data.status;
    assert.is(status, hour < 24 ? 'ACTIVE' : 'SUSPENDED', `at ${hour} h`);
  }
  const sub = (await api('GET', `/v1/webhooks/${w.webhookId}`)).data;
  assert.ok(sub.suspendedAt);
  const records = (await api('GET', `/v1/webhooks/${w.webhookId}/deliveries`, { query: { limit: 100 } })).data.contents;
  assert.ok(records.every((d: { status: string }) => d.status === 'FAILED'));
  const ended = records.filter((d: { errorCode: string }) => d.errorCode === 'WEBHOOK_SUSPENDED');
  assert.ok(ended.length > 0);
  assert.ok(ended.every((d: { failureReason: string }) => d.failureReason === 'SUSPENDED'));

  await emit();
  assert.is((await api('GET', `/v1/webhooks/${w.webhookId}/deliveries`, { query: { limit: 100 } })).data.contents.length, records.length);
  const redeliver = await api('POST', `/v1/webhooks/${w.webhookId}/deliveries/redeliver-failed`);
  assert.is(redeliver.status, 409);
  assert.is(redeliver.body.meta.code, 'WEBHOOK_SUSPENDED');

  // Recovery as §6.4 describes: resume, then redeliver-failed (72 h, oldest first).
  failing = false;
  const resumed = await api('POST', `/v1/webhooks/${w.webhookId}/resume`);
  assert.is(resumed.data.status, 'ACTIVE');
  assert.is(resumed.data.suspendedAt, null);
  const queued = await api('POST', `/v1/webhooks/${w.webhookId}/deliveries/redeliver-failed`);
  assert.is(queued.status, 202);
  assert.is(queued.data.queued, records.length);
  await eventually(async () => {
    const list = (await api('GET', `/v1/webhooks/${w.webhookId}/deliveries`, { query: { status: 'SUCCESS', limit: 100 } })).data.contents;
    return list.length === records.length;
  });
  await api('DELETE', `/v1/webhooks/${w.webhookId}`);
  failing = true;
});

test('3 quiet hours start the failure count over; a success resets it', async () => {
  const { data: w } = await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['INQUIRY.CREATED'] } });
  // One event failing all five attempts: failures from 0 to about 2 h 36 m.
  await emit();
  for (const s of [61, 301, 1801, 7201]) {
    await advance(s);
    await settled(w.webhookId);
  }
  // Over 3 quiet hours, then failures every 2 h for 22 h: 24 h after the very first failure, but not of this run.
  await advance(3 * 3600 + 600);
  for (let hour = 0; hour <= 22; hour += 2) {
    if (hour > 0) await advance(2 * 3600);
    await emit();
    await settled(w.webhookId);
  }
  assert.is((await api('GET', `/v1/webhooks/${w.webhookId}`)).data.status, 'ACTIVE');
  // A success now resets the run, so 4 more hours of failures do not suspend either.
  failing = false;
  await emit();
  await settled(w.webhookId);
  failing = true;
  for (let hour = 0; hour <= 4; hour += 2) {
    await advance(2 * 3600);
    await emit();
    await settled(w.webhookId);
  }
  assert.is((await api('GET', `/v1/webhooks/${w.webhookId}`)).data.status, 'ACTIVE');
});

test.run();
