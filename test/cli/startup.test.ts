/**
 * How the built CLI starts (issue 31): from its bundle (scripts/bundle.mjs), so `svc --help` and `svc dev`
 * read a few dozen module files instead of resolving the service's ES module graph file by file, which cost
 * `svc dev` most of its start. Counted with a module hook, never timed: the durations are in the bench
 * (test/bench/startup.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv, packageRoot } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'svc-startup-'));

/** Appends the URL of every module the process loads (import and require alike) to $SVC_TEST_LOADED_LIST. */
const countingHook = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({ load(url, context, next) { appendFileSync(process.env.SVC_TEST_LOADED_LIST, url + '\\n'); return next(url, context); } });
`)}`;

/** The module files (not Node's built-ins) a CLI run loaded, up to `until` resolving. */
async function loadedBy(args: string[], until: (output: { stdout: NodeJS.ReadableStream }) => Promise<void>) {
  const list = join(mkdtempSync(join(work, 'run-')), 'loaded.txt');
  const proc = execa(process.execPath, ['--import', countingHook, 'bin/run.js', ...args], {
    cwd: packageRoot,
    env: cliEnv({ SVC_TEST_LOADED_LIST: list }),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  try {
    await until({ stdout: proc.stdout! });
    const files = readFileSync(list, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'));
    return [...new Set(files)];
  } finally {
    proc.kill('SIGTERM');
    await proc;
  }
}

const exited = (proc: { stdout: NodeJS.ReadableStream }) => new Promise<void>((done) => proc.stdout.on('end', done).resume());

/** Resolves at the `--json` ready line, once the admin API answers. */
async function ready({ stdout }: { stdout: NodeJS.ReadableStream }) {
  let text = '';
  const line = await new Promise<string>((resolve, reject) => {
    stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]);
    });
    stdout.on('end', () => reject(new Error(`no ready line: ${text}`)));
  });
  const { event, adminBaseUrl } = JSON.parse(line);
  assert.is(event, 'ready');
  assert.is((await fetch(`${adminBaseUrl}/openapi.json`)).status, 200);
}

const ownCode = (files: string[]) => files.filter((url) => !url.includes('/node_modules/'));

test('svc --help reads a few module files: the bundle with oclif, no command and none of the service', async () => {
  const files = await loadedBy(['--help'], exited);
  assert.ok(files.length > 0, 'the hook saw the run');
  assert.equal(
    files.filter((url) => url.includes('/dist/src/') || url.includes('/dist/bundle/commands.js')),
    [],
  );
  assert.ok(files.length <= 10, `${files.length} files:\n${files.join('\n')}`);
});

test('svc dev reads the service from the bundle, not file by file, up to its ready line', async () => {
  const files = await loadedBy(['dev', '--json', '--port', '0', '--clock', 'manual', '--data-dir', join(work, 'data')], ready);
  assert.equal(
    files.filter((url) => url.includes('/dist/src/')),
    [],
  );
  // Today's bundle loads ~30 of its own files and better-sqlite3's few; the per-file graph loaded ~3,000.
  assert.ok(ownCode(files).length <= 60, `${ownCode(files).length} of the package's files:\n${ownCode(files).join('\n')}`);
  assert.ok(files.length <= 100, `${files.length} files:\n${files.join('\n')}`);
});

test('svc dev answers its first requests with what it defines on first use: the web Headers, Request and Response under the HTTP layer', async () => {
  const dataDir = join(work, 'first-requests');
  const proc = execa(process.execPath, ['--no-node-snapshot', 'bin/run.js', 'dev', '--json', '--port', '0', '--data-dir', dataDir], {
    cwd: packageRoot,
    env: cliEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(text.split('\n')[0]);
      });
      proc.stdout!.on('end', () => reject(new Error(`no ready line: ${text}`)));
    });
    const { url, storeId, ownerToken } = JSON.parse(line);
    const auth = { authorization: `Bearer ${ownerToken}`, 'x-store-id': storeId };
    // The first request of the process: an authenticated read through the whole pipeline.
    const store = await fetch(`${url}/v1/store`, { headers: auth });
    assert.is(store.status, 200);
    assert.is(((await store.json()) as { data: { storeId: string } }).data.storeId, storeId);
    const listed = await fetch(`${url}/v1/products?size=20`, { headers: { ...auth, 'accept-encoding': 'gzip' } });
    assert.is(listed.status, 200);
    assert.ok(((await listed.json()) as { data: { contents: unknown[] } }).data.contents.length > 0, 'the seeded samples');
    const document = await fetch(`${url}/v1/openapi.json`);
    assert.is(document.status, 200);
    assert.is(((await document.json()) as { openapi: string }).openapi, '3.1.0');
    const missing = await fetch(`${url}/v1/no-such-route`, { headers: auth });
    assert.is(missing.status, 404);
    assert.is(((await missing.json()) as { error: { code: string } }).error.code, 'ROUTE_NOT_FOUND');
    const signup = await fetch(`${url}/auth/v1/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"x"}' });
    assert.is(signup.status, 400);
    assert.is(((await signup.json()) as { error: { code: string } }).error.code, 'VALIDATION_FAILED');
  } finally {
    proc.kill('SIGTERM');
    await proc;
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
