/**
 * The synchronous PostgreSQL connection under the better-sqlite3 facade (src/db/pg), on both of its clients
 * (libpq on the calling thread, `pg` in a worker thread): the same values both ways, it outlives server
 * errors and dropped connections (never reconnecting inside a transaction), a SERIALIZABLE transaction that
 * loses a conflict is re-run whole, and one that keeps losing runs alone. Runs on a real PostgreSQL in both
 * test modes, since it tests the PostgreSQL path itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GATE_KEY, PgClient, RUN_ALONE_AFTER, type PostgresClient } from '../../src/db/pg/facade.js';
import { loadNative } from '../../src/db/pg/native.js';
import { LOST_IN_TRANSACTION, PgConnectError, PgError } from '../../src/db/pg/sync.js';
import { createTestDatabase } from '../helpers/postgres.js';

const defaults = suite('the default client');

defaults('the service talks to PostgreSQL through libpq, which npm ci builds from source', async () => {
  assert.ok(loadNative(), 'the optional dependency libpq did not build: install libpq\'s headers (Debian: apt-get install libpq-dev), then npm rebuild libpq');
  const client = new PgClient(await createTestDatabase());
  assert.is(client.connection.client, 'libpq');
  client.close();
});

defaults('SVC_POSTGRES_CLIENT takes libpq or pg and nothing else', () => {
  assert.throws(() => new PgClient('postgres://127.0.0.1:1/none', 'odbc' as PostgresClient), /SVC_POSTGRES_CLIENT is odbc: it takes libpq or pg/);
});

defaults.run();

for (const client of ['libpq', 'pg'] as const) {
  const test = suite(`the ${client} client`);
  let url = '';
  let a: PgClient;
  let b: PgClient;

  test.before(async () => {
    url = await createTestDatabase();
    a = new PgClient(url, client);
    b = new PgClient(url, client);
    a.exec('CREATE TABLE counters (id text PRIMARY KEY, n bigint NOT NULL)');
    a.prepare('INSERT INTO counters (id, n) VALUES (?, ?)').run('c', 0);
  });

  test.after(() => {
    a.close();
    b.close();
  });

  test('a server that refuses the connection is a PgConnectError with the server\'s reason', () => {
    const wrongDatabase = url.replace(/\/[^/?]+(\?|$)/, '/no_such_database$1');
    assert.throws(() => new PgClient(wrongDatabase, client), (error: Error) => error instanceof PgConnectError && /no_such_database/.test(error.message));
  });

  test('values come back as better-sqlite3 gives them, and go in as drizzle sends them', () => {
    a.exec('CREATE TABLE kinds (big bigint, num numeric, dbl double precision, txt text, bin bytea, flag bigint)');
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    a.prepare('INSERT INTO kinds VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)').run(9_007_199_254_740_991, 12.5, 0.1, '주문 ✓ \'quoted\' ?', bytes, true, null, null, null, '', null, false);
    const rows = a.prepare('SELECT * FROM kinds ORDER BY big NULLS LAST').all() as Record<string, unknown>[];
    assert.equal(rows[0], { big: 9_007_199_254_740_991, num: 12.5, dbl: 0.1, txt: '주문 ✓ \'quoted\' ?', bin: bytes, flag: 1 });
    assert.ok(Buffer.isBuffer(rows[0].bin));
    assert.equal(rows[1], { big: null, num: null, dbl: null, txt: '', bin: null, flag: 0 });
    assert.equal(a.prepare('SELECT count(*) AS n, sum(big) AS s, bool_and(flag = 1) AS b FROM kinds').get(), { n: 2, s: 9_007_199_254_740_991, b: false });
    assert.equal(a.prepare('SELECT big, txt FROM kinds ORDER BY big').raw().all(), [[9_007_199_254_740_991, '주문 ✓ \'quoted\' ?'], [null, '']]);
    assert.is(a.prepare('UPDATE kinds SET flag = 2').run().changes, 2);
    assert.equal(a.prepare('DELETE FROM kinds RETURNING flag').pluck().all(), [2, 2]);
  });

  test('a failing statement throws with its SQLSTATE and the connection keeps answering, inside a transaction too', () => {
    const error = (() => {
      try {
        a.prepare('SELECT no_such_column FROM counters').get();
      } catch (e) {
        return e;
      }
    })();
    assert.instance(error, PgError);
    assert.is((error as PgError).code, '42703');
    assert.is(a.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c'), 0);

    const duplicate = (() => {
      try {
        a.transaction(() => a.prepare('INSERT INTO counters (id, n) VALUES (?, ?)').run('c', 1))();
      } catch (e) {
        return e as PgError;
      }
    })();
    assert.is(duplicate?.code, '23505');
    assert.is(a.inTransaction, false);
    // A nested failure rolls back to its savepoint only: the outer transaction goes on and commits.
    a.transaction(() => {
      a.prepare('UPDATE counters SET n = n + 1 WHERE id = ?').run('c');
      assert.throws(() => a.transaction(() => a.prepare('INSERT INTO counters (id, n) VALUES (?, ?)').run('c', 1))());
      a.prepare('UPDATE counters SET n = n + 1 WHERE id = ?').run('c');
    })();
    assert.is(a.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c'), 2);
    assert.equal(a.prepare('UPDATE counters SET n = 2 WHERE id = ?').run('c').changes, 1);
  });

  test('a serialization failure re-runs the transaction, which then sees the other writer and commits once', () => {
    let attempts = 0;
    const result = a.transaction(() => {
      attempts++;
      const n = a.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c') as number;
      // Another connection commits a write to the row this transaction read, before it writes it: 40001.
      if (attempts === 1) b.prepare('UPDATE counters SET n = n + 10 WHERE id = ?').run('c');
      a.prepare('UPDATE counters SET n = ? WHERE id = ?').run(n + 1, 'c');
      return n + 1;
    })();
    assert.is(attempts, 2);
    assert.is(result, 13);
    assert.is(b.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c'), 13);
  });

  test('a transaction that keeps losing runs alone: it waits for the gate, the other writer waits for it, and it commits', () => {
    let attempts = 0;
    let writerWaited = 0;
    const start = b.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c') as number;
    a.transaction(() => {
      attempts++;
      const n = a.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c') as number;
      // The other writer commits within every attempt — unless this one holds the gate, which it would wait for.
      if (b.prepare('SELECT pg_try_advisory_lock_shared(?)').pluck().get(GATE_KEY)) {
        b.prepare('UPDATE counters SET n = n + 10 WHERE id = ?').run('c');
        b.prepare('SELECT pg_advisory_unlock_shared(?)').get(GATE_KEY);
      } else {
        writerWaited++;
      }
      a.prepare('UPDATE counters SET n = ? WHERE id = ?').run(n + 1, 'c');
    })();
    assert.is(attempts, RUN_ALONE_AFTER + 1);
    assert.is(writerWaited, 1);
    assert.is(b.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c'), start + 10 * RUN_ALONE_AFTER + 1);
    assert.is(b.prepare("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'").pluck().get(), 0, 'the gate is free again');
  });

  test('a connection the server dropped costs at most the statement that found it: the next one connects again', () => {
    const dropA = () => {
      const pid = a.prepare('SELECT pg_backend_pid()').pluck().get() as number;
      // Waits until the backend is gone (PostgreSQL 14+), as a restart or a failover would leave it.
      assert.is(b.prepare('SELECT pg_terminate_backend(?, 5000)').pluck().get(pid), true);
      return pid;
    };
    const first = dropA();
    // libpq learns of it from the next statement, which fails; pg in its worker hears it at once.
    try {
      a.prepare('SELECT 1').get();
    } catch (error) {
      assert.instance(error, PgError);
    }
    assert.is.not(a.prepare('SELECT pg_backend_pid()').pluck().get(), first);
    const before = a.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c') as number;

    // Lost inside a transaction: that transaction fails whole, and the next one runs on a new connection.
    assert.throws(() => a.transaction(() => {
      a.prepare('UPDATE counters SET n = n + 100 WHERE id = ?').run('c');
      dropA();
      a.prepare('UPDATE counters SET n = n + 100 WHERE id = ?').run('c');
    })(), (error: Error) => error instanceof PgError);
    assert.is(a.inTransaction, false);
    // Code that catches the failure inside the transaction and goes on gets no new connection either.
    assert.throws(() => a.transaction(() => {
      a.prepare('UPDATE counters SET n = n + 100 WHERE id = ?').run('c');
      dropA();
      try {
        a.prepare('UPDATE counters SET n = n + 100 WHERE id = ?').run('c');
      } catch {
        // what a caller that tolerates a failed step would do
      }
      a.prepare('UPDATE counters SET n = n + 100 WHERE id = ?').run('c');
    })(), (error: Error) => error instanceof PgError && error.message === LOST_IN_TRANSACTION);
    a.transaction(() => a.prepare('UPDATE counters SET n = n + 1 WHERE id = ?').run('c'))();
    assert.is(b.prepare('SELECT n FROM counters WHERE id = ?').pluck().get('c'), before + 1, 'the lost transaction wrote nothing');
  });

  test.run();
}
