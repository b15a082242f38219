/**
 * A new app or storefront project carries the CLI that made it as a dev dependency (as Shopify's templates
 * carry `@shopify/cli`), so `npm run dev`, `npx svc …` and the package scripts find this `svc` inside the
 * folder, with or without `npm link`, and never the unrelated `svc` package of the npm registry.
 *
 * The CLI is not on a registry: the dependency points at this package's folder, spelled for the project's
 * package manager — `file:` for an app (npm links a folder given by `file:`), `link:` for a storefront
 * (a pnpm project; `link:` locks nothing but the path, where pnpm's `file:` would lock the CLI's whole
 * tree). The scaffold then makes the link itself (what `npm install` / `pnpm install` would do), so the
 * folder works at once and offline. The storefront build never installs dev dependencies (`--prod`), so the
 * link is outside its dependency policy (docs/decisions.md, issue 32).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { packageRoot } from './paths.js';

export const CLI_PACKAGE = '@svc-commerce/cli';

/** How the project's package.json names this CLI: `file:` (npm) or `link:` (pnpm), relative to the project. */
export function cliSpecifier(projectDir: string, protocol: 'file' | 'link'): string {
  const path = relative(realpathSync(projectDir), realpathSync(packageRoot)).split('\\').join('/');
  return `${protocol}:${path || '.'}`;
}

/**
 * Adds the CLI to package.json's devDependencies (first, as npm sorts them) and the given scripts, and
 * links `node_modules/@svc-commerce/cli` and `node_modules/.bin/svc` to this package.
 */
export function addCliToProject(projectDir: string, options: { protocol: 'file' | 'link'; scripts: Record<string, string> }): string {
  const specifier = cliSpecifier(projectDir, options.protocol);
  const manifestPath = join(projectDir, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { scripts?: Record<string, string>; devDependencies?: Record<string, string> };
  manifest.scripts = { ...options.scripts, ...manifest.scripts };
  manifest.devDependencies = Object.fromEntries(
    Object.entries({ ...manifest.devDependencies, [CLI_PACKAGE]: specifier }).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

  const linked = join(projectDir, 'node_modules', CLI_PACKAGE);
  mkdirSync(dirname(linked), { recursive: true });
  if (!existsSync(linked)) symlinkSync(relative(dirname(linked), packageRoot), linked, 'junction');
  const bin = join(projectDir, 'node_modules', '.bin', 'svc');
  mkdirSync(dirname(bin), { recursive: true });
  if (!existsSync(bin)) symlinkSync(relative(dirname(bin), join(linked, 'bin', 'run.js')), bin);
  return specifier;
}

/**
 * Records a `link:` dev dependency in a pnpm v9 lockfile as `pnpm install` would (specifier and version are
 * the link), so the lockfile still matches package.json. A link locks no package, so no registry is asked.
 */
export function lockLinkedDevDependency(projectDir: string, name: string, specifier: string) {
  const path = join(projectDir, 'pnpm-lock.yaml');
  const lockfile = readFileSync(path, 'utf8');
  const entry = `      '${name}':\n        specifier: ${specifier}\n        version: ${specifier}\n`;
  // The entry opens the importer's devDependencies: the order of keys does not matter to pnpm's check.
  const opened = lockfile.includes('\n    devDependencies:\n')
    ? lockfile.replace('\n    devDependencies:\n', `\n    devDependencies:\n${entry}`)
    : lockfile.replace(/\n {2}\.: \{\}\n|\n {2}\.:\n/, `\n  .:\n    devDependencies:\n${entry}`);
  if (opened === lockfile) throw new Error('pnpm-lock.yaml has no importer "." to record the CLI in');
  writeFileSync(path, opened);
}
