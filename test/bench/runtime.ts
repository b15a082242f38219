/**
 * App runtime figures (issue 6): warm tool-call overhead, calls/s per installation, cold start of a new
 * installation's isolate. Run alone: `node --no-node-snapshot --import tsx test/bench/runtime.ts`.
 *
 * The tool is trivial (returns its input), so a call's round trip is the runtime's overhead: IPC to the
 * worker and back, a fresh context, the bootstrap, running the cached bundle, JSON in and out.
 */
import { RuntimeHost } from '../../src/runtime-host/index.js';
import { bundle } from '../helpers/runtime-apps.js';
import { figure, median, quick, rounds, seconds, treeCpuMicros } from './lib.js';

const { code } = bundle(`export const tools = { echo: (input: unknown) => input };`);
const request = (installationId: string) => ({
  installationId,
  appId: 'app_bench',
  bundleId: 'bench',
  bundleCode: code,
  kind: 'tool' as const,
  name: 'echo',
  input: { n: 1 },
  context: { storeId: 'store_bench' },
});
const host = new RuntimeHost();

async function timed(installationId: string) {
  const t0 = performance.now();
  const r = await host.invoke(request(installationId));
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return { roundTrip: performance.now() - t0, inWorker: r.durationMs };
}

// Worker start and first compile are not part of any figure.
await timed('inst_warm');
for (let i = 0; i < 500; i++) await timed('inst_warm');

const warm = [];
const WARM_CALLS = quick ? 500 : 3000;
// This process and the runtime's worker process: what a call costs in CPU wherever it runs.
const c0 = treeCpuMicros(process.pid);
for (let i = 0; i < WARM_CALLS; i++) warm.push(await timed('inst_warm'));
const cpuPerCall = (treeCpuMicros(process.pid) - c0) / WARM_CALLS;
const overhead = median(warm.map((w) => w.roundTrip));
const inWorker = median(warm.map((w) => w.inWorker));

async function callsPerSecond(concurrency: number, seconds: number) {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await timed('inst_warm');
        done++;
      }
    }),
  );
  return done / seconds;
}
const sequential = await callsPerSecond(1, seconds(2));
const concurrent = await callsPerSecond(20, seconds(2));

// A new installation of an already-deployed version: new isolate, bundle compiled from V8's code cache.
const cold = [];
for (let i = 0; i < rounds(40); i++) cold.push((await timed(`inst_cold_${i}`)).roundTrip);
const coldStart = median(cold);
// The first call of a version never seen: the code travels to the worker and compiles without a cache.
const fresh = [];
for (let i = 0; i < rounds(20); i++) {
  const t0 = performance.now();
  const r = await host.invoke({ ...request(`inst_fresh_${i}`), bundleId: `fresh_${i}`, bundleCode: `${code}\n// version ${i}` });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  fresh.push(performance.now() - t0);
}
const freshStart = median(fresh);

await host.close();

const row = (label: string, value: string, target: string, ok: boolean) =>
  console.log(`${ok ? '✓' : '✗'} ${label.padEnd(44)} ${value.padStart(12)}   target ${target}`);
console.log('App runtime (isolated-vm worker; trivial tool, JSON in and out)');
row('warm tool call overhead, median round trip', `${overhead.toFixed(3)} ms`, '≤ 0.3 ms', overhead <= 0.3);
console.log(`  of which inside the worker (context, bootstrap, run): ${inWorker.toFixed(3)} ms; IPC and host: ${(overhead - inWorker).toFixed(3)} ms`);
console.log(`  CPU per warm call, host and worker processes together: ${cpuPerCall.toFixed(0)} µs`);
row('calls/s per installation, 20 in flight', `${Math.round(concurrent)}`, '≥ 3,000', concurrent >= 3000);
console.log(`  one call at a time: ${Math.round(sequential)} calls/s`);
row('cold start of a new installation, median', `${coldStart.toFixed(2)} ms`, '≤ 50 ms', coldStart <= 50);
console.log(`  first call of a never-seen bundle version (code sent, compiled without cache): ${freshStart.toFixed(2)} ms`);

figure({ name: 'warm app tool call', value: overhead, unit: 'ms' });
figure({ name: 'warm app tool call IPC and host', value: overhead - inWorker, unit: 'ms' });
figure({ name: 'cpu per warm app tool call', value: cpuPerCall, unit: 'µs' });
figure({ name: 'app tool calls 20 in flight', value: concurrent, unit: 'calls/s' });
figure({ name: 'app cold start', value: coldStart, unit: 'ms' });
