// `npm run build`, and `npm install`'s prepare: each step says what it does before it starts and how long it
// took, so the screen never stays still through the build at the end of `npm install` (issue 32). A failed
// step stops the build with its exit code.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
// The first `npx svc` in a clone installs the clone into npx's cache (npx's way of running a package's own bin),
// and that install runs prepare again: the build `npm install` made is there, so it is not made twice.
if (process.env.npm_lifecycle_event === 'prepare' && process.env.npm_command === 'exec' && existsSync(join(root, 'dist', 'bundle', 'cli.js'))) {
  console.log('svc build: already built (npx runs prepare again); `npm run build` rebuilds');
  process.exit(0);
}
const steps = [
  ['compiling TypeScript into dist/ (tsc)', [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']],
  ['type-checking the console (tsc)', [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'console/tsconfig.json']],
  ['writing the template of new SQLite data dirs (dist/fresh.db)', [join(root, 'scripts', 'fresh-database.mjs')]],
  ['bundling the CLI, its commands and the service (esbuild)', [join(root, 'scripts', 'bundle.mjs')]],
  ['bundling the console (esbuild)', [join(root, 'scripts', 'bundle-console.mjs')]],
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
