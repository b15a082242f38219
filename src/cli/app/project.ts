import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FieldError } from '../../server/errors.js';
import { checkManifest, type Manifest } from '../../kernel/app-manifest.js';

/** The manifest's rules, for `svc app init` (plugins import only src/cli). */
export { checkManifest, HANDLE, HANDLE_RULE } from '../../kernel/app-manifest.js';

const MANIFEST_FILE = 'manifest.json';
const LEGACY_MANIFEST_FILE = 'svc.app.json';

/** A problem of the app project, shown to its author with the file and key path it concerns. */
export class ProjectError extends Error {
  constructor(
    readonly code: 'MANIFEST_NOT_FOUND' | 'MANIFEST_INVALID' | 'HANDLER_MISSING' | 'BUILD_FAILED' | 'NOT_BUILT',
    message: string,
    readonly issues: FieldError[] = [],
  ) {
    super(message);
  }
}

export interface AppProject {
  dir: string;
  manifestFile: string;
  manifest: Manifest;
  /** The manifest as written (what is uploaded; the service validates it again). */
  raw: Record<string, unknown>;
  warnings: string[];
}

/** `manifest.json`, or the legacy `svc.app.json` with a warning when only that exists (spec 02 §2.1). */
export function readProject(dir: string): AppProject {
  const warnings: string[] = [];
  let file = join(dir, MANIFEST_FILE);
  if (!existsSync(file)) {
    const legacy = join(dir, LEGACY_MANIFEST_FILE);
    if (!existsSync(legacy)) throw new ProjectError('MANIFEST_NOT_FOUND', `no ${MANIFEST_FILE} in ${dir} (svc app init creates one)`);
    warnings.push(`${LEGACY_MANIFEST_FILE} is the legacy manifest name; rename it to ${MANIFEST_FILE}`);
    file = legacy;
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ProjectError('MANIFEST_INVALID', `${file} is not valid JSON: ${(error as Error).message}`);
  }
  const check = checkManifest(raw);
  if (!check.ok) throw new ProjectError('MANIFEST_INVALID', `${file} has ${check.errors.length} problem(s)`, check.errors);
  return { dir, manifestFile: file, manifest: check.manifest, raw, warnings };
}
