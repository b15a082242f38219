/**
 * SQLite's transactions on its one connection (src/db/client.ts): they take turns, a body that waits for I/O
 * is rolled back, and a statement of other work that comes while one is open waits for its end — else it
 * would read what may still roll back, and be rolled back with it. Runs on SQLite in both test modes, since
 * it tests the SQLite path itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase, sqliteOf, transaction, TransactionAwaitedIoError, type Database_, type Db } from '../../src/db/client.js';

let dir: string;
let database: Database_;
let db: Db;

test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-tx-'));
  database = openDatabase(join(dir, 'svc.db'));
  db = database.db;
  sqliteOf(db)!.exec('CREATE TABLE notes (text text NOT NULL)');
});
test.after(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});
test.before.each(() => {
  sqliteOf(db)!.exec('DELETE FROM notes');
});

const note = (text: string) => db.run(sql`INSERT INTO notes (text) VALUES (${text})`);
const notes = async () => ((await db.all(sql`SELECT text FROM notes ORDER BY rowid`)) as { text: string }[]).map((row) => row.text);
const inOpenTransaction = () => sqliteOf(db)!.inTransaction;
/** Lets the other work waiting on microtasks run, as a request's `await`s do. */
const interleave = async (turns = 5) => {
  for (let i = 0; i < turns; i++) await null;
};

async function rejects(promise: Promise<unknown>, kind: new (...args: never[]) => Error) {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, kind);
    return;
  }
  assert.unreachable('it did not reject');
}

test('a statement of other work waits for the open transaction: it neither reads what rolls back nor is rolled back with it', async () => {
  const rolledBack = transaction(db, async () => {
    await note('rolled back');
    await interleave();
    throw new Error('the body fails');
  });
  const other = (async () => {
    await null;
    assert.ok(inOpenTransaction(), 'the other work runs while the transaction is open');
    const seenRaw = await db.$client.prepare('SELECT text FROM notes').pluck().all();
    const seen = await notes();
    await note('kept');
    return [...seenRaw, ...seen];
  })();
  await rejects(rolledBack, Error);
  assert.equal(await other, [], 'no uncommitted row was read, through drizzle or the raw driver');
  assert.equal(await notes(), ['kept']);
});

test('transactions take turns: one started in the same turn of the event loop begins after the other ended', async () => {
  const steps: string[] = [];
  const first = transaction(db, async () => {
    steps.push('first begins');
    await note('a');
    await interleave();
    await note('b');
    steps.push('first ends');
  });
  const second = transaction(db, async () => {
    steps.push('second begins');
    await note('c');
    steps.push('second ends');
  });
  await Promise.all([first, second]);
  assert.equal(steps, ['first begins', 'first ends', 'second begins', 'second ends']);
  assert.equal(await notes(), ['a', 'b', 'c']);
});

test('a body that waits for I/O is rolled back, and what other requests wrote meanwhile stays', async () => {
  const waited = transaction(db, async () => {
    await note('rolled back');
    await new Promise((resolve) => setTimeout(resolve, 20));
  });
  // Another request arriving during the wait, in a later turn of the event loop.
  const other = new Promise((resolve) => setTimeout(resolve, 5)).then(async () => {
    assert.ok(inOpenTransaction(), 'the other request comes while the transaction is open');
    await note('written meanwhile');
  });
  await rejects(waited, TransactionAwaitedIoError);
  await other;
  assert.equal(await notes(), ['written meanwhile']);
});

test('work a transaction scheduled runs outside it, after it; nested transactions are savepoints', async () => {
  let scheduled: Promise<unknown> | undefined;
  await transaction(db, async () => {
    await note('outer');
    scheduled = new Promise((resolve) => setImmediate(() => resolve(notes())));
    await rejects(
      transaction(db, async () => {
        await note('inner');
        throw new TypeError('the savepoint rolls back');
      }),
      TypeError,
    );
  });
  assert.equal(await scheduled, ['outer']);
  assert.equal(await notes(), ['outer']);
});

test.run();
