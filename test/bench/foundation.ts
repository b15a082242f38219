/**
 * Issue 2 and issue 31 benchmarks, measured side by side in one run:
 * - GET /v1/store with a real token (auth + tenancy + envelope) vs a bare H3 hello handler, and the CPU
 *   each spends per request;
 * - `svc --help` wall time, `svc dev` time to the ready line on a fresh and on an existing data dir, each
 *   as a multiple of `node -e 0` (the floor any Node process pays on this machine);
 * - `svc dev` from SIGTERM to exit (the dev-process test asserts that it exits cleanly; how fast is here).
 */
import { execa } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bareRun, cpuFigure, figure, median, root, rounds, rpsWithCpu, startBareH3, startSvcDev } from './lib.js';

const bare = await startBareH3();
const svc = await startSvcDev();
const auth = { authorization: `Bearer ${svc.ready.ownerToken}`, 'x-store-id': svc.ready.storeId };
try {
  await bareRun(bare, 1); // warm-up
  await rpsWithCpu(svc.child.pid!, `${svc.ready.url}/v1/store`, auth, 1);
  // Alternated, median of three: drift on a shared machine hits both alike.
  const bareRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
  const storeRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
  for (let i = 0; i < rounds(3); i++) {
    bareRuns.push(await bareRun(bare));
    storeRuns.push(await rpsWithCpu(svc.child.pid!, `${svc.ready.url}/v1/store`, auth));
  }
  const bareRps = median(bareRuns.map((r) => r.rps));
  const storeRps = median(storeRuns.map((r) => r.rps));
  console.log(
    `GET /v1/store ${Math.round(storeRps)} req/s vs bare H3 ${Math.round(bareRps)} req/s → ${((100 * storeRps) / bareRps).toFixed(1)}% (target ≥ 50%)`,
  );
  figure({ name: 'GET /v1/store', value: storeRps, unit: 'req/s', ratio: storeRps / bareRps, baseline: 'bare H3' });
  cpuFigure('GET /v1/store', median(storeRuns.map((r) => r.cpuPerOp)), { name: 'bare H3 request', microseconds: median(bareRuns.map((r) => r.cpuPerOp)) });
} finally {
  bare.child.kill();
  svc.child.kill();
}

/** Median wall time (ms) of `runs` runs of `start`, which answers once the thing timed is done. */
async function wall(runs: number, start: () => Promise<unknown>) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await start();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const nodeMs = await wall(rounds(5), () => execa('node', ['-e', '0'], { cwd: root }));
const helpMs = await wall(rounds(5), () => execa('node', ['bin/run.js', '--help'], { cwd: root }));
console.log(`node -e 0 median ${Math.round(nodeMs)} ms`);
console.log(`svc --help median ${Math.round(helpMs)} ms = ${(helpMs / nodeMs).toFixed(1)} × node -e 0 (target ≤ 100 ms, ≤ 3 ×)`);
figure({ name: 'node -e 0', value: nodeMs, unit: 'ms' });
figure({ name: 'svc --help', value: helpMs, unit: 'ms', ratio: helpMs / nodeMs, baseline: 'node -e 0' });

const freshMs = await wall(rounds(3), async () => (await startSvcDev()).child.kill());
// One data dir started again and again: migrations applied and the store seeded already.
const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const first = await startSvcDev([], dataDir);
first.child.kill('SIGTERM');
await first.child;
const startTimes: number[] = [];
const stopTimes: number[] = [];
for (let i = 0; i < rounds(3); i++) {
  const t0 = performance.now();
  const dev = await startSvcDev([], dataDir);
  startTimes.push(performance.now() - t0);
  const t1 = performance.now();
  dev.child.kill('SIGTERM');
  await dev.child;
  stopTimes.push(performance.now() - t1);
}
const existingMs = median(startTimes);
for (const [name, ms] of [
  ['svc dev ready fresh', freshMs],
  ['svc dev ready existing', existingMs],
] as const) {
  console.log(
    `${name.replace('ready', 'time to ready,')} data dir: median ${Math.round(ms)} ms = ${(ms / nodeMs).toFixed(1)} × node -e 0 (target ≤ 500 ms, ≤ 10 ×)`,
  );
  figure({ name, value: ms, unit: 'ms', ratio: ms / nodeMs, baseline: 'node -e 0' });
}
const stopMs = median(stopTimes);
console.log(`svc dev from SIGTERM to exit: median ${Math.round(stopMs)} ms`);
figure({ name: 'svc dev SIGTERM to exit', value: stopMs, unit: 'ms' });
