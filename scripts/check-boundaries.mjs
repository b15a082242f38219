/**
 * `npm run check:boundaries`: fails on any import that breaks a rule of .dependency-cruiser.cjs and is not in the
 * baseline of known violations (printing the import and the rule's comment), and on a module diagram in
 * docs/architecture.md that differs from the code's.
 *
 *   --summary          counts per rule of the violations still in the code (for session notes)
 *   --update-baseline  drop the baseline's fixed entries; never adds one, so the baseline only shrinks
 *   --record-baseline  record today's violations as the baseline, new ones included: only when moving code
 *                      carried known violations to new files (the reviewer sees the file grow)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cruiseProject, KNOWN_VIOLATIONS_FILE, readKnownViolations, root } from './boundaries/cruise.mjs';
import { committedBlock, edgesAgainstLayers, moduleGraphBlock } from './module-graph.mjs';

const started = performance.now();
const mode = process.argv[2];
const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

if (mode === '--update-baseline' || mode === '--record-baseline') {
  const known = readKnownViolations();
  const baselineMode = mode === '--update-baseline' ? 'shrink-only' : 'full';
  const { baseline, meta } = await cruiseProject({ knownViolations: known, baselineMode });
  writeFileSync(join(root, KNOWN_VIOLATIONS_FILE), baseline);
  console.log(`${KNOWN_VIOLATIONS_FILE}: was ${known.length} known violations${meta}`);
} else if (mode === '--summary') {
  const result = await cruiseProject({ knownViolations: readKnownViolations() });
  const perRule = new Map(result.summary.ruleSetUsed.forbidden.map((rule) => [rule.name, { known: 0, fresh: 0 }]));
  for (const { rule } of result.summary.violations) perRule.get(rule.name)[rule.severity === 'ignore' ? 'known' : 'fresh'] += 1;
  console.log('Boundary violations left in the code, per rule (known = in the baseline, new = would fail the check):');
  for (const [name, { known, fresh }] of perRule) console.log(`  ${name.padEnd(26)} ${String(known).padStart(4)} known${fresh ? `, ${fresh} new` : ''}`);
  const known = [...perRule.values()].reduce((sum, { known }) => sum + known, 0);
  console.log(`  ${'total'.padEnd(26)} ${String(known).padStart(4)} known; baseline entries already fixed: ${result.summary.baselineStale ?? 0}`);
} else if (mode === undefined) {
  const result = await cruiseProject({ knownViolations: readKnownViolations() });
  const fresh = result.summary.violations.filter(({ rule }) => rule.severity !== 'ignore');
  let failed = false;
  if (fresh.length > 0) {
    const advice = new Map(result.summary.ruleSetUsed.forbidden.map((rule) => [rule.name, rule.comment]));
    for (const { rule, from, to, cycle } of fresh) {
      const circle = cycle ? `\n    circle: ${[from, ...cycle.map((step) => step.name)].join(' → ')}` : '';
      console.error(`✗ ${rule.name}: ${from} → ${to}${circle}\n    ${advice.get(rule.name)}\n`);
    }
    console.error(`${fresh.length} new imports across module boundaries (above); docs/architecture.md, "Modules and seams".`);
    failed = true;
  }
  for (const { from, to, count } of edgesAgainstLayers(result)) {
    console.error(
      `✗ layers: ${from} imports ${to} (${count}×), which sits above it in the layer order (docs/architecture.md, "Layers").\n` +
        `    Turn it around: ${from} announces what happened (a Happening) or asks (a Question) through src/server/hooks.ts, and ${to} listens or answers.\n`,
    );
    failed = true;
  }
  const diagram = moduleGraphBlock(result);
  if (committedBlock() !== diagram) {
    console.error('docs/architecture.md: the module diagram differs from the code. Run `npm run graph` and commit the result.');
    failed = true;
  }
  const stale = result.summary.baselineStale ?? 0;
  const staleNote = stale > 0 ? `; ${stale} fixed since the baseline: run \`npm run check:boundaries -- --update-baseline\` to lock that in` : '';
  const known = result.summary.violations.length - fresh.length;
  console.log(`boundaries: ${failed ? 'FAILED' : 'ok'} — ${fresh.length} new, ${known} known violations${staleNote} (${seconds()})`);
  if (failed) process.exit(1);
} else {
  console.error(`Unknown option ${mode}: use --summary, --update-baseline or --record-baseline.`);
  process.exit(2);
}
