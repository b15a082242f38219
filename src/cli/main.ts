import { execute, settings } from '@oclif/core';

/** package.json#oclif.helpClass names it in this bundle, loaded already. */
export { SvcHelp } from './help.js';

/**
 * The CLI process's entry: bin/run.js loads it from the build's bundle (dist/bundle/cli.js, scripts/bundle.mjs),
 * where @oclif/core is bundled too, so a start reads a few files instead of hundreds. `dir` is bin/run.js's
 * URL: oclif finds the package, its manifest and its plugins from it.
 */
export function run(dir: string) {
  // oclif's "auto-transpile" would register tsx under NODE_ENV=test or development to run commands from their
  // TypeScript sources; commands always run from the bundle (TOOLCHAIN.md: oclif's dev mode does not work with
  // TypeScript 7), so the look-up is only time.
  settings.enableAutoTranspile = false;
  return execute({ dir });
}
