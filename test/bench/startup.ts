/**
 * Issue 31 "Start fast": `svc --help` and `svc dev` to its ready line (fresh and existing data dir), as
 * multiples of `node -e 0` run beside them. foundation.ts reports the medians; this bench runs the four
 * interleaved and takes each one's fastest run (on a shared machine the minimum is what the code costs, the
 * rest is other people's load), and for `svc dev` also the CPU the process spent up to its ready line, which
 * other load changes far less than wall time. `npm run build` first (the bench runs the built CLI's bundle).
 * Standalone: `node --import tsx test/bench/startup.ts`.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMicros, figure, root, rounds, startSvcDev } from './lib.js';

const runs = rounds(7);
const work = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));

/** Wall and CPU ms of one whole process (GNU time's user + system). */
async function timeProcess(args: string[]) {
  const timeFile = join(work, 'time.txt');
  const t0 = performance.now();
  await execa('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, 'node', ...args], { cwd: root, env: { CI: '1' } });
  const wall = performance.now() - t0;
  const [user, system] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  return { wall, cpu: (user + system) * 1000 };
}

/** Wall ms to the ready line and the CPU ms the process had spent by then; then stopped. */
async function devReady(dataDir: string) {
  const t0 = performance.now();
  const dev = await startSvcDev([], dataDir);
  const wall = performance.now() - t0;
  const cpu = cpuMicros(dev.child.pid!) / 1000;
  dev.child.kill('SIGTERM');
  await dev.child;
  return { wall, cpu };
}

const samples: Record<string, { wall: number; cpu: number }[]> = { node: [], help: [], fresh: [], existing: [] };
try {
  for (let i = 0; i < runs; i++) {
    samples.node.push(await timeProcess(['-e', '0']));
    samples.help.push(await timeProcess(['bin/run.js', '--help']));
    const dataDir = join(work, `data-${i}`);
    samples.fresh.push(await devReady(dataDir));
    samples.existing.push(await devReady(dataDir));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const fastest = (name: string, key: 'wall' | 'cpu') => Math.min(...samples[name].map((s) => s[key]));
const node = { wall: fastest('node', 'wall') };
console.log(`node -e 0 fastest of ${runs}: ${node.wall.toFixed(0)} ms`);
figure({ name: 'startup: node -e 0 (fastest)', value: node.wall, unit: 'ms' });
for (const [key, label, target] of [
  ['help', 'svc --help', '≤ 100 ms, ≤ 3 ×'],
  ['fresh', 'svc dev ready, fresh data dir', '≤ 500 ms, ≤ 10 ×'],
  ['existing', 'svc dev ready, existing data dir', '≤ 500 ms, ≤ 10 ×'],
] as const) {
  const wall = fastest(key, 'wall');
  const cpu = fastest(key, 'cpu');
  console.log(`${label}: fastest ${wall.toFixed(0)} ms = ${(wall / node.wall).toFixed(1)} × node -e 0 (target ${target}); CPU ${cpu.toFixed(0)} ms`);
  figure({ name: `startup: ${label} (fastest)`, value: wall, unit: 'ms', ratio: wall / node.wall, baseline: 'node -e 0' });
  // No ratio: GNU time and /proc count CPU in 10 ms ticks, too coarse for node -e 0's own.
  figure({ name: `startup: ${label}, CPU`, value: cpu, unit: 'ms' });
}
