import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's root folder, found the same way from `src/` (tsx) and from `dist/src/` (compiled). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'drizzle'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('svc: cannot find the package root');
    dir = parent;
  }
  return dir;
}

export const packageRoot = findPackageRoot();
export const migrationsDir = join(packageRoot, 'drizzle');
/** A SQLite database with every migration applied, made by the build (scripts/fresh-database.mjs). */
export const freshDatabaseTemplate = join(packageRoot, 'dist', 'fresh.db');

const fromSources = import.meta.url.endsWith('.ts');

/**
 * A file of this package's code (`runtime/worker.ts`) as a child process starts it or a loader imports it
 * by path: the TypeScript file from sources (tsx), tsc's output under dist/ when built — also when the caller
 * itself runs from the bundle (dist/bundle, scripts/bundle.mjs), whose chunks are no per-file modules.
 */
export function codePath(path: string): string {
  return fromSources ? join(packageRoot, path) : join(packageRoot, 'dist', path.replace(/\.ts$/, '.js'));
}
