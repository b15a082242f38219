/**
 * Issue 5 benchmark: webhook deliveries per second to a local receiver (signed, signatures verified by
 * the receiver), and how much one receiver that never answers slows the others — both in one run.
 * Standalone: `node --import tsx test/bench/webhooks.ts`. With `--receiver` this file is the receiver
 * child (its own process, so it has its own core): `/ok` verifies and answers 200, `/hang` never answers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bareRun, cpuFigure, figure, median, quick, rounds, startBareH3, startJsonReady } from './lib.js';

const EVENTS = quick ? 1000 : 5000;
const ROUNDS = rounds(6);

async function receiver() {
  const { verifyWebhook } = await import('../../src/index.js');
  let secret = '';
  const stats = { ok: 0, invalid: 0, hung: 0 };
  const server = createServer((req, res) => {
    if (req.url === '/secret') {
      let s = '';
      req
        .on('data', (c) => (s += c))
        .on('end', () => {
          secret = s;
          res.end();
        });
      return;
    }
    if (req.url === '/stats') return res.end(JSON.stringify(stats));
    if (req.url === '/hang') {
      stats.hung++;
      return;
    }
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => {
        // The service runs a real clock here; verify exactly as a seller's receiver would.
        const check = verifyWebhook({ secret, header: req.headers['svc-signature'] as string, body: Buffer.concat(chunks) });
        if (check.valid) stats.ok++;
        else stats.invalid++;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
}

async function bench() {
  const { startService } = await import('../../src/server/main.js');
  const { sqliteOf, transaction } = await import('../../src/db/client.js');
  const { emitEvent } = await import('../../src/modules/events/outbox.js');
  const { webhookDeliveries } = await import('../../src/modules/webhooks/schema.js');
  const { and, eq, count } = await import('drizzle-orm');
  const child = await startJsonReady('node', ['--import', 'tsx', join(import.meta.dirname, 'webhooks.ts'), '--receiver']);
  const base = `http://127.0.0.1:${child.ready.port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-webhooks-'));
  const running = await startService({ port: 0, host: '127.0.0.1', mode: 'dev', dataDir, unsafeWebhookHosts: ['127.0.0.1'] });
  const { services, seeded } = running;
  const headers = { authorization: `Bearer ${seeded!.ownerToken}`, 'x-store-id': seeded!.storeId, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${running.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as any;
    if (!json.meta.isSuccess) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json.data;
  };
  const ok = await api('POST', '/v1/webhooks', { url: `${base}/ok`, eventTypes: ['ORDER.PAID'] });
  await fetch(`${base}/secret`, { method: 'POST', body: ok.secret });

  const received = async () => ((await fetch(`${base}/stats`).then((r) => r.json())) as { ok: number }).ok;
  const succeeded = async () =>
    (await services.db
      .select({ n: count() })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, ok.webhookId), eq(webhookDeliveries.status, 'SUCCESS')))
      .get())!.n;
  const emitMs: number[] = [];

  /**
   * Emits `n` ORDER.PAID events in one transaction (timed apart: that cost belongs to the emitting
   * request), then times until the healthy receiver got all n and every record of it reads SUCCESS.
   */
  async function run(n: number, cpu: number[] = []): Promise<number> {
    const before = await succeeded();
    const target = (await received()) + n;
    const e0 = performance.now();
    await transaction(services.db, async () => {
      for (let i = 0; i < n; i++) {
        const orderId = `ord_bench_${before + i}`;
        await emitEvent(services.db, services.clock.now(), {
          storeId: seeded!.storeId,
          type: 'ORDER.PAID',
          resource: { type: 'ORDER', id: orderId },
          data: { orderId, orderNo: 20260101000000 + i, status: 'PAID', testPayment: true },
        });
      }
    });
    // The emitting transaction's WAL pages are checkpointed on its account, not during the timed sends.
    sqliteOf(services.db)!.pragma('wal_checkpoint(PASSIVE)');
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    emitMs.push(t0 - e0);
    while ((await received()) < target) await new Promise((r) => setTimeout(r, 20));
    while ((await succeeded()) < before + n) await new Promise((r) => setTimeout(r, 5));
    const used = process.cpuUsage(c0);
    cpu.push((used.user + used.system) / n);
    return n / ((performance.now() - t0) / 1000);
  }

  try {
    await run(1000); // warm-up: connections, JIT, prepared statements
    const alone: number[] = [];
    const withHang: number[] = [];
    const aloneCpu: number[] = [];
    const withHangCpu: number[] = [];
    const withHangRun = async () => {
      const hang = await api('POST', '/v1/webhooks', { url: `${base}/hang`, eventTypes: ['ORDER.PAID'] });
      withHang.push(await run(EVENTS, withHangCpu));
      await api('DELETE', `/v1/webhooks/${hang.webhookId}`);
    };
    // Alternated, and the order flipped each round, so warm-up and drift on a shared machine hit both alike.
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        alone.push(await run(EVENTS, aloneCpu));
        await withHangRun();
      } else {
        await withHangRun();
        alone.push(await run(EVENTS, aloneCpu));
      }
    }
    // The baseline's CPU per request in the same run, measured after the deliveries so it competes with none of them.
    const bare = await startBareH3();
    const bareRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
    try {
      await bareRun(bare, 1);
      for (let i = 0; i < rounds(2); i++) bareRuns.push(await bareRun(bare));
    } finally {
      bare.child.kill();
    }
    const stats = (await fetch(`${base}/stats`).then((r) => r.json())) as { ok: number; invalid: number; hung: number };
    const a = median(alone);
    const h = median(withHang);
    const slowdown = (1 - h / a) * 100;
    console.log(
      `webhook deliveries, ${EVENTS} ORDER.PAID events per run, median of ${ROUNDS} (signed; receiver verified ${stats.ok}, invalid ${stats.invalid})`,
    );
    console.log(`  one healthy receiver                     ${Math.round(a)} deliveries/s   (target ≥ 2,000)   runs: ${alone.map(Math.round).join(', ')}`);
    console.log(
      `  same, plus a receiver that never answers ${Math.round(h)} deliveries/s   runs: ${withHang.map(Math.round).join(', ')}  (${stats.hung} requests held)`,
    );
    console.log(`  slowdown caused by the hanging receiver  ${slowdown.toFixed(1)}%   (target < 10%)`);
    console.log(
      `  service CPU per delivery (less sensitive to other load on the machine): ${median(aloneCpu).toFixed(0)} µs alone, ${median(withHangCpu).toFixed(0)} µs with the hanging receiver (${((median(withHangCpu) / median(aloneCpu) - 1) * 100).toFixed(1)}%)`,
    );
    console.log(`  (emitting: ${Math.round((median(emitMs) / EVENTS) * 1000)} µs per event inside the emitting transaction, not counted above)`);
    const bareCpu = { name: 'bare H3 request', microseconds: median(bareRuns.map((r) => r.cpuPerOp)) };
    figure({ name: 'webhook deliveries', value: a, unit: 'deliveries/s' });
    figure({ name: 'slowdown by a hanging receiver', value: slowdown, unit: '%' });
    cpuFigure('webhook delivery', median(aloneCpu), bareCpu);
    cpuFigure('webhook delivery beside a hanging receiver', median(withHangCpu), bareCpu);
    if (stats.invalid > 0) process.exitCode = 1;
  } finally {
    await running.close();
    child.child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--receiver')) await receiver();
else await bench();
