/**
 * Three `svc serve` processes on one PostgreSQL behind the test's own round-robin client (issue 18): 50
 * buyers racing for 10 units across the processes make exactly 10 orders, each ORDER.PAID reaches the
 * webhook receiver once although every process runs a delivery worker, one process killed with SIGKILL
 * leaves the others serving, a restart of all three resumes on the same data, and a process killed in the
 * middle of a webhook send leaves the event to another process once its lease lapses.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../helpers/assert.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { localDeployment, type ServiceProcess } from '../helpers/process.js';
import { apiClient } from '../helpers/service.js';
import { connectSandbox, createProduct, GUEST, RETURN_URL, ADDRESS } from '../helpers/checkout.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';

let dataDir: string;
let deployment: Awaited<ReturnType<typeof localDeployment>>;
let processes: ServiceProcess[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;

/** Process `i` of the deployment: the shared database, data dir (keys) and public address, its own port. */
const serve = (i: number) => deployment.serve(i);
const urlOf = (i: number) => deployment.url(i % 3);

test.before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-scale-'));
  deployment = await localDeployment({ SVC_DATABASE_URL: await createTestDatabase(), SVC_DATA_DIR: dataDir, SVC_UNSAFE_ALLOW_WEBHOOK_HOSTS: '127.0.0.1' });
  // The first start creates the schema and the keys; the others join it.
  processes = [await serve(0)];
  processes.push(...(await Promise.all([serve(1), serve(2)])));
  receiver = await startReceiver();
});
test.after(async () => {
  await Promise.all(processes.map((p) => p.stop().catch(() => undefined)));
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function owner(label = 'owner') {
  const anon = apiClient(urlOf(0));
  ok(await anon('POST', '/auth/v1/signup', { body: { email: `${label}@scale.example`, password: 'password-1234', name: '사장' } }), 201);
  const token = ok(await anon('POST', '/auth/v1/login', { body: { email: `${label}@scale.example`, password: 'password-1234' } })).accessToken;
  const store = ok(await anon('POST', '/auth/v1/stores', { token, body: { name: '확장 상점', code: `${label}-store` } }), 201);
  return { token, storeId: store.storeId as string, on: (i: number) => apiClient(urlOf(i), { token, storeId: store.storeId }) };
}
const owner2 = () => owner('second');

/** A guest's whole purchase on process `i`: sheet, payment start, and the approve button of the sandbox window. */
async function purchase(i: number, storeId: string, item: { productId: string; optionId: string }, windowOn = i + 1) {
  const buyer = apiClient(urlOf(i), { storeId });
  const sheet = await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { ...item, quantity: 1 } } });
  if (sheet.status !== 201) return sheet.body.error.code as string;
  const start = await buyer('POST', `/storefront/v1/checkout/${sheet.data.checkoutId}/payment`, {
    body: { option: 'pg_one:CARD', returnUrl: RETURN_URL, guest: GUEST, shippingAddress: ADDRESS },
  });
  if (start.status !== 201) return start.body.error.code as string;
  const window = `${urlOf(windowOn)}/pay/${start.data.paymentId}`;
  const token = /name="token" value="([^"]+)"/.exec(await (await fetch(window)).text())?.[1];
  const approved = await fetch(window, { method: 'POST', body: new URLSearchParams({ token: token ?? '', outcome: 'APPROVE' }), redirect: 'manual' });
  return new URL(approved.headers.get('location') ?? 'http://x/?status=NONE').searchParams.get('status') ?? 'NONE';
}

test('50 buyers race for 10 units across three processes: exactly 10 orders, each ORDER.PAID delivered once; a SIGKILL and a restart lose nothing', async () => {
  const o = await owner();
  await connectSandbox(o.on(0));
  const product = await createProduct(o.on(1), { name: '한정판', salePrice: 10000, stockQuantity: 10 });
  ok(await o.on(2)('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } }), 201);

  const outcomes = await Promise.all(
    Array.from({ length: 50 }, (_, i) => purchase(i, o.storeId, { productId: product.productId, optionId: product.optionId })),
  );
  const orders = ok(await o.on(0)('GET', '/v1/orders', { query: { size: 100 } }));
  assert.is(orders.totalElements, 10, JSON.stringify(outcomes));
  assert.is(outcomes.filter((x) => x === 'COMPLETED').length, 10);
  assert.is(ok(await o.on(1)('GET', `/v1/products/${product.productId}`)).stockQuantity, 0);

  // Every process runs a delivery worker: each event still goes out once.
  for (let tries = 0; receiver.received.length < 10 && tries < 400; tries++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 3000));
  const delivered = receiver.received.map((r) => JSON.parse(r.body));
  assert.is(
    delivered.length,
    10,
    JSON.stringify(
      receiver.received.map((r) => [
        JSON.parse(r.body).id,
        JSON.parse(r.body).data.orderId,
        r.headers?.['x-svc-delivery-id'] ?? r.headers?.['svc-delivery-id'],
      ]),
    ),
  );
  assert.equal(new Set(delivered.map((e) => e.data.orderId)).size, 10);
  assert.equal(new Set(delivered.map((e) => e.id)).size, 10);

  // A machine dies: the others keep serving the same store; then all three restart on the same data.
  await processes[2].kill();
  assert.is(ok(await o.on(0)('GET', '/v1/orders', { query: { size: 1 } })).totalElements, 10);
  await Promise.all(processes.slice(0, 2).map((p) => p.stop()));
  processes = [await serve(0)];
  processes.push(...(await Promise.all([serve(1), serve(2)])));
  for (let i = 0; i < 3; i++) assert.is(ok(await o.on(i)('GET', '/v1/orders', { query: { size: 1 } })).totalElements, 10);
});

test('a flow timer of an item fires once although three processes run the job loop', async () => {
  const o = await owner('timers');
  await connectSandbox(o.on(0));
  const definition = {
    progression: 'ITEM',
    initial: 'PAID',
    states: { PAID: { label: '결제 완료', coreStatus: 'PAID' }, READY: { label: '준비 완료', coreStatus: 'CONFIRMED', final: true } },
    transitions: [{ from: 'PAID', to: 'READY', on: { timer: { after: 'PT2S' } } }],
    actions: {},
  };
  const flow = ok(await o.on(1)('POST', '/v1/commerce-flows', { body: { name: '2초 흐름', kind: 'SHIPPING', definition } }), 201);
  ok(await o.on(2)('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  const product = await createProduct(o.on(0), { name: '타이머 상품', salePrice: 10000, stockQuantity: 5, flowId: flow.flowId });
  assert.is(await purchase(0, o.storeId, { productId: product.productId, optionId: product.optionId }), 'COMPLETED');
  const item = ok(await o.on(0)('GET', '/v1/orders', { query: { size: 1 } })).contents[0].items[0];
  let runs: any[] = [];
  for (let tries = 0; tries < 200 && !runs.some((r) => r.trigger.kind === 'timer'); tries++) {
    await new Promise((r) => setTimeout(r, 50));
    runs = ok(await o.on(tries % 3)('GET', `/v1/order-items/${item.orderItemId}/flow/runs`)).contents;
  }
  await new Promise((r) => setTimeout(r, 2500));
  runs = ok(await o.on(1)('GET', `/v1/order-items/${item.orderItemId}/flow/runs`)).contents;
  assert.equal(
    runs.map((r: any) => [r.trigger.kind, r.to]),
    [
      ['start', 'PAID'],
      ['timer', 'READY'],
    ],
  );
});

test('an app notification of a flow state is called once although three processes run the delivery job', async () => {
  const o = await owner('apps');
  await connectSandbox(o.on(0));
  const handle = uniqueHandle('once');
  const manifest = { handle, name: 'Once', scopes: ['order:r'], flow: { notifications: { ping: { label: '알림' } } } };
  const code = `var __app = { notifications: { ping: async (n, ctx) => {
    const calls = (await storage.get('calls')) ?? [];
    calls.push(ctx.invocationId);
    await storage.set('calls', calls);
    return true;
  } } };`;
  await deploy(o.on(1), manifest, bundleFor(manifest, code));
  const installation = await installApp(o.on(2), handle);
  const definition = {
    progression: 'ITEM',
    initial: 'PAID',
    states: {
      PAID: { label: '결제 완료', coreStatus: 'PAID' },
      PINGED: { label: '알림', coreStatus: 'CONFIRMED', final: true, notify: [{ channel: `app.${handle}.ping` }] },
    },
    transitions: [{ from: 'PAID', to: 'PINGED', on: { action: 'PING' } }],
    actions: { PING: { label: '알림', actor: 'SELLER', scope: 'ITEM' } },
  };
  const flow = ok(await o.on(0)('POST', '/v1/commerce-flows', { body: { name: '알림 흐름', kind: 'SHIPPING', definition } }), 201);
  ok(await o.on(1)('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  const product = await createProduct(o.on(2), { name: '알림 상품', salePrice: 10000, stockQuantity: 5, flowId: flow.flowId });
  assert.is(await purchase(1, o.storeId, { productId: product.productId, optionId: product.optionId }), 'COMPLETED');
  const item = ok(await o.on(0)('GET', '/v1/orders', { query: { size: 1 } })).contents[0].items[0];
  ok(await o.on(0)('POST', `/v1/order-items/${item.orderItemId}/actions/PING`, { body: {} }));
  // The installation's activity lists each call of the function once.
  const pingCalls = async (i: number) => {
    const activity = ok(await o.on(i)('GET', `/v1/apps/installations/${installation.installationId}/activity`));
    return JSON.stringify(activity).split('"ping"').length - 1;
  };
  let seen = 0;
  for (let tries = 0; tries < 200 && seen === 0; tries++) {
    await new Promise((r) => setTimeout(r, 50));
    seen = await pingCalls(tries % 3);
  }
  await new Promise((r) => setTimeout(r, 3000));
  const runs = ok(await o.on(2)('GET', `/v1/order-items/${item.orderItemId}/flow/runs`)).contents;
  const notification = runs.at(-1).notifications[0];
  assert.equal([notification.sent, typeof notification.invocationId], [true, 'string']);
  assert.is(await pingCalls(1), 1);
});

test('a process killed in the middle of a webhook send: its lease lapses and another process delivers the event; nothing is lost', async () => {
  const o = await owner2();
  await connectSandbox(o.on(0));
  const product = await createProduct(o.on(0), { name: '중단 상품', salePrice: 10000, stockQuantity: 5 });
  // The first send of each event hangs (the process dies mid-send); later sends are answered.
  const seen = new Set<string>();
  const hanging = await startReceiver((r) => {
    const id = JSON.parse(r.body).id;
    if (seen.has(id)) return { status: 200, body: 'ok' };
    seen.add(id);
    return null;
  });
  try {
    const hook = ok(await o.on(0)('POST', '/v1/webhooks', { body: { url: hanging.url, eventTypes: ['ORDER.PAID'] } }), 201);
    // Only process 0 runs while the event is made and its first send starts.
    await Promise.all(processes.slice(1).map((p) => p.stop()));
    assert.is(await purchase(0, o.storeId, { productId: product.productId, optionId: product.optionId }, 0), 'COMPLETED');
    for (let tries = 0; hanging.received.length < 1 && tries < 200; tries++) await new Promise((r) => setTimeout(r, 50));
    assert.is(hanging.received.length, 1);
    await processes[0].kill();
    processes = [await serve(1)];
    // The claim's lease (the send deadline and 5 s) lapses; the surviving process sends again.
    for (let tries = 0; hanging.received.length < 2 && tries < 600; tries++) await new Promise((r) => setTimeout(r, 50));
    assert.is(hanging.received.length, 2);
    const [first, second] = hanging.received.map((r) => JSON.parse(r.body));
    assert.is(second.id, first.id);
    let record: any = null;
    for (let tries = 0; record?.status !== 'SUCCESS' && tries < 100; tries++) {
      record = ok(await o.on(1)('GET', `/v1/webhooks/${hook.webhookId}/deliveries`)).contents[0];
      if (record?.status !== 'SUCCESS') await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal([record.status, record.attemptCount], ['SUCCESS', 2]);
  } finally {
    await hanging.close();
  }
});

test.run();
