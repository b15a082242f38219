/**
 * Issue 17 benchmark, side by side in one run: event ingest (`POST /storefront/v1/events`, batches of 50,
 * a new visitor per request so the per-visitor limit never short-cuts) in events/s and as a ratio to a bare
 * H3 hello handler (target ≥ 20,000 events/s); the recompute of 3 days holding 1,000,000 raw events
 * (target ≤ 10 s); each report over 92 days (target ≤ 50 ms median).
 * Standalone: `node --import tsx test/bench/analytics.ts`. With `--serve` this file is the service child.
 */
import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bareRun, cpuFigure, cpuMicros, figure, median, quick, rounds, seconds, startBareH3, startJsonReady, withCpu } from './lib.js';

/** A tenth of them in quick mode (`npm run bench -- --quick`): the fill alone takes a minute. */
const RAW_EVENTS = quick ? 100_000 : 1_000_000;
const BATCH = 50;
const REPORTS = ['overview', 'products', 'sources', 'devices', 'pages', 'search', 'checkout', 'realtime'];

async function serve() {
  const { startService } = await import('../../dist/src/server/main.js');
  const running = await startService({ port: 0, host: '127.0.0.1', mode: 'dev', dataDir: mkdtempSync(join(tmpdir(), 'svc-bench-analytics-')) });
  console.log(JSON.stringify({ url: running.url, storeId: running.seeded!.storeId, ownerToken: running.seeded!.ownerToken }));
}

/** 1,000,000 raw events over the 3 recomputed days in a second service (in this process), then the recompute timed. */
async function recomputeBench() {
  const { startService } = await import('../../dist/src/server/main.js');
  const { transaction } = await import('../../dist/src/db/client.js');
  const { recompute } = await import('../../dist/src/modules/analytics/recompute.js');
  const { analyticsReport, realtimeReport } = await import('../../dist/src/modules/analytics/reports.js');
  const { kstDayStart } = await import('../../dist/src/modules/orders/queries.js');
  const { addDays, today } = await import('../../dist/src/kernel/dates.js');
  const running = await startService({
    port: 0,
    host: '127.0.0.1',
    mode: 'dev',
    clock: 'manual',
    dataDir: mkdtempSync(join(tmpdir(), 'svc-bench-analytics-raw-')),
  });
  const { services } = running;
  const storeId = running.seeded!.storeId;
  const now = services.clock.now();
  const from = kstDayStart(addDays(today(now), -2));
  const span = now - from;
  const insert = services.db.$client
    .prepare(`INSERT INTO analytics_events (id, store_id, visitor_id, client_session_id, name, at, path, referrer_host, utm_source, utm_medium, utm_campaign, device, bot, test, product_id, query, result_count, amount, data)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 0, ?, ?, ?, ?, ?)`);
  const names = ['page', 'page', 'page', 'product_view', 'product_list_view', 'search', 'page_hide', 'cart_add', 'checkout_start', 'purchase'];
  const t0 = performance.now();
  const perVisitor = 20;
  await transaction(services.db, async () => {
    for (let v = 0; v < RAW_EVENTS / perVisitor; v++) {
      let at = from + Math.floor((v / (RAW_EVENTS / perVisitor)) * (span - 3_600_000));
      for (let i = 0; i < perVisitor; i++) {
        at += 20_000 + (((v * 7 + i * 13) % 50) * 60_000) / 10;
        const name = names[(v + i) % names.length];
        await insert.run(
          `aev_${v}_${i}`,
          storeId,
          `visitor-${v}`,
          `s-${v}`,
          name,
          at,
          `/p/${(v + i) % 300}`,
          i === 0 && v % 3 === 0 ? 'search.naver.com' : null,
          i === 0 && v % 5 === 0 ? 'kakao' : null,
          i === 0 && v % 5 === 0 ? 'c1' : null,
          v % 4 === 0 ? 'MOBILE' : 'DESKTOP',
          v % 97 === 0 ? 1 : 0,
          name === 'product_view' || name === 'cart_add' ? `prd_${(v + i) % 500}` : null,
          name === 'search' ? `term ${v % 200}` : null,
          name === 'search' ? v % 9 : null,
          name === 'purchase' ? 30000 : null,
          name === 'product_list_view'
            ? JSON.stringify({ productIds: [`prd_${v % 500}`, `prd_${(v + 1) % 500}`] })
            : name === 'purchase'
              ? JSON.stringify({ items: [{ productId: `prd_${v % 500}`, amount: 27000 }] })
              : null,
        );
      }
    }
  });
  console.log(
    `filled ${RAW_EVENTS.toLocaleString('en')} raw events (${(RAW_EVENTS / perVisitor).toLocaleString('en')} visitors) over 3 days in ${Math.round(performance.now() - t0)} ms`,
  );
  const runs: number[] = [];
  const recomputeCpu: number[] = [];
  for (let i = 0; i < rounds(3); i++) {
    const t = performance.now();
    const c = cpuMicros();
    await recompute(services.db, now);
    recomputeCpu.push(cpuMicros() - c);
    runs.push(performance.now() - t);
  }
  figure({ name: 'recompute of 1M events', value: median(runs) / 1000, unit: 's' });
  figure({ name: 'cpu per recompute of 1M events', value: median(recomputeCpu) / 1e6, unit: 's' });
  const rows = Number(await services.db.$client.prepare('SELECT count(*) FROM analytics_day_rows').pluck().get());
  console.log(
    `recompute of the latest 3 days (${RAW_EVENTS.toLocaleString('en')} events): median ${Math.round(median(runs))} ms of [${runs.map(Math.round).join(', ')}], CPU ${Math.round(median(recomputeCpu) / 1000)} ms (target ≤ 10,000 ms); ${rows} per-date rows`,
  );
  // 92 days of rows: the 3 computed days copied back over the earlier 89.
  await transaction(services.db, async () => {
    const days = (await services.db.$client.prepare('SELECT * FROM analytics_day_rows').all()) as Record<string, unknown>[];
    const columns = Object.keys(days[0]);
    const copy = services.db.$client.prepare(`INSERT OR IGNORE INTO analytics_day_rows (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    for (let back = 3; back < 92; back += 3)
      for (const d of days) await copy.run(...columns.map((c) => (c === 'date' ? addDays(d.date as string, -back) : d[c])));
  });
  const period = { from: addDays(today(now), -91), to: today(now), includeTest: false };
  for (const name of REPORTS) {
    const times: number[] = [];
    const n = rounds(21);
    const c0 = cpuMicros();
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      if (name === 'realtime') await realtimeReport(services.db, storeId, false, now);
      else await analyticsReport(services.db, storeId, name as never, period, now);
      times.push(performance.now() - t);
    }
    const cpu = (cpuMicros() - c0) / n;
    console.log(`report ${name} over 92 days: median ${median(times).toFixed(1)} ms, CPU ${(cpu / 1000).toFixed(1)} ms (target ≤ 50 ms; products ≤ 20 ms)`);
    figure({ name: `${name} report 92 days`, value: median(times), unit: 'ms' });
    figure({ name: `cpu per ${name} report 92 days`, value: cpu, unit: 'µs' });
  }
  await running.close();
}

/** Ingest requests per second and the requests made (for the CPU per request). */
async function ingestRps(url: string, headers: Record<string, string>, duration: number) {
  const at = new Date().toISOString();
  const events = Array.from({ length: BATCH }, (_, i) => ({
    name: i % 5 === 0 ? 'product_view' : 'page',
    at,
    path: `/p/${i}`,
    productId: i % 5 === 0 ? `prd_${i}` : undefined,
  }));
  let n = 0;
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 50,
    duration: quick ? 1 : duration,
    body: JSON.stringify({ events }),
    headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36' },
    setupClient: (client) => {
      client.setHeaders({
        ...headers,
        'content-type': 'application/json',
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36',
        'x-svc-visitor': `visitor-${n}`,
        'x-svc-session': `session-${n}`,
      });
      client.on('response', () => {
        n++;
        client.setHeaders({
          ...headers,
          'content-type': 'application/json',
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0 Safari/537.36',
          'x-svc-visitor': `visitor-${n}`,
          'x-svc-session': `session-${n}`,
        });
      });
    },
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average as number, requests: result.requests.total as number };
}

async function bench() {
  const bare = await startBareH3();
  const svc = await startJsonReady('node', ['--no-node-snapshot', '--import', 'tsx', join(import.meta.dirname, 'analytics.ts'), '--serve']);
  const url = `${svc.ready.url}/storefront/v1/events`;
  const headers = { 'x-store-id': svc.ready.storeId };
  try {
    await bareRun(bare, 1);
    await ingestRps(url, headers, 1);
    const bareRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
    const ingestRuns: { rps: number; cpuPerOp: number }[] = [];
    for (let i = 0; i < rounds(3); i++) {
      bareRuns.push(await bareRun(bare));
      const { result, cpuPerOp } = await withCpu(
        svc.child.pid!,
        () => ingestRps(url, headers, seconds(4)),
        (r) => r.requests,
      );
      ingestRuns.push({ rps: result.rps, cpuPerOp });
    }
    const bareRps = median(bareRuns.map((r) => r.rps));
    const ingest = median(ingestRuns.map((r) => r.rps));
    console.log(
      `POST /storefront/v1/events (50 a batch): ${Math.round(ingest)} req/s = ${Math.round(ingest * BATCH).toLocaleString('en')} events/s (target ≥ 20,000) vs bare H3 ${Math.round(bareRps)} req/s → ${((100 * ingest) / bareRps).toFixed(1)}% of bare`,
    );
    figure({ name: 'event ingest', value: ingest * BATCH, unit: 'events/s', ratio: ingest / bareRps, baseline: 'bare H3' });
    cpuFigure('event ingest request (50 events)', median(ingestRuns.map((r) => r.cpuPerOp)), {
      name: 'bare H3 request',
      microseconds: median(bareRuns.map((r) => r.cpuPerOp)),
    });
  } finally {
    bare.child.kill();
    svc.child.kill();
  }
  await recomputeBench();
}

if (process.argv.includes('--serve')) await serve();
else await bench();
