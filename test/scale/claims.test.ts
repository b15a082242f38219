/**
 * How durable work is claimed (src/db/claim.ts), on both databases in both test modes: due rows come earliest
 * first, each claim moves a row a lease ahead so nobody takes it again until the lease lapses (a killed
 * process's work), and on PostgreSQL a row another process is claiming is skipped, not waited for — the
 * `FOR UPDATE SKIP LOCKED` pick that lets several processes drain one queue without losing claims to each
 * other. The queues themselves (webhook and app deliveries, timers) are raced across processes in
 * multi-process.test.ts.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CLAIM_LEASE_MS, claimEachDue, claimNextDue } from '../../src/db/claim.js';
import { openDatabase, openPostgresDatabase, type Database_, transaction } from '../../src/db/client.js';
import { appDeliveries } from '../../src/modules/apps/schema.js';
import { createTestDatabase } from '../helpers/postgres.js';

const NOW = 1_800_000_000_000;

async function enqueue({ db }: Database_, rows: { id: string; dueIn: number; status?: 'PENDING' | 'DONE' }[]) {
  await db.delete(appDeliveries).run();
  for (const row of rows) {
    await db
      .insert(appDeliveries)
      .values({
        id: row.id,
        installationId: 'inst',
        event: 'APP.UNINSTALLED',
        payload: {},
        status: row.status ?? 'PENDING',
        attempts: 0,
        nextAttemptAt: NOW + row.dueIn,
        createdAt: NOW,
      })
      .run();
  }
}

const pending = eq(appDeliveries.status, 'PENDING');
async function idsOf(rows: Iterable<{ id: string }> | AsyncIterable<{ id: string }>) {
  const ids: string[] = [];
  for await (const row of rows) ids.push(row.id);
  return ids;
}

for (const engine of ['SQLite', 'PostgreSQL'] as const) {
  const test = suite(`claims on ${engine}`);
  let database: Database_;

  test.before(async () => {
    database =
      engine === 'SQLite' ? openDatabase(join(mkdtempSync(join(tmpdir(), 'svc-claims-')), 'svc.db')) : await openPostgresDatabase(await createTestDatabase());
  });
  test.after(() => database.close());

  test('due rows come earliest first; rows not yet due or not matching stay', async () => {
    await enqueue(database, [
      { id: 'c', dueIn: -10 },
      { id: 'b', dueIn: -50 },
      { id: 'a', dueIn: 0 },
      { id: 'later', dueIn: 5 },
      { id: 'done', dueIn: -99, status: 'DONE' },
    ]);
    assert.equal(await idsOf(claimEachDue(database.db, appDeliveries, NOW, { where: pending })), ['b', 'c', 'a']);
  });

  test('a claimed row is leased: nobody takes it again until the lease lapses, then it is due again', async () => {
    await enqueue(database, [{ id: 'a', dueIn: 0 }]);
    const claimed = await claimNextDue(database.db, appDeliveries, NOW, { where: pending });
    assert.is(claimed?.nextAttemptAt, NOW + CLAIM_LEASE_MS, 'the claimed row comes back as it now is');
    assert.is(await claimNextDue(database.db, appDeliveries, NOW + CLAIM_LEASE_MS - 1, { where: pending }), undefined);
    assert.is(
      (await claimNextDue(database.db, appDeliveries, NOW + CLAIM_LEASE_MS, { where: pending }))?.id,
      'a',
      'the work of a process that died comes due again',
    );
  });

  test('each row is claimed only when the caller moves on to it, at most `limit` in a run, never one it skips', async () => {
    await enqueue(database, [
      { id: 'a', dueIn: -3 },
      { id: 'b', dueIn: -2 },
      { id: 'c', dueIn: -1 },
      { id: 'd', dueIn: 0 },
    ]);
    const run = claimEachDue(database.db, appDeliveries, NOW, { where: pending, skip: ['b'], limit: 2 });
    assert.is((await run.next()).value?.id, 'a');
    const leased = await database.db
      .select({ id: appDeliveries.id })
      .from(appDeliveries)
      .where(eq(appDeliveries.nextAttemptAt, NOW + CLAIM_LEASE_MS))
      .all();
    assert.equal(await idsOf(leased), ['a'], 'the rows behind the first wait unclaimed, so a long call cannot outlive their lease');
    assert.equal(await idsOf(run), ['c']);
    assert.equal(await idsOf(claimEachDue(database.db, appDeliveries, NOW, { where: pending })), ['b', 'd']);
  });

  test.run();
}

const skipping = suite('claims on PostgreSQL, two processes at once');
let first: Database_;
let second: Database_;

skipping.before(async () => {
  const url = await createTestDatabase();
  first = await openPostgresDatabase(url);
  // A claim that waited for the other process's lock would fail here rather than hang the test: set on
  // every connection of the second one's pool, as a session setting would only hold on one of them.
  second = await openPostgresDatabase(`${url}?options=${encodeURIComponent('-c lock_timeout=2s')}`);
});
skipping.after(async () => {
  await first.close();
  await second.close();
});

skipping('a row another process is claiming is skipped, not waited for, and each row goes to one of them', async () => {
  await enqueue(first, [
    { id: 'a', dueIn: -2 },
    { id: 'b', dueIn: -1 },
    { id: 'c', dueIn: 0 },
  ]);
  const taken = await transaction(first.db, async () => {
    const mine = await claimNextDue(first.db, appDeliveries, NOW, { where: pending });
    // The first process's claim of `a` is not committed yet: its row lock is held while the second claims.
    // Had the second waited for that lock, its lock_timeout would have failed this claim.
    const theirs = await claimNextDue(second.db, appDeliveries, NOW, { where: pending });
    return [mine?.id, theirs?.id];
  });
  assert.equal(taken, ['a', 'b']);
  assert.equal(await idsOf(claimEachDue(second.db, appDeliveries, NOW, { where: pending })), ['c'], "after the commit, the first one's row stays leased");
});

skipping.run();
