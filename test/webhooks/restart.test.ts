import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServiceProcess } from '../helpers/process.js';
import { apiClient, startTestService } from '../helpers/service.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';

const EVENTS = 60;

test('killed mid-delivery and restarted on the same data: every event arrives at least once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-webhooks-restart-'));
  const receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
  const slow = await startReceiver(() => null);
  const first = await startTestService({ dataDir, unsafeWebhookHosts: ['127.0.0.1'] });
  const { data: fast } = await first.api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } });
  // The second subscription's receiver never answers: at the stop 16 of its sends are in flight and the rest still queued.
  const { data: hanging } = await first.api('POST', '/v1/webhooks', { body: { url: slow.url, eventTypes: ['ORDER.PAID'] } });
  const ids: string[] = [];
  for (let i = 0; i < EVENTS; i++) ids.push((await first.api('POST', '/_dev/v1/events', { body: { type: 'ORDER.PAID' } })).data.eventId);
  await slow.waitFor(16);
  await first.close();

  // The hanging receiver recovers; the restarted service finds what is due and what was cut off.
  await slow.close();
  const recovered = await startReceiver(() => ({ status: 200 }));
  const second = await startTestService({ dataDir, unsafeWebhookHosts: ['127.0.0.1'] });
  const put = await second.api('PUT', `/v1/webhooks/${hanging.webhookId}`, { body: { url: recovered.url, eventTypes: ['ORDER.PAID'] } });
  assert.is(put.status, 200);
  // Attempts cut off by the stop come due again once their lease lapses, seconds after their 10 s deadline.
  await second.advance(16);
  const seen = (r: { received: { body: string }[] }) => new Set(r.received.map((x) => JSON.parse(x.body).id));
  await eventually(() => ids.every((id) => seen(receiver).has(id)) && ids.every((id) => seen(recovered).has(id)), 10_000);

  const records = (await second.api('GET', `/v1/webhooks/${hanging.webhookId}/deliveries`, { query: { limit: 100 } })).data.contents;
  assert.is(records.length, EVENTS);
  const interrupted = records.filter((d: { attemptCount: number }) => d.attemptCount === 2);
  // The 16 attempts in flight at the stop were counted although their outcome was never recorded.
  assert.is(interrupted.length, 16);
  await eventually(
    async () =>
      (await second.api('GET', `/v1/webhooks/${fast.webhookId}/deliveries`, { query: { status: 'SUCCESS', limit: 100 } })).data.contents.length === EVENTS,
  );

  await second.close();
  await receiver.close();
  await recovered.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('SIGKILL during deliveries: the attempts in flight are retried about 15 s after they started, not after their retry delay', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-webhooks-kill-'));
  let answering = false;
  const receiver = await startReceiver(() => (answering ? { status: 200 } : null));
  const args = ['dev', '--port', '0', '--data-dir', dataDir, '--unsafe-allow-webhook-hosts', '127.0.0.1'];
  const first = await startServiceProcess(args);
  const api = apiClient(first.url, { token: first.ownerToken!, storeId: first.storeId! });
  assert.is((await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } })).status, 201);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await api('POST', '/_dev/v1/events', { body: { type: 'ORDER.PAID' } })).data.eventId);
  await receiver.waitFor(3);
  const started = Math.min(...receiver.received.map((r) => r.at));
  await first.kill();
  answering = true;

  const second = await startServiceProcess(args);
  try {
    const retried = () => ids.every((id) => receiver.received.filter((r) => JSON.parse(r.body).id === id).length >= 2);
    await eventually(retried, 40_000);
    const last = Math.max(...receiver.received.map((r) => r.at));
    // The lease is the 10 s deadline plus 5 s; the job loop looks every second. Without a lease: 60 s.
    assert.ok(last - started < 25_000, `retried ${last - started} ms after the first attempts`);
  } finally {
    await second.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
