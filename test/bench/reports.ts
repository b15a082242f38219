/**
 * Issue 13 benchmark: the sales report over 92 days of 100,000 approved payments (and 10,000 refunds) in
 * one store answers in ≤ 50 ms median, beside a cached `GET /v1/store` in the same run. The payments are
 * written straight into the data file between two starts of `svc dev` (a purchase-by-purchase fill would
 * take minutes), each counted into the daily totals by the service's own ledger functions; foreign keys
 * are off for that one connection only.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countPayment, countRefund } from '../../src/modules/reports/ledger.js';
import { openDatabase, sqliteOf, transaction } from '../../src/db/client.js';
import { cpuFigure, figure, median, ownerHeaders, rounds, startJsonReady, treeCpuMicros } from './lib.js';

const PAYMENTS = 100_000;
const REFUNDS = 10_000;
const DAYS = 92;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-report-'));
const start = () => startJsonReady('node', ['--no-node-snapshot', 'bin/run.js', 'dev', '--port', '0', '--json', '--data-dir', dataDir]);

const first = await start();
const { storeId } = first.ready;
first.child.kill();
await first.child.catch(() => undefined);

// Opened as the service opens it (its turn-taking client under drizzle), so the ledger's functions and
// `transaction` run on it unchanged; the raw inserts go through the driver itself.
const opened = openDatabase(join(dataDir, 'svc.db'));
const ledger = opened.db;
const db = sqliteOf(ledger)!;
db.pragma('foreign_keys = OFF');
const now = Date.now();
const insertAttempt =
  db.prepare(`insert into payment_attempts (id, store_id, payment_id, seq, pg, method, pg_order_id, approved_method, approved_amount, status, return_url, test_payment, created_at, updated_at, approved_at)
  values (?, ?, ?, 1, ?, ?, ?, ?, ?, 'APPROVED', 'https://example.com', 0, ?, ?, ?)`);
const insertRefund =
  db.prepare(`insert into payment_refunds (id, store_id, payment_id, attempt_id, amount, point_refund_amount, reason, status, created_at, completed_at, order_item_ids)
  values (?, ?, ?, ?, ?, 0, 'BENCH', 'COMPLETED', ?, ?, '[]')`);
const methods = ['CARD', 'CARD', 'CARD', 'EASY_PAY', 'BANK_TRANSFER', 'MOBILE'];
await transaction(ledger, async () => {
  for (let i = 0; i < PAYMENTS; i++) {
    // Within the report's 92 Korean days, refunds an hour later still before the end of today.
    const at = now - 7_200_000 - Math.floor((i / PAYMENTS) * (DAYS - 2) * 86_400_000);
    const method = methods[i % methods.length];
    const pg = i % 3 ? 'pg_one' : 'pg_two';
    const amount = 10_000 + (i % 50) * 1000;
    insertAttempt.run(`att_bench${i}`, storeId, `pay_bench${i}`, pg, method, `bench-${i}`, method, amount, at, at, at);
    await countPayment(ledger, { storeId, at, pg, method, testPayment: false, amount });
    if (i % (PAYMENTS / REFUNDS) === 0) {
      insertRefund.run(`rfd_bench${i}`, storeId, `pay_bench${i}`, `att_bench${i}`, 5000, at + 3_600_000, at + 3_600_000);
      await countRefund(ledger, { storeId, at: at + 3_600_000, pg, method, testPayment: false, amount: 5000 });
    }
  }
});
await opened.close();

const svc = await start();
const base = svc.ready.url as string;
const admin = ownerHeaders(svc.ready);
const kst = (ms: number) => new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);
try {
  const report = `${base}/v1/sales-report?from=${kst(now - (DAYS - 1) * 86_400_000)}&to=${kst(now)}`;
  const time = async (url: string) => {
    const t0 = performance.now();
    const res = await fetch(url, { headers: admin });
    const body = (await res.json()) as any;
    if (!body.meta?.isSuccess) throw new Error(`${url}: ${JSON.stringify(body.error)}`);
    return { ms: performance.now() - t0, body };
  };
  const check = (await time(report)).body.data;
  if (check.summary.paymentCount !== PAYMENTS || check.summary.refundCount !== REFUNDS) throw new Error(`unexpected counts ${JSON.stringify(check.summary)}`);
  const reportMs: number[] = [];
  const storeMs: number[] = [];
  const pid = svc.child.pid!;
  let reportCpu = 0;
  let storeCpu = 0;
  const n = rounds(30);
  for (let i = 0; i < n; i++) {
    const c0 = treeCpuMicros(pid);
    reportMs.push((await time(report)).ms);
    const c1 = treeCpuMicros(pid);
    storeMs.push((await time(`${base}/v1/store`)).ms);
    reportCpu += c1 - c0;
    storeCpu += treeCpuMicros(pid) - c1;
  }
  const r = median(reportMs);
  const s = median(storeMs);
  console.log(
    `sales report, 92 days, ${PAYMENTS.toLocaleString('en')} payments and ${REFUNDS.toLocaleString('en')} refunds: median ${r.toFixed(1)} ms (target ≤ 50 ms) · GET /v1/store ${s.toFixed(2)} ms → ${(r / s).toFixed(0)}× a cached store read · ${check.rows.length} rows`,
  );
  figure({ name: 'sales report 92 days', value: r, unit: 'ms', ratio: r / s, baseline: 'GET /v1/store' });
  cpuFigure('sales report', reportCpu / n, { name: 'GET /v1/store', microseconds: storeCpu / n });
} finally {
  svc.child.kill();
}
