/**
 * Three `svc serve` processes on one PostgreSQL behind the test's own round-robin client (issue 18): 50
 * buyers racing for 10 units across the processes make exactly 10 orders, each ORDER.PAID reaches the
 * webhook receiver once although every process runs a delivery worker, one process killed with SIGKILL
 * leaves the others serving, and a restart of all three resumes on the same data.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../helpers/assert.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { apiClient, type Api } from '../helpers/service.js';
import { connectSandbox, createProduct, GUEST, RETURN_URL, ADDRESS } from '../checkout/support.js';
import { startReceiver } from '../webhooks/receiver.js';

const freePort = () => new Promise<number>((resolve, reject) => {
  const probe = createServer();
  probe.once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});

let databaseUrl: string;
let dataDir: string;
let ports: number[];
let processes: ServiceProcess[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;

/** One process of the deployment: the shared database, data dir (keys) and public address, its own port. */
const serve = (port: number) => startServiceProcess(['serve'], {
  SVC_DATABASE_URL: databaseUrl, SVC_DATA_DIR: dataDir, SVC_PORT: String(port), SVC_HOST: '127.0.0.1',
  SVC_PUBLIC_URL: `http://127.0.0.1:${ports[0]}`, SVC_UNSAFE_ALLOW_WEBHOOK_HOSTS: '127.0.0.1',
});
const urlOf = (i: number) => `http://127.0.0.1:${ports[i % 3]}`;

test.before(async () => {
  databaseUrl = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'svc-scale-'));
  ports = [await freePort(), await freePort(), await freePort()];
  // The first start creates the schema and the keys; the others join it.
  processes = [await serve(ports[0])];
  processes.push(...(await Promise.all([serve(ports[1]), serve(ports[2])])));
  receiver = await startReceiver();
});
test.after(async () => {
  await Promise.all(processes.map((p) => p.stop().catch(() => undefined)));
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function owner() {
  const anon = apiClient(urlOf(0));
  ok(await anon('POST', '/auth/v1/signup', { body: { email: 'owner@scale.example', password: 'password-1234', name: '사장' } }), 201);
  const token = ok(await anon('POST', '/auth/v1/login', { body: { email: 'owner@scale.example', password: 'password-1234' } })).accessToken;
  const store = ok(await anon('POST', '/auth/v1/stores', { token, body: { name: '확장 상점', code: 'scale-store' } }), 201);
  return { token, storeId: store.storeId as string, on: (i: number) => apiClient(urlOf(i), { token, storeId: store.storeId }) };
}

/** A guest's whole purchase on process `i`: sheet, payment start, and the approve button of the sandbox window. */
async function purchase(i: number, storeId: string, item: { productId: string; optionId: string }) {
  const buyer = apiClient(urlOf(i), { storeId });
  const sheet = await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { ...item, quantity: 1 } } });
  if (sheet.status !== 201) return sheet.body.error.code as string;
  const start = await buyer('POST', `/storefront/v1/checkout/${sheet.data.checkoutId}/payment`, {
    body: { option: 'pg_one:CARD', returnUrl: RETURN_URL, guest: GUEST, shippingAddress: ADDRESS },
  });
  if (start.status !== 201) return start.body.error.code as string;
  const window = `${urlOf(i + 1)}/pay/${start.data.paymentId}`;
  const token = /name="token" value="([^"]+)"/.exec(await (await fetch(window)).text())?.[1];
  const approved = await fetch(window, { method: 'POST', body: new URLSearchParams({ token: token ?? '', outcome: 'APPROVE' }), redirect: 'manual' });
  return new URL(approved.headers.get('location') ?? 'http://x/?status=NONE').searchParams.get('status') ?? 'NONE';
}

test('50 buyers race for 10 units across three processes: exactly 10 orders, each ORDER.PAID delivered once; a SIGKILL and a restart lose nothing', async () => {
  const o = await owner();
  await connectSandbox(o.on(0));
  const product = await createProduct(o.on(1), { name: '한정판', salePrice: 10000, stockQuantity: 10 });
  ok(await o.on(2)('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } }), 201);

  const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => purchase(i, o.storeId, { productId: product.productId, optionId: product.optionId })));
  const orders = ok(await o.on(0)('GET', '/v1/orders', { query: { size: 100 } }));
  assert.is(orders.totalElements, 10, JSON.stringify(outcomes));
  assert.is(outcomes.filter((x) => x === 'COMPLETED').length, 10);
  assert.is(ok(await o.on(1)('GET', `/v1/products/${product.productId}`)).stockQuantity, 0);

  // Every process runs a delivery worker: each event still goes out once.
  for (let tries = 0; receiver.received.length < 10 && tries < 400; tries++) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 3000));
  const delivered = receiver.received.map((r) => JSON.parse(r.body));
  assert.is(delivered.length, 10);
  assert.equal(new Set(delivered.map((e) => e.data.orderId)).size, 10);
  assert.equal(new Set(delivered.map((e) => e.eventId ?? e.id)).size, 10);

  // A machine dies: the others keep serving the same store; then all three restart on the same data.
  await processes[2].kill();
  assert.is(ok(await o.on(0)('GET', '/v1/orders', { query: { size: 1 } })).totalElements, 10);
  await Promise.all(processes.slice(0, 2).map((p) => p.stop()));
  processes = [await serve(ports[0])];
  processes.push(...(await Promise.all([serve(ports[1]), serve(ports[2])])));
  for (let i = 0; i < 3; i++) assert.is(ok(await o.on(i)('GET', '/v1/orders', { query: { size: 1 } })).totalElements, 10);
});

test.run();
