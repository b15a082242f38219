/**
 * Issue 18 benchmark: member purchases per second (sheet → payment start → the sandbox window's approve
 * button → order) and `GET /v1/store` req/s for `svc serve` on SQLite (one process) and on PostgreSQL with
 * 1, 2 and 3 processes sharing one database, and `svc serve --workers 3` (the three processes as one command
 * on one port), printed as ratios of the SQLite figures in one run.
 */
import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../src/server/main.js';
import { statementCounter } from '../../src/db/statement-count.js';
import { createTestDatabase, stopTestPostgres } from '../helpers/postgres.js';
import { freePort, localDeployment, startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { figure, seconds, treeCpuMicros } from './lib.js';

const SECONDS = seconds(4);
const BUYERS = 24;

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (!json.meta?.isSuccess) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.error)}`);
  return json.data;
}

/** A deployment: processes sharing one database and data dir, behind one public address. */
async function deployment(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));
  const local = await localDeployment({ ...env, SVC_DATA_DIR: dataDir });
  const processes: ServiceProcess[] = [];
  const start = async (i: number) => processes.push(await local.serve(i));
  await start(0);
  const urls = (n: number) => Array.from({ length: n }, (_, i) => local.url(i));
  return {
    start,
    urls,
    cpu: () => processes.reduce((sum, p) => sum + treeCpuMicros(p.proc.pid!), 0),
    stderr: () => processes.map((p) => p.stderr()).join('\n'),
    stop: () => Promise.all(processes.map((p) => p.stop())),
  };
}

/** Owner, store, sandbox gateway, a product with plenty of stock, and member buyers (delegated tokens). */
async function setUp(base: string) {
  await call(base, 'POST', '/auth/v1/signup', {}, { email: 'bench@scale.example', password: 'password-1234', name: '벤치' });
  const { accessToken } = await call(base, 'POST', '/auth/v1/login', {}, { email: 'bench@scale.example', password: 'password-1234' });
  const { storeId } = await call(base, 'POST', '/auth/v1/stores', { authorization: `Bearer ${accessToken}` }, { name: '벤치 상점', code: 'bench-scale' });
  const admin = { authorization: `Bearer ${accessToken}`, 'x-store-id': storeId };
  await call(base, 'PUT', '/v1/store/payment-providers/pg_one', admin, {
    environment: 'TEST',
    clientKey: 'test_ck_svcBenchSandbox0000001',
    secretKey: 'test_sk_svcBenchSandbox0000001',
  });
  await call(base, 'PATCH', '/v1/store/payment-providers/pg_one', admin, { enabled: true });
  const product = await call(base, 'POST', '/v1/products', admin, { name: '벤치 상품', salePrice: 12000, stockQuantity: 10_000_000 });
  const buyers = await Promise.all(
    Array.from({ length: BUYERS }, async (_, i) => {
      const d = await call(base, 'POST', '/v1/customers/delegations', admin, { uid: `bench-${i}` });
      return { 'x-store-id': storeId, authorization: `Bearer ${d.accessToken}` };
    }),
  );
  return { admin, buyers, item: { productId: product.productId, optionId: product.variants[0].variantId, quantity: 1 } };
}

type Setup = Awaited<ReturnType<typeof setUp>>;
const address = { receiverName: '벤치', phone: '01012345678', zipCode: '06236', address1: '서울 강남구 테헤란로 1' };

async function purchase(base: string, buyer: Record<string, string>, item: Setup['item']) {
  const sheet = await call(base, 'POST', '/storefront/v1/checkout', buyer, { directItem: item });
  const start = await call(base, 'POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, buyer, {
    option: 'pg_one:CARD',
    returnUrl: 'http://localhost/done',
    shippingAddress: address,
  });
  const window = `${base}/pay/${start.paymentId}`;
  const token = /name="token" value="([^"]+)"/.exec(await (await fetch(window)).text())![1];
  const approved = await fetch(window, { method: 'POST', body: new URLSearchParams({ token, outcome: 'APPROVE' }), redirect: 'manual' });
  const location = approved.headers.get('location');
  if (!location || new URL(location).searchParams.get('status') !== 'COMPLETED')
    throw new Error(`purchase not completed: ${approved.status} ${location ?? (await approved.text()).slice(0, 300)}`);
}

/** Purchases per second with each buyer on one process in turn (the test's round-robin balancer); `cpu` reads the deployment's CPU µs so far. */
async function purchasesPerSecond(urls: string[], s: Setup, cpu?: () => number) {
  const c0 = cpu?.() ?? 0;
  const until = performance.now() + SECONDS * 1000;
  const watchdog = setTimeout(() => console.error('purchases still running', urls), (SECONDS + 20) * 1000);
  let count = 0;
  const t0 = performance.now();
  await Promise.all(
    s.buyers.map(async (buyer, i) => {
      while (performance.now() < until) {
        await purchase(urls[(i + count) % urls.length], buyer, s.item);
        count++;
      }
    }),
  );
  clearTimeout(watchdog);
  if (cpu) console.log(`  service CPU per purchase: ${((cpu() - c0) / count).toFixed(0)} µs (all its processes)`);
  return count / ((performance.now() - t0) / 1000);
}

/** Statements and round trips of one member purchase on PostgreSQL, counted in a service started in this process (after one uncounted purchase). */
async function purchaseRoundTrips(databaseUrl: string) {
  const running = await startService({
    port: 0,
    host: '127.0.0.1',
    mode: 'dev',
    seed: false,
    dataDir: mkdtempSync(join(tmpdir(), 'svc-bench-scale-')),
    databaseUrl,
  });
  try {
    const s = await setUp(running.url);
    await purchase(running.url, s.buyers[0], s.item);
    const counter = statementCounter(running.services.db.$client);
    const before = { ...counter };
    await purchase(running.url, s.buyers[0], s.item);
    return { statements: counter.statements - before.statements, roundTrips: counter.roundTrips - before.roundTrips };
  } finally {
    await running.close();
  }
}

/** `GET /v1/store` req/s: 48 connections spread over the processes. */
async function storeRps(urls: string[], s: Setup) {
  const runs = await Promise.all(
    urls.map((url) => autocannon({ url: `${url}/v1/store`, headers: s.admin, connections: Math.ceil(48 / urls.length), duration: SECONDS })),
  );
  if (runs.some((r) => r.non2xx > 0 || r.errors > 0)) throw new Error('GET /v1/store failed during the run');
  return runs.reduce((n, r) => n + r.requests.average, 0);
}

const keepAlive = setInterval(() => {}, 1000);
const sqlite = await deployment({});
let baseline: { buy: number; store: number };
try {
  const s = await setUp(sqlite.urls(1)[0]);
  await purchasesPerSecond(sqlite.urls(1), s);
  baseline = { buy: await purchasesPerSecond(sqlite.urls(1), s, sqlite.cpu), store: await storeRps(sqlite.urls(1), s) };
  console.log(`SQLite, 1 process:      ${baseline.buy.toFixed(0)} purchases/s · GET /v1/store ${baseline.store.toFixed(0)} req/s`);
} finally {
  await sqlite.stop();
}

// PostgreSQL through the asynchronous pool (src/db/pg/pool.ts), 1 to 3 processes on one database.
try {
  const postgres = await deployment({ SVC_DATABASE_URL: await createTestDatabase() });
  try {
    const s = await setUp(postgres.urls(1)[0]);
    for (let n = 1; n <= 3; n++) {
      if (n > 1) await postgres.start(n - 1);
      await purchasesPerSecond(postgres.urls(n), s);
      const buy = await purchasesPerSecond(postgres.urls(n), s, postgres.cpu);
      const store = await storeRps(postgres.urls(n), s);
      figure({ name: `PostgreSQL ${n} process member purchases`, value: buy, unit: 'purchases/s', ratio: buy / baseline.buy, baseline: 'SQLite' });
      console.log(
        `PostgreSQL, ${n} process${n > 1 ? 'es' : ''}: ${buy.toFixed(0)} purchases/s (${((buy / baseline.buy) * 100).toFixed(0)}% of SQLite) · GET /v1/store ${store.toFixed(0)} req/s (${((store / baseline.store) * 100).toFixed(0)}%)`,
      );
    }
  } catch (error) {
    console.error(
      postgres
        .stderr()
        .split('\n')
        .filter((l) => l.trim())
        .slice(-15)
        .join('\n'),
    );
    throw error;
  } finally {
    await postgres.stop();
  }
  const counted = await purchaseRoundTrips(await createTestDatabase());
  console.log(
    `PostgreSQL, one member purchase (sheet → start → approve → order): ${counted.roundTrips} round trips, ${counted.statements} statements (target ≤ 25 round trips)`,
  );
  figure({ name: 'PostgreSQL round trips per purchase', value: counted.roundTrips, unit: 'round trips' });
  figure({ name: 'PostgreSQL statements per purchase', value: counted.statements, unit: 'statements' });
  // The same three processes as one command: `svc serve --workers 3`, one port, node:cluster spreading the connections.
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));
  const port = await freePort();
  const workers = await startServiceProcess(['serve', '--workers', '3'], {
    SVC_DATABASE_URL: await createTestDatabase(),
    SVC_DATA_DIR: dataDir,
    SVC_PORT: String(port),
    SVC_HOST: '127.0.0.1',
    SVC_PUBLIC_URL: `http://127.0.0.1:${port}`,
  });
  try {
    const s = await setUp(workers.url);
    await purchasesPerSecond([workers.url], s);
    const buy = await purchasesPerSecond([workers.url], s);
    const store = await storeRps([workers.url], s);
    console.log(
      `PostgreSQL, svc serve --workers 3: ${buy.toFixed(0)} purchases/s (${((buy / baseline.buy) * 100).toFixed(0)}% of SQLite) · GET /v1/store ${store.toFixed(0)} req/s (${((store / baseline.store) * 100).toFixed(0)}%)`,
    );
  } finally {
    await workers.stop();
  }
} finally {
  await stopTestPostgres();
  clearInterval(keepAlive);
}
