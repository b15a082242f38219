/**
 * A PostgreSQL that restarts under a running service (maintenance, a managed database's failover): the
 * requests that meet the outage fail in the envelope, the process stays up, and once the database is back
 * the service answers again with nothing lost. It starts a PostgreSQL of its own to restart, so it runs in
 * both test modes, since it tests the PostgreSQL path itself.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startOwnPostgres } from '../helpers/postgres.js';
import { apiClient, startTestService } from '../helpers/service.js';

const test = suite('the PostgreSQL pool');

test('a database restart costs the requests during the outage, not the process', async () => {
  const postgres = await startOwnPostgres();
  const svc = await startTestService({ databaseUrl: postgres.url, clock: 'system' });
  const errors: unknown[] = [];
  const quiet = console.error;
  try {
    const anon = apiClient(svc.url);
    const account = { email: 'restart@example.com', password: 'password-1234' };
    assert.is((await anon('POST', '/auth/v1/signup', { body: { ...account, name: 'restart' } })).status, 201);
    assert.is((await svc.api('PATCH', '/v1/store', { body: { name: 'Before The Restart' } })).status, 200);

    // The service logs each failed request; the test keeps its own output readable.
    console.error = (...args: unknown[]) => errors.push(args);
    await postgres.stop();
    const during = await anon('POST', '/auth/v1/login', { body: account });
    assert.is(during.status, 500, JSON.stringify(during.body));
    assert.is(during.body.meta.isSuccess, false);
    assert.is(during.body.error.code, 'INTERNAL_ERROR');
    assert.ok(errors.length > 0, 'the failure is logged for the operator');
    // The job loop (a run a second) says once that the database is away, not every job every run.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const said = (text: string) => errors.filter((args) => String((args as unknown[])[0]).includes(text)).length;
    assert.is(said('PostgreSQL is unreachable'), 1);

    await postgres.start();
    for (let waited = 0; said('PostgreSQL is back') === 0 && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(said('PostgreSQL is back'), 1, 'the job loop resumes');
    console.error = quiet;
    const login = await anon('POST', '/auth/v1/login', { body: account });
    assert.is(login.status, 200, JSON.stringify(login.body));
    const store = await svc.api('GET', '/v1/store');
    assert.is(store.status, 200);
    assert.is(store.data.name, 'Before The Restart');
    assert.is((await svc.api('PATCH', '/v1/store', { body: { name: 'After The Restart' } })).status, 200);
    assert.is((await svc.api('GET', '/v1/store')).data.name, 'After The Restart');
  } finally {
    console.error = quiet;
    await svc.close();
    await postgres.remove();
  }
});

test.run();
