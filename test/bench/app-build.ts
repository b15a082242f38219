/**
 * `svc app build` of the tools template (target ≤ 300 ms). Measured three ways in one run: the build
 * itself in-process (cold: first build, esbuild's service starting; warm: later builds), and the whole CLI
 * process (`node bin/run.js app build`, what a person waits for) beside `node bin/run.js --help`, the floor
 * every command pays for Node and oclif. Standalone: `node --import tsx test/bench/app-build.ts`.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/cli/app/build.js';
import { figure, median, root } from './lib.js';

const work = mkdtempSync(join(tmpdir(), 'svc-bench-app-'));
const dir = join(work, 'demo');
const bin = join(root, 'bin', 'run.js');

async function wall(args: string[], cwd: string, runs: number) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await execa('node', [bin, ...args], { cwd, env: { CI: '1' }, reject: false });
    if (r.exitCode !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

try {
  await execa('node', [bin, 'app', 'init', 'demo'], { cwd: work, env: { CI: '1' } });

  const t0 = performance.now();
  await buildApp(dir);
  const cold = performance.now() - t0;
  const warm: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await buildApp(dir);
    warm.push(performance.now() - t);
  }

  const cli = await wall(['app', 'build'], dir, 7);
  const floor = await wall(['--help'], dir, 7);

  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`app build, in-process, cold            ${ms(cold)}`);
  console.log(`app build, in-process, warm (median)   ${ms(median(warm))}`);
  console.log(`svc app build, whole process (median)  ${ms(cli)}   target ≤ 300 ms: ${cli <= 300 ? 'met' : 'NOT met'}`);
  console.log(`svc --help, whole process (median)     ${ms(floor)}   (Node + oclif floor)`);
  console.log(`ratio build process ÷ --help process   ${(cli / floor).toFixed(2)}`);
  figure({ name: 'svc app build', value: cli, unit: 'ms', ratio: cli / floor, baseline: 'svc --help' });
} finally {
  rmSync(work, { recursive: true, force: true });
}
