/**
 * `svc dev` and `svc serve` as real processes of the compiled CLI (DESIGN.md §3): the `--json` ready
 * line, the seed, `/_dev` helpers, SIGTERM shutdown and data kept across restarts on one data dir.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../helpers/postgres.js';
import { apiClient } from '../helpers/service.js';

const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
const tmp = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `svc-cli-${label}-`));
  dirs.push(dir);
  return dir;
};

/** The environment of this process without any SVC_* variable, so nothing leaks into the child. */
function cleanEnv(extra: Record<string, string> = {}) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SVC_')) env[k] = v;
  return { ...env, FORCE_COLOR: '0', ...extra };
}

interface Ready {
  event: string;
  url: string;
  adminBaseUrl: string;
  storefrontBaseUrl: string;
  authUrl: string;
  storeId: string | null;
  ownerToken: string | null;
}

interface Running {
  proc: ResultPromise;
  ready: Ready;
  readyMs: number;
  /** Sends SIGTERM (or the given signal) and waits for the exit; `ms` is the time from the signal to the exit. */
  stop(signal?: 'SIGTERM' | 'SIGINT'): Promise<{ exitCode: number | undefined; signal: string | undefined; stdout: string; stderr: string; ms: number }>;
}

const running = new Set<ResultPromise>();

/** Spawns `node bin/run.js ARGS` and waits for the first stdout line (the ready line). */
async function start(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const t0 = performance.now();
  const proc = execa(process.execPath, ['bin/run.js', ...args], {
    cwd: root,
    env: cleanEnv(env),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    forceKillAfterDelay: 10_000,
  });
  running.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 15 s; stderr: ${stderr}`)), 15_000);
    proc.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const nl = stdout.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(stdout.slice(0, nl));
      }
    });
    proc.then((r) => {
      clearTimeout(timer);
      reject(new Error(`exited (${r.exitCode}) before ready; stdout: ${stdout}; stderr: ${stderr}`));
    });
  });
  const readyMs = performance.now() - t0;
  let ready: Ready;
  try {
    ready = JSON.parse(line) as Ready;
  } catch {
    throw new Error(`the first stdout line is not JSON: ${line}`);
  }
  return {
    proc,
    ready,
    readyMs,
    async stop(signal = 'SIGTERM') {
      const s0 = performance.now();
      proc.kill(signal);
      const result = await proc;
      running.delete(proc);
      return { exitCode: result.exitCode, signal: result.signal, stdout: String(result.stdout), stderr: String(result.stderr), ms: performance.now() - s0 };
    },
  };
}

// A test that failed half-way leaves no process behind to hold the port or the data dir.
test.after.each(async () => {
  for (const proc of running) {
    proc.kill('SIGKILL');
    await proc;
  }
  running.clear();
});
test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const dataDir = tmp('dev');
let firstPort = 0;
let firstReady: Ready;

test('svc dev --json: exactly one ready line; seed, owner token and /_dev clock; SIGTERM exits 0', async () => {
  const dev = await start(['dev', '--port', '0', '--data-dir', dataDir, '--json', '--clock', 'manual']);
  console.log(`svc dev time-to-ready (fresh data dir, first start with seed): ${Math.round(dev.readyMs)} ms`);
  const { ready } = dev;
  firstReady = ready;

  assert.equal(Object.keys(ready).sort(), ['adminBaseUrl', 'authUrl', 'event', 'ownerToken', 'storeId', 'storefrontBaseUrl', 'url']);
  assert.is(ready.event, 'ready');
  const m = /^http:\/\/127\.0\.0\.1:(\d+)$/.exec(ready.url);
  assert.ok(m, `url: ${ready.url}`);
  firstPort = Number(m![1]);
  assert.ok(firstPort > 0, '--port 0 picks a real port');
  assert.is(ready.adminBaseUrl, `${ready.url}/v1`);
  assert.is(ready.storefrontBaseUrl, `${ready.url}/storefront/v1`);
  assert.is(ready.authUrl, `${ready.url}/auth`);
  assert.match(ready.storeId!, /^st_/);
  assert.type(ready.ownerToken, 'string');

  // The owner token works on the seeded store.
  const api = apiClient(ready.url, { token: ready.ownerToken!, storeId: ready.storeId! });
  const store = await api('GET', '/v1/store');
  assert.is(store.status, 200);
  assert.is(store.data.storeId, ready.storeId);
  assert.is(store.data.name, 'Dev Store');
  assert.is(store.data.code, 'dev-store');
  assert.is((await apiClient(ready.url)('GET', '/v1/store', { storeId: ready.storeId! })).status, 401, 'no token, no store');

  // The seeded account logs in with the documented password (and only with it).
  const anon = apiClient(ready.url);
  const login = await anon('POST', '/auth/v1/login', { body: { email: 'dev@svc.local', password: 'svc-dev-password' } });
  assert.is(login.status, 200);
  assert.is(login.data.user.email, 'dev@svc.local');
  assert.is((await anon('GET', '/v1/me/stores', { token: login.data.accessToken })).data.contents[0].storeId, ready.storeId);
  assert.is((await anon('POST', '/auth/v1/login', { body: { email: 'dev@svc.local', password: 'wrong-password' } })).status, 401);

  // A change that the second start must still see.
  const renamed = await api('PATCH', '/v1/store', { body: { name: 'Kept Across Restarts' } });
  assert.is(renamed.status, 200);

  // --clock manual: time moves by the requested amount at once.
  const before = await anon('GET', '/_dev/v1/clock');
  assert.is(before.status, 200);
  assert.is(before.data.kind, 'manual');
  const advanced = await anon('POST', '/_dev/v1/clock/advance', { body: { seconds: 86400 } });
  assert.is(advanced.status, 200);
  const jump = Date.parse(advanced.data.now) - Date.parse(before.data.now);
  assert.ok(jump >= 86400_000 && jump < 86400_000 + 60_000, `clock moved by ${jump} ms`);
  assert.ok(Date.parse((await anon('GET', '/_dev/v1/clock')).data.now) >= Date.parse(advanced.data.now));
  assert.is((await anon('POST', '/_dev/v1/clock/advance', { body: { seconds: -5 } })).body.error.code, 'VALIDATION_FAILED');
  // The service runs on that clock: a day later the 15-minute owner token has expired.
  assert.is((await api('GET', '/v1/store')).status, 401);

  const stopped = await dev.stop();
  console.log(`svc dev SIGTERM to exit: ${Math.round(stopped.ms)} ms`);
  assert.is(stopped.exitCode, 0, `stderr: ${stopped.stderr}`);
  assert.is(stopped.signal, undefined);
  // stdout held the ready line and nothing else, before or after.
  assert.is(stopped.stdout, JSON.stringify(ready));
  assert.not.match(stopped.stderr, /error/i);
});

test('second start on the same data dir keeps data, does not seed again; /_dev clock refuses under the system clock', async () => {
  assert.ok(firstPort > 0, 'needs the first start');
  // Same port as the first start: the origin is part of every token's issuer.
  const dev = await start(['dev', '--port', String(firstPort), '--data-dir', dataDir, '--json']);
  console.log(`svc dev time-to-ready (existing data dir): ${Math.round(dev.readyMs)} ms`);
  const { ready } = dev;
  assert.is(ready.url, firstReady.url);
  assert.is(ready.storeId, firstReady.storeId, 'the seeded store is found, not made again');
  assert.type(ready.ownerToken, 'string');

  const api = apiClient(ready.url, { token: ready.ownerToken!, storeId: ready.storeId! });
  const store = await api('GET', '/v1/store');
  assert.is(store.status, 200);
  assert.is(store.data.name, 'Kept Across Restarts');
  const stores = await api('GET', '/v1/me/stores');
  assert.equal(
    stores.data.contents.map((s: any) => [s.storeId, s.code]),
    [[firstReady.storeId, 'dev-store']],
  );
  // Sessions and signing keys survived too: the first start's owner token is still accepted.
  assert.is((await api('GET', '/v1/store', { token: firstReady.ownerToken! })).status, 200);
  // The seed did not reset the account's password either.
  assert.is((await apiClient(ready.url)('POST', '/auth/v1/login', { body: { email: 'dev@svc.local', password: 'svc-dev-password' } })).status, 200);

  const refused = await apiClient(ready.url)('POST', '/_dev/v1/clock/advance', { body: { seconds: 60 } });
  assert.is(refused.status, 409);
  assert.is(refused.body.meta.isSuccess, false);
  assert.is(refused.body.error.code, 'CLOCK_NOT_MANUAL');
  assert.is((await apiClient(ready.url)('GET', '/_dev/v1/clock')).data.kind, 'system');

  // While it runs, another service on the same data dir is refused with a clear message, not a lock error.
  const rival = await execa(process.execPath, ['bin/run.js', 'dev', '--port', '0', '--data-dir', dataDir, '--json'], {
    cwd: root,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
  });
  assert.is(rival.exitCode, 1);
  assert.match(String(rival.stderr), /in\s+use\s+by\s+another\s+svc\s+service/);
  // --json: the one stdout line a script waits for says why there is no ready line.
  const failure = JSON.parse(String(rival.stdout));
  assert.equal([failure.event, failure.code], ['error', 'DATA_DIR_IN_USE']);
  assert.is((await api('GET', '/v1/store')).status, 200, 'the running service is unaffected');

  const stopped = await dev.stop();
  assert.is(stopped.exitCode, 0, `stderr: ${stopped.stderr}`);
  assert.is(stopped.stdout.trim().split('\n').length, 1);
});

test('svc serve: configured from the environment, no seed, no /_dev routes', async () => {
  const serveDir = tmp('serve');
  const serve = await start(['serve', '--json'], { SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: serveDir });
  const { ready } = serve;
  assert.is(ready.event, 'ready');
  assert.match(ready.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is(ready.storeId, null);
  assert.is(ready.ownerToken, null);

  const anon = apiClient(ready.url);
  // The service itself answers...
  const plans = await anon('GET', '/v1/public/plans');
  assert.is(plans.status, 200);
  // ...but nothing was seeded...
  assert.is((await anon('POST', '/auth/v1/login', { body: { email: 'dev@svc.local', password: 'svc-dev-password' } })).status, 401);
  // ...and the dev helpers do not exist at all (404 envelope, not 409).
  for (const [method, path, body] of [
    ['GET', '/_dev/v1/clock', undefined],
    ['POST', '/_dev/v1/clock/advance', { seconds: 60 }],
    ['POST', '/_dev/v1/jobs/run', {}],
    ['GET', '/_dev/v1/mail', undefined],
  ] as const) {
    const res = await anon(method, path, { body });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.meta.isSuccess, false);
    assert.is(res.body.error.code, 'ROUTE_NOT_FOUND', `${method} ${path}`);
  }
  // The data dir is the one SVC_DATA_DIR named.
  const signup = await anon('POST', '/auth/v1/signup', { body: { email: 'ops@example.com', password: 'password-1234', name: 'ops' } });
  assert.is(signup.status, 201);

  const stopped = await serve.stop();
  assert.is(stopped.exitCode, 0, `stderr: ${stopped.stderr}`);
  assert.is(stopped.stdout, JSON.stringify(ready));

  const again = await start(['serve', '--json'], { SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: serveDir });
  assert.is(
    (await apiClient(again.ready.url)('POST', '/auth/v1/login', { body: { email: 'ops@example.com', password: 'password-1234' } })).status,
    200,
    'the account is in SVC_DATA_DIR',
  );
  // Ctrl-C is a clean stop too.
  const interrupted = await again.stop('SIGINT');
  assert.is(interrupted.exitCode, 0, `stderr: ${interrupted.stderr}`);
  assert.is(interrupted.signal, undefined);
});

test('svc serve on PostgreSQL: the banner names the server, never the password; it serves a write and a read; an unreachable server is DATABASE_UNAVAILABLE', async () => {
  const url = await createTestDatabase();
  const { password, hostname, port, pathname } = new URL(url);
  const serve = async (env: Record<string, string> = {}, whileUp = async (_url: string) => {}) => {
    const proc = execa(process.execPath, ['bin/run.js', 'serve'], {
      cwd: root,
      env: cleanEnv({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: tmp('serve-pg'), SVC_DATABASE_URL: url, ...env }),
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    running.add(proc);
    let banner = '';
    await new Promise<void>((resolve, reject) => {
      proc.stdout!.on('data', (chunk: Buffer) => {
        banner += chunk.toString();
        if (banner.includes('Press Ctrl-C')) resolve();
      });
      proc.then((r) => reject(new Error(`exited (${r.exitCode}) before ready: ${r.stderr}`)));
    });
    await whileUp(/ready in \d+ ms at (\S+)/.exec(banner)![1]);
    proc.kill('SIGTERM');
    const stopped = await proc;
    assert.is(stopped.exitCode, 0, `signal ${stopped.signal}, stderr: ${stopped.stderr}`);
    return { banner, stderr: String(stopped.stderr) };
  };
  const first = await serve({}, async (serviceUrl) => {
    const anon = apiClient(serviceUrl);
    assert.is((await anon('POST', '/auth/v1/signup', { body: { email: 'pg@example.com', password: 'password-1234', name: 'pg' } })).status, 201);
    assert.is((await anon('POST', '/auth/v1/login', { body: { email: 'pg@example.com', password: 'password-1234' } })).status, 200);
  });
  assert.match(first.banner, `  database       PostgreSQL ${hostname}:${port}${pathname}\n`);
  assert.not.match(first.banner, password);
  // A second start finds the tables there: the server's notices about it stay off the output.
  assert.is((await serve()).stderr, '');

  const unreachable = await execa(process.execPath, ['bin/run.js', 'serve', '--json'], {
    cwd: root,
    env: cleanEnv({
      SVC_PORT: '0',
      SVC_HOST: '127.0.0.1',
      SVC_DATA_DIR: tmp('serve-pg-down'),
      SVC_DATABASE_URL: 'postgres://svc:s3cret-pass@127.0.0.1:1/shop',
    }),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
  });
  assert.is(unreachable.exitCode, 1);
  const failure = JSON.parse(String(unreachable.stdout));
  assert.equal([failure.event, failure.code], ['error', 'DATABASE_UNAVAILABLE']);
  assert.match(failure.message, /check --database-url \(SVC_DATABASE_URL\)/);
  assert.not.match(String(unreachable.stderr), /s3cret-pass|\n\s+at /, 'no password, no stack trace');
});

test('svc serve --workers 3 on PostgreSQL: one ready line for three processes sharing the port; a killed worker is replaced; SIGTERM stops them all', async () => {
  const url = await createTestDatabase();
  const proc = execa(process.execPath, ['bin/run.js', 'serve', '--workers', '3', '--json'], {
    cwd: root,
    env: cleanEnv({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: tmp('serve-workers'), SVC_DATABASE_URL: url }),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  running.add(proc);
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = await new Promise<Ready & { workers: number }>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    proc.then((r) => reject(new Error(`exited (${r.exitCode}) before ready: ${r.stderr}`)));
  });
  assert.equal([ready.event, ready.workers, ready.storeId], ['ready', 3, null]);
  const workers = async () =>
    String((await execa('ps', ['--ppid', String(proc.pid), '-o', 'pid='])).stdout)
      .split('\n')
      .map(Number)
      .filter(Boolean);
  const before = await workers();
  assert.is(before.length, 3);

  const anon = apiClient(ready.url);
  assert.is((await anon('POST', '/auth/v1/signup', { body: { email: 'workers@example.com', password: 'password-1234', name: 'w' } })).status, 201);
  const { accessToken } = (await anon('POST', '/auth/v1/login', { body: { email: 'workers@example.com', password: 'password-1234' } })).data;
  const { storeId } = (await apiClient(ready.url, { token: accessToken })('POST', '/auth/v1/stores', { body: { name: '워커 상점', code: 'workers' } })).data;
  const owner = apiClient(ready.url, { token: accessToken, storeId });
  const reads = await Promise.all(Array.from({ length: 12 }, () => owner('GET', '/v1/store')));
  assert.equal(
    reads.map((r) => r.status),
    Array(12).fill(200),
  );

  process.kill(before[0], 'SIGKILL');
  for (let i = 0; i < 100 && !((await workers()).length === 3 && !(await workers()).includes(before[0])); i++) await new Promise((r) => setTimeout(r, 100));
  const after = await workers();
  assert.is(after.length, 3, 'a replacement worker was started');
  assert.not.ok(after.includes(before[0]));
  assert.match(stderr, `[svc] worker ${before[0]} exited (SIGKILL): starting another`);
  assert.is((await owner('GET', '/v1/store')).status, 200);

  proc.kill('SIGTERM');
  const stopped = await proc;
  assert.is(stopped.exitCode, 0, `signal ${stopped.signal}, stderr: ${stderr}`);
  for (const pid of after) assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} stopped with the supervisor`);

  const sqlite = await execa(process.execPath, ['bin/run.js', 'serve', '--workers', '2'], {
    cwd: root,
    env: cleanEnv({ SVC_DATA_DIR: tmp('serve-workers-sqlite') }),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  assert.is(sqlite.exitCode, 2);
  assert.match(String(sqlite.stderr), '--workers needs PostgreSQL (--database-url)');
});

test.run();
