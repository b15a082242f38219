/**
 * `npm run bench`: every benchmark file in test/bench (or those named on the command line), one after another.
 *   --quick      shorter runs (SVC_BENCH_QUICK=1): checks that every bench works; its figures mean little
 *   --json FILE  writes every figure the benches recorded (lib.ts `figure`) to FILE, one object per figure
 *   --check      compares the figures with test/bench/budgets.json; exits non-zero when one misses its budget
 */
import { execa } from 'execa';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkBudgets, type Budget, type RecordedFigure } from './budgets.js';

const dir = import.meta.dirname;
const support = new Set(['run.ts', 'lib.ts', 'bare-h3.ts', 'budgets.ts']);
const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
if (jsonAt >= 0 && !jsonFile) throw new Error('--json needs a file name');
const check = args.includes('--check');
const quick = args.includes('--quick');
const filters = args.filter((a, i) => !a.startsWith('--') && !(jsonAt >= 0 && i === jsonAt + 1));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !support.has(f))
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();

const figuresFile = join(mkdtempSync(join(tmpdir(), 'svc-bench-figures-')), 'figures.jsonl');
writeFileSync(figuresFile, '');
const env = { SVC_BENCH_FIGURES: figuresFile, ...(quick ? { SVC_BENCH_QUICK: '1' } : {}) };

const crashed: string[] = [];
for (const file of files) {
  console.log(`\n== ${file}`);
  const result = await execa('node', ['--no-node-snapshot', '--import', 'tsx', join(dir, file)], { stdio: 'inherit', reject: false, env });
  if (result.exitCode !== 0) crashed.push(file);
}

const figures: RecordedFigure[] = readFileSync(figuresFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
if (jsonFile) {
  writeFileSync(jsonFile, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`\n${figures.length} figures written to ${jsonFile}`);
}
if (crashed.length) console.log(`\nfailed: ${crashed.join(', ')}`);

let missed = 0;
if (check) {
  const budgets = JSON.parse(readFileSync(join(dir, 'budgets.json'), 'utf8')).budgets as Budget[];
  const ran = new Set(files.map((f) => f.replace(/\.ts$/, '')));
  missed = checkBudgets(
    budgets.filter((b) => ran.has(b.bench)),
    figures,
    console.log,
  );
}
process.exitCode = crashed.length || missed ? 1 : 0;
