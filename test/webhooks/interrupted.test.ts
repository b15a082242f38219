import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService } from '../helpers/service.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';

test('a fifth attempt cut off by a stop ends FAILED (INTERRUPTED) instead of a sixth send', async () => {
  const receiver = await startReceiver();
  const svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  const { data: w } = await svc.api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['REVIEW.CREATED'] } });
  await svc.api('POST', '/_dev/v1/events', { body: { type: 'REVIEW.CREATED' } });
  await receiver.waitFor(1);
  const [record] = await eventually(async () => {
    const list = (await svc.api('GET', `/v1/webhooks/${w.webhookId}/deliveries`, { query: { status: 'SUCCESS' } })).data.contents;
    return list.length === 1 && list;
  });
  // What a process stopped during attempt 5 leaves behind: the attempt counted, its retry slot come due, no result.
  const { webhookDeliveries } = await import('../../src/modules/webhooks/schema.js');
  const { eq } = await import('drizzle-orm');
  await svc.services.db
    .update(webhookDeliveries)
    .set({ status: 'PENDING_RETRY', attemptCount: 5, nextAttemptAt: svc.services.clock.now() - 1 })
    .where(eq(webhookDeliveries.id, record.deliveryId))
    .run();
  await svc.advance(1);
  const after = (await svc.api('GET', `/v1/webhooks/${w.webhookId}/deliveries/${record.deliveryId}`)).data;
  assert.is(after.status, 'FAILED');
  assert.is(after.attemptCount, 5);
  assert.is(after.failureReason, 'INTERRUPTED');
  assert.is(after.errorCode, 'CONNECTION_FAILED');
  assert.is(receiver.received.length, 1);
  await svc.close();
  await receiver.close();
});

test.run();
