/**
 * The asynchronous PostgreSQL pool under the data layer (src/db/pg/pool.ts): values come back as
 * better-sqlite3 gives them, statements with parameters are prepared once per connection, it outlives server
 * errors and dropped connections (a transaction that lost its connection fails whole), a SERIALIZABLE
 * transaction that loses a conflict is re-run whole, one that keeps losing runs alone, and transactions of
 * concurrent requests each hold their own connection. Runs on a real PostgreSQL in both test modes, since it
 * tests the PostgreSQL path itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GATE_KEY, LOST_IN_TRANSACTION, PgConnectError, PgError, PgPool, RUN_ALONE_AFTER } from '../../src/db/pg/pool.js';
import { createTestDatabase } from '../helpers/postgres.js';

/** Fails unless `run` rejects with an error that passes `check` (uvu has no assert.rejects). */
async function rejects(run: () => Promise<unknown>, check: (error: Error) => boolean = () => true) {
  try {
    await run();
  } catch (error) {
    assert.ok(check(error as Error), `rejected otherwise: ${(error as Error).message}`);
    return;
  }
  assert.unreachable('it did not reject');
}

const test = suite('the PostgreSQL pool');
let url = '';
let a: PgPool;
let b: PgPool;
const counter = async (pool: PgPool) => (await pool.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c')) as number;

test.before(async () => {
  url = await createTestDatabase();
  a = new PgPool(url);
  b = new PgPool(url);
  await a.exec('CREATE TABLE counters (id text PRIMARY KEY, n bigint NOT NULL)');
  await a.prepare('INSERT INTO counters (id, n) VALUES (?, ?)').run('c', 0);
});

test.after(async () => {
  await a.close();
  await b.close();
});

test("a server that refuses the connection is a PgConnectError with the server's reason", async () => {
  const wrongDatabase = new PgPool(url.replace(/\/[^/?]+(\?|$)/, '/no_such_database$1'));
  try {
    await rejects(
      () => wrongDatabase.connect(),
      (error: Error) => error instanceof PgConnectError && /no_such_database/.test(error.message),
    );
  } finally {
    await wrongDatabase.close();
  }
});

test('values come back as better-sqlite3 gives them, and go in as drizzle sends them', async () => {
  await a.exec('CREATE TABLE kinds (big bigint, num numeric, dbl double precision, txt text, bin bytea, flag bigint)');
  const bytes = Buffer.from([0, 1, 2, 250, 255]);
  await a
    .prepare('INSERT INTO kinds VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)')
    .run(9_007_199_254_740_991, 12.5, 0.1, "주문 ✓ 'quoted' ?", bytes, true, null, null, null, '', null, false);
  const rows = (await a.prepare('SELECT * FROM kinds ORDER BY big NULLS LAST').all()) as Record<string, unknown>[];
  assert.equal(rows[0], { big: 9_007_199_254_740_991, num: 12.5, dbl: 0.1, txt: "주문 ✓ 'quoted' ?", bin: bytes, flag: 1 });
  assert.ok(Buffer.isBuffer(rows[0].bin));
  assert.equal(rows[1], { big: null, num: null, dbl: null, txt: '', bin: null, flag: 0 });
  assert.equal(await a.prepare('SELECT count(*) AS n, sum(big) AS s, bool_and(flag = 1) AS b FROM kinds').get(), { n: 2, s: 9_007_199_254_740_991, b: false });
  assert.equal(await a.prepare('SELECT big, txt FROM kinds ORDER BY big').raw().all(), [
    [9_007_199_254_740_991, "주문 ✓ 'quoted' ?"],
    [null, ''],
  ]);
  assert.is((await a.prepare('UPDATE kinds SET flag = 2').run()).changes, 2);
  assert.equal(await a.prepare('DELETE FROM kinds RETURNING flag').pluck().all(), [2, 2]);
});

test('a statement with parameters is prepared once per connection and then only run; one without stays unnamed', async () => {
  const prepared = await a.transaction(async () => {
    for (let i = 0; i < 3; i++) await counter(a);
    await a.prepare("SELECT n FROM counters WHERE id = 'c'").get();
    return (await a
      .prepare("SELECT statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE statement LIKE 'SELECT n FROM counters%'")
      .all()) as { statement: string; runs: number }[];
  });
  assert.equal(
    prepared.map((p) => p.statement),
    ['SELECT n FROM counters WHERE id = $1'],
  );
  assert.ok(prepared[0].runs >= 3, `run ${prepared[0].runs} times`);
});

test('a failing statement rejects with its SQLSTATE and the pool keeps answering; a nested failure rolls back to its savepoint only', async () => {
  await rejects(
    () => a.prepare('SELECT no_such_column FROM counters').get(),
    (error: Error) => error instanceof PgError && error.code === '42703',
  );
  assert.is(await counter(a), 0);
  await rejects(
    () => a.transaction(() => a.prepare('INSERT INTO counters (id, n) VALUES (?, ?)').run('c', 1)),
    (error: Error) => error instanceof PgError && error.code === '23505',
  );
  assert.is(a.inTransaction, false);
  await a.transaction(async () => {
    assert.is(a.inTransaction, true);
    await a.prepare('UPDATE counters SET n = n + 1 WHERE id = ?').run('c');
    await rejects(() => a.transaction(() => a.prepare('INSERT INTO counters (id, n) VALUES (?, ?)').run('c', 1)));
    await a.prepare('UPDATE counters SET n = n + 1 WHERE id = ?').run('c');
  });
  assert.is(await counter(a), 2);
  assert.is((await a.prepare('UPDATE counters SET n = 2 WHERE id = ?').run('c')).changes, 1);
});

test("concurrent transactions hold a connection each: one's uncommitted write is invisible to the other and to autocommit reads", async () => {
  let release!: () => void;
  const held = new Promise<void>((done) => (release = done));
  const writer = a.transaction(async () => {
    await a.prepare('UPDATE counters SET n = 1000 WHERE id = ?').run('c');
    await held;
  });
  // Let the writer reach its wait, then read from elsewhere while it is open.
  await new Promise((done) => setTimeout(done, 50));
  assert.is(await counter(a), 2, 'an autocommit read does not see the open transaction');
  assert.is(await a.transaction(() => counter(a)), 2, 'nor does another transaction');
  release();
  await writer;
  assert.is(await counter(a), 1000);
  await a.prepare('UPDATE counters SET n = 2 WHERE id = ?').run('c');
});

test("a process runs at most its writers' count of transactions at once; the others start as one ends, in order", async () => {
  const pool = new PgPool(url, 4, 2);
  try {
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const runs = [1, 2, 3, 4].map((n) =>
      pool.transaction(async () => {
        started.push(n);
        await new Promise<void>((release) => releases.push(release));
        return counter(pool);
      }),
    );
    try {
      await new Promise((done) => setTimeout(done, 100));
      // The first two start (in whichever order their connections come); the third waits for a turn.
      assert.equal([...started].sort(), [1, 2]);
      releases.shift()!();
      await new Promise((done) => setTimeout(done, 100));
      assert.equal(started.slice(2), [3]);
    } finally {
      // Every body ends, whatever failed above: the pool closes only once its connections are back.
      for (let waited = 0; (started.length < 4 || releases.length > 0) && waited < 300; waited++) {
        releases.shift()?.();
        await new Promise((done) => setTimeout(done, 10));
      }
    }
    assert.equal(await Promise.all(runs), [2, 2, 2, 2]);
    assert.equal(started.slice(2), [3, 4]);
  } finally {
    await pool.close();
  }
});

test('a serialization failure re-runs the transaction, which then sees the other writer and commits once', async () => {
  let attempts = 0;
  const result = await a.transaction(async () => {
    attempts++;
    const n = await counter(a);
    // Another connection commits a write to the row this transaction read, before it writes it: 40001.
    if (attempts === 1) await b.prepare('UPDATE counters SET n = n + 10 WHERE id = ?').run('c');
    await a.prepare('UPDATE counters SET n = ? WHERE id = ?').run(n + 1, 'c');
    return n + 1;
  });
  assert.is(attempts, 2);
  assert.is(result, 13);
  assert.is(await counter(b), 13);
});

test('a transaction that keeps losing runs alone: it waits for the gate, the other writer waits for it, and it commits', async () => {
  let attempts = 0;
  let writerWaited = 0;
  const start = await counter(b);
  await a.transaction(async () => {
    attempts++;
    const n = await counter(a);
    // The other writer commits within every attempt — unless this one holds the gate, which it would wait for.
    // One autocommit statement: it writes only if it gets the gate, which it holds until it commits.
    const other = await b
      .prepare('WITH gate AS (SELECT pg_try_advisory_xact_lock_shared(?) AS open) UPDATE counters SET n = n + 10 WHERE id = ? AND (SELECT open FROM gate)')
      .run(GATE_KEY, 'c');
    if (other.changes === 0) writerWaited++;
    await a.prepare('UPDATE counters SET n = ? WHERE id = ?').run(n + 1, 'c');
  });
  assert.is(attempts, RUN_ALONE_AFTER + 1);
  assert.is(writerWaited, 1);
  assert.is(await counter(b), start + 10 * RUN_ALONE_AFTER + 1);
  assert.is(await b.prepare("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").pluck().get(), 0, 'the gate is free again');
});

test('a connection the server dropped costs at most the statement that found it, and a transaction that lost its connection fails whole', async () => {
  const before = await counter(b);
  const dropped = a.transaction(async () => {
    await a.prepare('UPDATE counters SET n = n + 100 WHERE id = ?').run('c');
    const pid = await a.prepare('SELECT pg_backend_pid()').pluck().get();
    // Waits until the backend is gone (PostgreSQL 14+), as a restart or a failover would leave it.
    assert.is(await b.prepare('SELECT pg_terminate_backend(?, 5000)').pluck().get(pid), true);
    try {
      await a.prepare('UPDATE counters SET n = n + 100 WHERE id = ?').run('c');
    } catch {
      // what a caller that tolerates a failed step would do: the transaction still fails
    }
  });
  await rejects(
    () => dropped,
    (error: Error) => error instanceof PgError && error.message === LOST_IN_TRANSACTION,
  );
  assert.is(a.inTransaction, false);
  // The pool connects again for what comes next.
  await a.transaction(() => a.prepare('UPDATE counters SET n = n + 1 WHERE id = ?').run('c'));
  assert.is(await counter(b), before + 1, 'the lost transaction wrote nothing');
});

test.run();
