// `npm run build`, and `npm install`'s prepare: each step says what it does before it starts and how long it
// took, so the screen never stays still through the build at the end of `npm install` (issue 32). A failed
// step stops the build with its exit code.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const steps = [
  ['compiling TypeScript into dist/ (tsc)', [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']],
  ['bundling the CLI, its commands and the service (esbuild)', [join(root, 'scripts', 'bundle.mjs')]],
  ['writing the oclif command manifests', [join(root, 'scripts', 'oclif-manifest.mjs')]],
];
const started = performance.now();
for (const [index, [what, args]] of steps.entries()) {
  const stepStarted = performance.now();
  console.log(`svc build ${index + 1}/${steps.length}: ${what} …`);
  const { status, signal } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (status !== 0) {
    console.error(`svc build: ${what} failed (${signal ?? `exit ${status}`})`);
    process.exit(status ?? 1);
  }
  console.log(`svc build ${index + 1}/${steps.length}: done in ${((performance.now() - stepStarted) / 1000).toFixed(1)} s`);
}
console.log(`svc build: ready in ${((performance.now() - started) / 1000).toFixed(1)} s — run \`npx svc dev\``);
