/**
 * Issue 2 benchmarks, measured side by side in one run:
 * - GET /v1/store with a real token (auth + tenancy + envelope) vs a bare H3 hello handler;
 * - `svc --help` wall time, and `svc dev` time to the ready line on a fresh data dir.
 */
import { execa } from 'execa';
import { median, root, rps, startBareH3, startSvcDev } from './lib.js';

const bare = await startBareH3();
const svc = await startSvcDev();
const auth = { authorization: `Bearer ${svc.ready.ownerToken}`, 'x-store-id': svc.ready.storeId };
try {
  await rps(`${bare.ready.url}/hello`, {}, 1); // warm-up
  await rps(`${svc.ready.url}/v1/store`, auth, 1);
  // Alternated, median of three: drift on a shared machine hits both alike.
  const bareRuns: number[] = [];
  const storeRuns: number[] = [];
  for (let i = 0; i < 3; i++) {
    bareRuns.push(await rps(`${bare.ready.url}/hello`));
    storeRuns.push(await rps(`${svc.ready.url}/v1/store`, auth));
  }
  const bareRps = median(bareRuns);
  const storeRps = median(storeRuns);
  console.log(
    `GET /v1/store ${Math.round(storeRps)} req/s vs bare H3 ${Math.round(bareRps)} req/s → ${((100 * storeRps) / bareRps).toFixed(1)}% (target ≥ 50%)`,
  );
} finally {
  bare.child.kill();
  svc.child.kill();
}

const helpTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  await execa('node', ['bin/run.js', '--help'], { cwd: root });
  helpTimes.push(performance.now() - t0);
}
const nodeTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  await execa('node', ['-e', '0'], { cwd: root });
  nodeTimes.push(performance.now() - t0);
}
console.log(`svc --help median ${Math.round(median(helpTimes))} ms (node -e 0: ${Math.round(median(nodeTimes))} ms; target < 400 ms)`);

const readyTimes: number[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const dev = await startSvcDev();
  readyTimes.push(performance.now() - t0);
  dev.child.kill();
}
console.log(`svc dev time to ready (fresh data dir: migrate + seed) median ${Math.round(median(readyTimes))} ms (target < 2000 ms)`);
