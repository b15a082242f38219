/** `npm run bench`: every benchmark file in test/bench (or those named on the command line), one after another. */
import { execa } from 'execa';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
const support = new Set(['run.ts', 'lib.ts', 'bare-h3.ts']);
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !support.has(f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const result = await execa('node', ['--no-node-snapshot', '--import', 'tsx', join(dir, file)], { stdio: 'inherit', reject: false });
  if (result.exitCode !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
