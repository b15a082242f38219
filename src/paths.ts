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
