import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transaction } from '../../src/db/client.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
/** The seeded owner's client; renewed after clock jumps (login tokens live 15 minutes). */
let api: Api;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  api = svc.api;
  receiver = await startReceiver((r) =>
    JSON.parse(r.body).type === 'ORDER.CANCELED' ? { status: 500, body: '{"error":"boom","accessToken":"abc123"}' } : { status: 200, body: 'ok' },
  );
});
test.after(async () => {
  await receiver.close();
  await svc.close();
});

const create = (body: unknown) => api('POST', '/v1/webhooks', { body });
const fieldCodes = (res: { body: { error: { fieldErrors: { field: string; code: string }[] } } }) =>
  res.body.error.fieldErrors.map((f) => `${f.field}:${f.code}`);

test('URL and body validation answer 400 VALIDATION_FAILED with field codes and create nothing', async () => {
  const cases: [unknown, string][] = [
    [{ url: 'http://example.com/hook', eventTypes: ['ORDER.PAID'] }, 'url:HTTPS_REQUIRED'],
    [{ url: 'https://user:pw@example.com/hook', eventTypes: ['ORDER.PAID'] }, 'url:USER_INFO_NOT_ALLOWED'],
    [{ url: 'not a url', eventTypes: ['ORDER.PAID'] }, 'url:INVALID_URL'],
    [{ url: 'ftp://example.com/', eventTypes: ['ORDER.PAID'] }, 'url:INVALID_URL'],
    [{ url: 'https://10.1.2.3/hook', eventTypes: ['ORDER.PAID'] }, 'url:BLOCKED_ADDRESS'],
    [{ url: 'https://[::1]/hook', eventTypes: ['ORDER.PAID'] }, 'url:BLOCKED_ADDRESS'],
    [{ url: 'https://[::ffff:0:127.0.0.1]/', eventTypes: ['ORDER.PAID'] }, 'url:BLOCKED_ADDRESS'], // IPv4-translated loopback
    [{ url: 'https://169.254.169.254/latest', eventTypes: ['ORDER.PAID'] }, 'url:BLOCKED_ADDRESS'],
    // localhost is not in the allow list (only the exact host 127.0.0.1 is) and resolves to loopback.
    [{ url: 'https://localhost/hook', eventTypes: ['ORDER.PAID'] }, 'url:BLOCKED_ADDRESS'],
    [{ url: 'https://example.com/hook', eventTypes: ['ORDER.NOPE'] }, 'eventTypes.0:INVALID_VALUE'],
    [{ url: 'https://example.com/hook', eventTypes: [] }, 'eventTypes:TOO_SHORT'],
    [{ url: 'https://example.com/hook', eventTypes: ['ORDER.PAID', 'ORDER.PAID'] }, 'eventTypes.1:DUPLICATE'],
    [{ url: 'https://example.com/hook', eventTypes: ['ORDER.PAID'], secret: 'mine' }, 'secret:UNKNOWN_FIELD'],
    [{ eventTypes: ['ORDER.PAID'] }, 'url:REQUIRED'],
  ];
  for (const [body, code] of cases) {
    const res = await create(body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.is(res.body.meta.code, 'VALIDATION_FAILED');
    assert.ok(fieldCodes(res).includes(code), `${JSON.stringify(body)} → ${fieldCodes(res)}`);
  }
  const list = await api('GET', '/v1/webhooks');
  assert.is(list.data.contents.length, 0);
});

test('at most 10 subscriptions per store: the 11th is 409 WEBHOOK_LIMIT_EXCEEDED', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await create({ url: `${receiver.url}?n=${i}`, eventTypes: ['ORDER.PAID'] });
    assert.is(res.status, 201);
    ids.push(res.data.webhookId);
  }
  const over = await create({ url: receiver.url, eventTypes: ['ORDER.PAID'] });
  assert.is(over.status, 409);
  assert.is(over.body.meta.code, 'WEBHOOK_LIMIT_EXCEEDED');
  for (const id of ids) assert.is((await api('DELETE', `/v1/webhooks/${id}`)).status, 200);
});

test('update replaces fields, reactivates and is validated like create; resume on active is 200', async () => {
  const { data: w } = await create({ url: receiver.url, eventTypes: ['ORDER.PAID'] });
  const bad = await api('PUT', `/v1/webhooks/${w.webhookId}`, { body: { url: 'https://192.168.0.10/', eventTypes: ['ORDER.PAID'] } });
  assert.is(bad.status, 400);
  assert.equal(fieldCodes(bad), ['url:BLOCKED_ADDRESS']);
  const partial = await api('PUT', `/v1/webhooks/${w.webhookId}`, { body: { eventTypes: ['ORDER.PAID'] } });
  assert.is(partial.status, 400);
  const ok = await api('PUT', `/v1/webhooks/${w.webhookId}`, { body: { url: `${receiver.url}?v=2`, eventTypes: ['ORDER.PAID', 'ORDER.CANCELED'] } });
  assert.is(ok.status, 200);
  assert.equal(ok.data.eventTypes, ['ORDER.PAID', 'ORDER.CANCELED']);
  assert.is(ok.data.status, 'ACTIVE');
  assert.is(ok.data.secret, undefined);
  const resumed = await api('POST', `/v1/webhooks/${w.webhookId}/resume`);
  assert.is(resumed.status, 200);
  assert.is(resumed.data.status, 'ACTIVE');
  // A suspended subscription comes back with an update as well as with resume (spec 01 §3.5).
  const { suspend } = await import('../../src/modules/webhooks/attempt-results.js');
  await transaction(svc.services.db, () => suspend(svc.services.db, w.webhookId, svc.services.clock.now()));
  const suspended = await api('GET', `/v1/webhooks/${w.webhookId}`);
  assert.is(suspended.data.status, 'SUSPENDED');
  assert.ok(suspended.data.suspendedAt);
  const reactivated = await api('PUT', `/v1/webhooks/${w.webhookId}`, { body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } });
  assert.is(reactivated.data.status, 'ACTIVE');
  assert.is(reactivated.data.suspendedAt, null);
  const missing = await api('GET', '/v1/webhooks/wh_nope/deliveries');
  assert.is(missing.status, 404);
  assert.is(missing.body.meta.code, 'WEBHOOK_NOT_FOUND');
  await api('DELETE', `/v1/webhooks/${w.webhookId}`);
});

test('records: filters, detail, redeliver once, redeliver-failed, delete removes records', async () => {
  const { data: w } = await create({ url: receiver.url, eventTypes: ['ORDER.PAID', 'ORDER.CANCELED', 'CLAIM.CANCEL_REQUESTED', 'PRODUCT.OUT_OF_STOCK'] });
  const emit = (body: unknown) => api('POST', '/_dev/v1/events', { body });
  await emit({ type: 'ORDER.PAID', resource: { type: 'ORDER', id: 'ord_A' }, data: { orderId: 'ord_A' } });
  await emit({ type: 'ORDER.CANCELED', resource: { type: 'ORDER', id: 'ord_A' }, data: { orderId: 'ord_A', orderItemId: 'oi_A1' } });
  await emit({ type: 'CLAIM.CANCEL_REQUESTED', resource: { type: 'CLAIM', id: 'clm_A' }, data: { claimId: 'clm_A', orderId: 'ord_A' } });
  await emit({ type: 'ORDER.PAID', resource: { type: 'ORDER', id: 'ord_B' }, data: { orderId: 'ord_B' } });
  // A stock event caused by order A's payment names the order among its related ids.
  const { emitEvent } = await import('../../src/modules/events/outbox.js');
  await transaction(svc.services.db, () =>
    emitEvent(svc.services.db, svc.services.clock.now(), {
      storeId: svc.storeId,
      type: 'PRODUCT.OUT_OF_STOCK',
      resource: { type: 'PRODUCT', id: 'prd_1' },
      data: { productId: 'prd_1', variantId: 'var_1' },
      relatedIds: ['ord_A'],
    }),
  );

  const path = `/v1/webhooks/${w.webhookId}/deliveries`;
  const all = await eventually(async () => {
    const r = await api('GET', path);
    return r.data.contents.length === 5 && r.data.contents.every((d: { status: string }) => d.status !== 'PENDING') && r.data.contents;
  });
  assert.equal(
    all.map((d: { eventType: string }) => d.eventType),
    ['PRODUCT.OUT_OF_STOCK', 'ORDER.PAID', 'CLAIM.CANCEL_REQUESTED', 'ORDER.CANCELED', 'ORDER.PAID'],
  );
  const q = async (query: Record<string, string | number>) => (await api('GET', path, { query })).data.contents.map((d: { eventType: string }) => d.eventType);
  assert.equal(await q({ resourceId: 'ord_A' }), ['PRODUCT.OUT_OF_STOCK', 'CLAIM.CANCEL_REQUESTED', 'ORDER.CANCELED', 'ORDER.PAID']);
  assert.equal(await q({ resourceId: 'oi_A1' }), ['ORDER.CANCELED']);
  assert.equal(await q({ resourceId: 'var_1' }), ['PRODUCT.OUT_OF_STOCK']);
  assert.equal(await q({ resourceId: 'ord_' }), []);
  assert.equal(await q({ eventType: 'ORDER.PAID' }), ['ORDER.PAID', 'ORDER.PAID']);
  assert.equal(await q({ status: 'PENDING_RETRY' }), ['ORDER.CANCELED']);
  assert.equal(await q({ status: 'SUCCESS', limit: 2 }), ['PRODUCT.OUT_OF_STOCK', 'ORDER.PAID']);
  for (const query of [{ limit: 101 }, { limit: 0 }, { status: 'DONE' }, { eventType: 'X' }, { page: 1 }]) {
    const r = await api('GET', path, { query });
    assert.is(r.status, 400, JSON.stringify(query));
  }

  const failing = all.find((d: { eventType: string }) => d.eventType === 'ORDER.CANCELED');
  assert.is(failing.failureReason, 'HTTP_5XX');
  assert.is(failing.errorCode, 'NON_2XX');
  assert.is(failing.responseStatusCode, 500);
  assert.is(failing.responseBodyExcerpt, '{"error":"boom","accessToken":"****"}');
  const notFailed = await api('POST', `${path}/${failing.deliveryId}/redeliver`);
  assert.is(notFailed.status, 409);
  assert.is(notFailed.body.meta.code, 'DELIVERY_NOT_FAILED');
  const ok = all.find((d: { status: string }) => d.status === 'SUCCESS');
  assert.is((await api('POST', `${path}/${ok.deliveryId}/redeliver`)).body.meta.code, 'DELIVERY_NOT_FAILED');
  assert.is((await api('GET', `${path}/whd_nope`)).body.meta.code, 'WEBHOOK_DELIVERY_NOT_FOUND');

  // Walk the failing record to FAILED: retries at +1m, +5m, +30m, +2h.
  for (const [seconds, attempts] of [
    [61, 2],
    [301, 3],
    [1801, 4],
    [7201, 5],
  ]) {
    await svc.advance(seconds);
    api = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
    await eventually(async () => {
      const d = (await api('GET', `${path}/${failing.deliveryId}`)).data;
      return d.attemptCount === attempts && d.status !== 'PENDING' && d.lastAttemptAt && (attempts < 5 || d.status === 'FAILED');
    });
  }
  const failed = (await api('GET', `${path}/${failing.deliveryId}`)).data;
  assert.is(failed.status, 'FAILED');
  assert.is(failed.nextAttemptAt, null);

  const again = await api('POST', `${path}/${failing.deliveryId}/redeliver`);
  assert.is(again.status, 202);
  assert.is(again.data.eventId, failing.eventId);
  assert.is(again.data.redeliveryOf, failing.deliveryId);
  assert.is((await api('GET', `${path}/${failing.deliveryId}`)).data.redeliveredAs, again.data.deliveryId);
  const twice = await api('POST', `${path}/${failing.deliveryId}/redeliver`);
  assert.is(twice.status, 409);
  assert.is(twice.body.meta.code, 'DELIVERY_ALREADY_REDELIVERED');
  // The original is redelivered, so bulk redelivery finds nothing more.
  const bulk = await api('POST', `${path}/redeliver-failed`);
  assert.is(bulk.status, 202);
  assert.equal(bulk.data, { queued: 0 });
  await eventually(async () => (await api('GET', `${path}/${again.data.deliveryId}`)).data.attemptCount === 1);

  const del = await api('DELETE', `/v1/webhooks/${w.webhookId}`);
  assert.is(del.status, 200);
  assert.is((await api('GET', path)).body.meta.code, 'WEBHOOK_NOT_FOUND');
});

test('test send: evt_test_ id, sample data, real signature, the receiver result, nothing recorded', async () => {
  const { data: w } = await create({ url: receiver.url, eventTypes: ['ORDER.PAID'] });
  const before = receiver.received.length;
  const res = await api('POST', `/v1/webhooks/${w.webhookId}/test`, { body: { eventType: 'CLAIM.COMPLETED' } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.match(res.data.eventId, /^evt_test_/);
  assert.is(res.data.responseStatusCode, 200);
  assert.is(res.data.errorCode, null);
  assert.is(res.data.failureReason, null);
  assert.is(res.data.responseBodyExcerpt, 'ok');
  assert.type(res.data.responseTimeMs, 'number');
  const hit = receiver.received[before];
  const body = JSON.parse(hit.body);
  assert.is(body.id, res.data.eventId);
  assert.is(body.sequence, undefined);
  assert.ok(body.data.claimId && body.data.orderId);
  assert.is(res.data.payload, hit.body);
  assert.ok(res.data.requestHeaders.some((h: { name: string; value: unknown }) => h.name === 'Svc-Signature' && h.value === null));
  const { verifyWebhook } = await import('../../src/index.js');
  assert.ok(verifyWebhook({ secret: w.secret, header: String(hit.headers['svc-signature']), body: hit.body, now: svc.services.clock.now() }).valid);
  assert.equal((await api('GET', `/v1/webhooks/${w.webhookId}/deliveries`)).data.contents, []);
  const bad = await api('POST', `/v1/webhooks/${w.webhookId}/test`, { body: { eventType: 'NOPE' } });
  assert.is(bad.status, 400);
  await api('DELETE', `/v1/webhooks/${w.webhookId}`);
});

test("tenancy: another store's token cannot read or change this store's webhooks", async () => {
  const { data: w } = await create({ url: receiver.url, eventTypes: ['ORDER.PAID'] });
  const other = await newSellerWithStore(svc, 'other');
  const calls: [string, string, unknown?][] = [
    ['GET', `/v1/webhooks/${w.webhookId}`],
    ['PUT', `/v1/webhooks/${w.webhookId}`, { url: receiver.url, eventTypes: ['ORDER.PAID'] }],
    ['DELETE', `/v1/webhooks/${w.webhookId}`],
    ['POST', `/v1/webhooks/${w.webhookId}/rotate-secret`],
    ['POST', `/v1/webhooks/${w.webhookId}/resume`],
    ['GET', `/v1/webhooks/${w.webhookId}/deliveries`],
    ['POST', `/v1/webhooks/${w.webhookId}/deliveries/redeliver-failed`],
    ['POST', `/v1/webhooks/${w.webhookId}/test`, { eventType: 'ORDER.PAID' }],
  ];
  for (const [method, path, body] of calls) {
    const res = await other.api(method, path, { body });
    assert.is(res.status, 403, `${method} ${path}`);
    assert.is(res.body.meta.code, 'TENANT_MISMATCH');
  }
  assert.equal((await other.api('GET', '/v1/webhooks')).data.contents, []);
  // The other store's token naming this store is refused before any webhook is looked at.
  assert.is((await other.api('GET', '/v1/webhooks', { storeId: svc.storeId })).body.meta.code, 'NOT_A_MEMBER');
  const mine = await api('GET', `/v1/webhooks/${w.webhookId}`);
  assert.is(mine.data.secretPrefix, w.secretPrefix);
  await api('DELETE', `/v1/webhooks/${w.webhookId}`);
});

test('scopes and agent policy: webhook:r reads only; an agent creating one gets an approval request and may never rotate', async () => {
  const loginToken = await login(svc);
  const reader = apiClient(svc.url, { token: await createAccessToken(svc, loginToken, { scopes: ['webhook:r'] }), storeId: svc.storeId });
  assert.is((await reader('GET', '/v1/webhooks')).status, 200);
  const denied = await reader('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } });
  assert.is(denied.status, 403);
  assert.is(denied.body.meta.code, 'INSUFFICIENT_ROLE');

  const agent = apiClient(svc.url, { token: await createAccessToken(svc, loginToken, { scopes: ['webhook:rw'], agent: true }), storeId: svc.storeId });
  const byAgent = await agent('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } });
  assert.is(byAgent.status, 202);
  assert.is(byAgent.body.meta.code, 'APPROVAL_REQUIRED');
  assert.equal((await api('GET', '/v1/webhooks')).data.contents, []);
  const { data: w } = await create({ url: receiver.url, eventTypes: ['ORDER.PAID'] });
  const rotate = await agent('POST', `/v1/webhooks/${w.webhookId}/rotate-secret`);
  assert.is(rotate.body.meta.code, 'AGENT_OPERATION_DENIED');
  assert.is((await agent('POST', `/v1/webhooks/${w.webhookId}/resume`)).status, 200);
  await api('DELETE', `/v1/webhooks/${w.webhookId}`);
});

test.run();
