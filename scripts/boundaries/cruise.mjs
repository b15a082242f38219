/** One dependency-cruiser run over the project with .dependency-cruiser.cjs, shared by the boundary check and the module graph. */
import './register.mjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');
export const KNOWN_VIOLATIONS_FILE = '.dependency-cruiser-known-violations.json';
const CRUISED = ['src', 'plugins', 'runtime'];

/**
 * The cruise result (dependency-cruiser's JSON); with `knownViolations`, violations in the baseline come back with
 * severity `ignore`. With `baselineMode` the answer is instead the new baseline's text and a summary of the change.
 */
export async function cruiseProject({ knownViolations, baselineMode } = {}) {
  process.chdir(root);
  const { cruise } = await import('dependency-cruiser');
  const { default: extractDepcruiseOptions } = await import('dependency-cruiser/config-utl/extract-depcruise-options');
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  const known = knownViolations ? { knownViolations } : {};
  if (baselineMode) {
    const { output, meta } = await cruise(CRUISED, { ...options, ...known, baseline: { mode: baselineMode }, outputType: 'baseline' });
    return { baseline: output, meta };
  }
  const { output } = await cruise(CRUISED, { ...options, ...known, outputType: 'json' });
  return typeof output === 'string' ? JSON.parse(output) : output;
}

export function readKnownViolations() {
  return JSON.parse(readFileSync(join(root, KNOWN_VIOLATIONS_FILE), 'utf8'));
}
