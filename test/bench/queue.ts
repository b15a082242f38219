/**
 * Issue 18 benchmark, durable jobs on PostgreSQL: the project's own job table (claimed as before stop 26 — a
 * read of the due rows, then a guarded update of each one's due time — and with `FOR UPDATE SKIP LOCKED`, one
 * job per statement as src/db/claim.ts now claims, or a batch with one lane per order) against pg-boss 12 with
 * its `key_strict_fifo` policy (one lane per order),
 * on one embedded PostgreSQL in one run. Each enqueue is its own transaction with one business-row insert, as an
 * order write would; each job is one business-row update committed together with the job's completion. Three
 * workers, each on its own connection, drain the backlog; every approach is checked for exactly-once and per-key
 * FIFO. `node --import tsx test/bench/queue.ts`
 */
import { PgBoss } from 'pg-boss';
import pg from 'pg';
import { createTestDatabase, stopTestPostgres } from '../helpers/postgres.js';

const JOBS = 5_000;
const KEYS = 500;
const WORKERS = 3;
const PRODUCERS = 3;
const BATCH = 10;
/** Same lease as src/db/claim.ts CLAIM_LEASE_MS. */
const LEASE_MS = 60_000;
const QUEUE = 'order-jobs';

type Job = { key: string; seq: number };
type Tx = pg.Client;
type Approach = {
  name: string;
  reset(): Promise<void>;
  enqueue(tx: Tx, job: Job): Promise<void>;
  /** One worker: takes jobs until every job is processed, each through `process` (business update + completion). */
  worker(client: pg.Client, index: number, done: () => boolean, process: (job: Job, complete: (tx: Tx) => Promise<void>) => Promise<void>): Promise<void>;
  close?(): Promise<void>;
};

const url = await createTestDatabase();
const connect = async () => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function transaction<T>(client: pg.Client, body: (tx: Tx) => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await body(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

const admin = await connect();
await admin.query(`
  CREATE TABLE bench_orders (id text PRIMARY KEY, last_seq integer NOT NULL, processed integer NOT NULL, out_of_order integer NOT NULL);
  CREATE TABLE bench_order_events (id bigserial PRIMARY KEY, order_id text NOT NULL, seq integer NOT NULL, created_at bigint NOT NULL);
  -- The shape of app_deliveries / webhook deliveries, plus the lane (order) and its position for per-key FIFO.
  CREATE TABLE bench_jobs (
    id text PRIMARY KEY, lane text NOT NULL, seq integer NOT NULL, payload jsonb NOT NULL, status text NOT NULL,
    attempts integer NOT NULL, next_attempt_at bigint NOT NULL, created_at bigint NOT NULL);
  CREATE INDEX bench_jobs_due ON bench_jobs (status, next_attempt_at);
  CREATE INDEX bench_jobs_lane ON bench_jobs (lane, seq);
`);

const resetBusiness = async () => {
  await admin.query('TRUNCATE bench_order_events, bench_jobs');
  await admin.query('DELETE FROM bench_orders');
  await admin.query(`INSERT INTO bench_orders SELECT 'order-' || g, 0, 0, 0 FROM generate_series(0, ${KEYS - 1}) g`);
  await admin.query('VACUUM ANALYZE bench_orders, bench_jobs, bench_order_events');
};

/** A job is due only when no earlier job of its order is still pending (claimed or not): one lane per order. */
const LANE_HEAD = `NOT EXISTS (SELECT 1 FROM bench_jobs p WHERE p.lane = j.lane AND p.status = 'PENDING' AND p.seq < j.seq)`;

const ownEnqueue = async (tx: Tx, job: Job) => {
  const now = Date.now();
  await tx.query(`INSERT INTO bench_jobs VALUES ($1, $2, $3, $4, 'PENDING', 0, $5, $5)`, [`${job.key}:${job.seq}`, job.key, job.seq, JSON.stringify(job), now]);
};
const ownComplete = (id: string) => async (tx: Tx) => {
  await tx.query(`UPDATE bench_jobs SET status = 'DONE', attempts = attempts + 1 WHERE id = $1`, [id]);
};

/** The claim before stop 26: read a batch of due rows, then claim each by a guarded update of its due time. */
const readThenClaim = (lanes: boolean): Approach => ({
  name: lanes ? 'own table, read then guarded update + lanes' : 'own table, read then guarded update (before)',
  reset: resetBusiness,
  enqueue: ownEnqueue,
  async worker(client, _index, done, process) {
    while (!done()) {
      const now = Date.now();
      const due = (
        await client.query(
          `SELECT id, payload, next_attempt_at FROM bench_jobs j WHERE status = 'PENDING' AND next_attempt_at <= $1 ${lanes ? `AND ${LANE_HEAD}` : ''}
         ORDER BY next_attempt_at LIMIT ${BATCH}`,
          [now],
        )
      ).rows;
      if (due.length === 0) await sleep(2);
      for (const row of due) {
        const claimed = await client.query('UPDATE bench_jobs SET next_attempt_at = $1 WHERE id = $2 AND next_attempt_at = $3', [
          now + LEASE_MS,
          row.id,
          row.next_attempt_at,
        ]);
        if (claimed.rowCount !== 1) continue;
        await process(row.payload, ownComplete(row.id));
      }
    }
  },
});

/**
 * One statement picks and leases jobs, skipping rows another worker is leasing at that moment: one at a time
 * in due order, as src/db/claim.ts `claimEachDue` claims for the service, or a batch with one lane per order.
 */
const skipLocked = (lanes: boolean): Approach => ({
  name: lanes ? 'own table, SKIP LOCKED + lanes' : 'own table, SKIP LOCKED one by one (as the service)',
  reset: resetBusiness,
  enqueue: ownEnqueue,
  async worker(client, _index, done, process) {
    while (!done()) {
      const now = Date.now();
      const claimed = (
        await client.query(
          `UPDATE bench_jobs SET next_attempt_at = $2 WHERE id IN (
           SELECT id FROM bench_jobs j WHERE status = 'PENDING' AND next_attempt_at <= $1 ${lanes ? `AND ${LANE_HEAD}` : ''}
           ORDER BY next_attempt_at${lanes ? `, seq LIMIT ${BATCH}` : ' LIMIT 1'} FOR UPDATE SKIP LOCKED)
         RETURNING id, payload`,
          [now, now + LEASE_MS],
        )
      ).rows;
      if (claimed.length === 0) await sleep(2);
      for (const row of claimed) await process(row.payload, ownComplete(row.id));
    }
  },
});

/** pg-boss 12: `send` and `complete` take the caller's transaction through their `db` option. */
function pgBoss(): Approach {
  const instances: PgBoss[] = [];
  const start = async () => {
    const boss = new PgBoss({ connectionString: url, max: 2, supervise: false, schedule: false });
    boss.on('error', (e) => console.error('pg-boss:', e));
    await boss.start();
    instances.push(boss);
    return boss;
  };
  const inTx = (tx: Tx) => ({ executeSql: (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) });
  let sender: PgBoss;
  let workers: PgBoss[] = [];
  return {
    name: 'pg-boss 12, key_strict_fifo',
    async reset() {
      await resetBusiness();
      sender = await start();
      await sender.createQueue(QUEUE, { policy: 'key_strict_fifo' });
      // Started before the clock runs: a worker process starts its instance once, not per backlog.
      workers = await Promise.all(Array.from({ length: WORKERS }, start));
    },
    async enqueue(tx, job) {
      const id = await sender.send(QUEUE, job, { singletonKey: job.key, db: inTx(tx) });
      if (!id) throw new Error(`pg-boss refused ${job.key}:${job.seq}`);
    },
    async worker(_client, index, done, process) {
      const boss = workers[index];
      while (!done()) {
        const jobs = await boss.fetch<Job>(QUEUE, { batchSize: BATCH });
        if (jobs.length === 0) await sleep(2);
        for (const job of jobs)
          await process(job.data, async (tx) => {
            // CommandResponse is declared empty in 12.x; the object carries the count of jobs it settled.
            const result = (await boss.complete(QUEUE, job.id, null, { db: inTx(tx) })) as { affected?: number };
            if (result.affected !== 1) throw new Error(`pg-boss complete of ${job.id} affected ${result.affected}`);
          });
      }
    },
    async close() {
      await Promise.all(instances.map((b) => b.stop({ graceful: false })));
    },
  };
}

async function measure(approach: Approach, jobs = JOBS) {
  await approach.reset();
  const all: Job[] = [];
  for (let seq = 1; seq <= jobs / KEYS; seq++) for (let k = 0; k < KEYS; k++) all.push({ key: `order-${k}`, seq });

  // Each producer owns a share of the orders, so an order's jobs are sent in order by one writer.
  const producers = await Promise.all(Array.from({ length: PRODUCERS }, connect));
  let started = performance.now();
  await Promise.all(
    producers.map(async (client, p) => {
      for (const job of all) {
        if (Number(job.key.slice(6)) % PRODUCERS !== p) continue;
        await transaction(client, async (tx) => {
          await tx.query('INSERT INTO bench_order_events (order_id, seq, created_at) VALUES ($1, $2, $3)', [job.key, job.seq, Date.now()]);
          await approach.enqueue(tx, job);
        });
      }
    }),
  );
  const enqueueRate = jobs / ((performance.now() - started) / 1000);
  await Promise.all(producers.map((c) => c.end()));

  const runs = new Map<string, number>();
  let processed = 0;
  const workers = await Promise.all(Array.from({ length: WORKERS }, connect));
  const deadline = Date.now() + 60_000;
  const done = () => processed >= jobs || Date.now() > deadline;
  started = performance.now();
  await Promise.all(
    workers.map((client, i) =>
      approach.worker(client, i, done, async (job, complete) => {
        await transaction(client, async (tx) => {
          // A job that runs after a later one of its order counts as out of order.
          await tx.query(
            'UPDATE bench_orders SET out_of_order = out_of_order + CASE WHEN last_seq > $2 THEN 1 ELSE 0 END, last_seq = $2, processed = processed + 1 WHERE id = $1',
            [job.key, job.seq],
          );
          await complete(tx);
        });
        const id = `${job.key}:${job.seq}`;
        runs.set(id, (runs.get(id) ?? 0) + 1);
        processed++;
      }),
    ),
  );
  const throughput = processed / ((performance.now() - started) / 1000);
  await Promise.all(workers.map((c) => c.end()));
  await approach.close?.();

  const totals = (await admin.query('SELECT sum(processed)::int AS processed, sum(out_of_order)::int AS "outOfOrder" FROM bench_orders')).rows[0];
  const twice = [...runs.values()].filter((n) => n > 1).length;
  return {
    name: approach.name,
    enqueueRate,
    throughput,
    exactlyOnce: runs.size === jobs && twice === 0 && totals.processed === jobs,
    detail: `${runs.size}/${jobs} ran, ${twice} twice`,
    outOfOrder: totals.outOfOrder as number,
  };
}

try {
  // Untimed: a fresh server's first writes (connections, buffers, WAL segments) would otherwise be charged to whichever approach runs first.
  await measure(skipLocked(true), 1_000);
  const results = [];
  for (const approach of [readThenClaim(false), readThenClaim(true), skipLocked(false), skipLocked(true), pgBoss()]) results.push(await measure(approach));
  const boss = results.at(-1)!;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(`\n${JOBS} jobs over ${KEYS} orders, ${PRODUCERS} producers, ${WORKERS} workers (own connections), batch ${BATCH}; ratio = ÷ pg-boss`);
  console.log(['approach'.padEnd(33), 'enqueue/s', '× boss', 'processed/s', '× boss', 'exactly-once', 'FIFO (out of order)'].join(' | '));
  for (const r of results) {
    console.log(
      [
        r.name.padEnd(33),
        fmt(r.enqueueRate).padStart(9),
        (r.enqueueRate / boss.enqueueRate).toFixed(2).padStart(6),
        fmt(r.throughput).padStart(11),
        (r.throughput / boss.throughput).toFixed(2).padStart(6),
        `${r.exactlyOnce ? 'yes' : 'NO'} (${r.detail})`.padEnd(12),
        r.outOfOrder === 0 ? 'yes (0)' : `NO (${r.outOfOrder})`,
      ].join(' | '),
    );
  }
  // A queue that loses, repeats or reorders work is broken, whatever its speed: `npm run bench` counts it as failed.
  if (results.some((r) => !r.exactlyOnce || r.outOfOrder > 0)) process.exitCode = 1;
} finally {
  await admin.end();
  await stopTestPostgres();
}
