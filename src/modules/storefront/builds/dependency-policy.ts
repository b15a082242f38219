/**
 * The storefront build's dependency policy (spec 02 §2.3, §7), checked before anything is installed.
 * Pure: it reads the project folder and the advisory index it is given, nothing else.
 *
 * Refused: a manifest that cannot be read (INVALID_MANIFEST); sources that cannot be verified — no
 * `pnpm-lock.yaml`, one that does not match `package.json`, git, file, link or URL sources
 * (UNSUPPORTED_SOURCE) — except a project's own dev dependencies, which the build never installs (`--prod`)
 * and so never bundles: a scaffold's `link:` to the svc CLI passes, while every package the lockfile locks is
 * checked whoever needs it; high or critical advisories on the locked version (ADVISORY); any malware record
 * of the package (MALWARE); the service's denylist (DENYLISTED). Only warned: moderate advisories,
 * install scripts (never run), install configuration in the project, bundled dependencies.
 */
// pnpm's lockfile packages are loaded by the first check (below): every service start would pay ~70 ms for them.
import type { LockfileObject, PackageSnapshot } from '@pnpm/lockfile.fs';
import type { satisfiesPackageManifest } from '@pnpm/lockfile.verification';
import { access, readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { Advisory, AdvisoryIndex } from './advisories.js';

export type RejectionReason = 'ADVISORY' | 'MALWARE' | 'DENYLISTED' | 'UNSUPPORTED_SOURCE' | 'INVALID_MANIFEST';
export type WarningReason = 'ADVISORY' | 'INSTALL_SCRIPT' | 'INSTALL_CONFIG' | 'BUNDLED_DEPENDENCIES';

interface Finding<Reason> {
  package: string;
  version: string | null;
  reason: Reason;
  detail: string;
  advisory: string | null;
}
export type Rejection = Finding<RejectionReason>;
export type Warning = Finding<WarningReason>;

export interface DependencyReport {
  rejected: Rejection[];
  warnings: Warning[];
}

export interface DependencyPolicyOptions {
  advisories: AdvisoryIndex;
  /** Package names, or `@scope/*` for a whole scope. */
  denylist: string[];
}

/** The lockfile major this pnpm writes; an older or newer format cannot be checked. */
const LOCKFILE_VERSION = '9.0';
/** Lifecycle scripts pnpm runs for the project itself during an install. */
const PROJECT_INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare'];
/** Files through which a project would configure or hook into its own install. */
const INSTALL_CONFIG_FILES: Record<string, string> = {
  '.npmrc': 'the project has a .npmrc; registry and install settings come from the service, not the project',
  'pnpm-workspace.yaml': 'the project has a pnpm-workspace.yaml; its settings are not applied to the build',
  '.pnpmfile.cjs': 'the project has a .pnpmfile.cjs; pnpmfile hooks are never run',
  '.pnpmfile.mjs': 'the project has a .pnpmfile.mjs; pnpmfile hooks are never run',
};

const dependencyMap = z.record(z.string(), z.string());
const manifestSchema = z.looseObject({
  name: z.string().optional(),
  version: z.string().optional(),
  dependencies: dependencyMap.optional(),
  devDependencies: dependencyMap.optional(),
  optionalDependencies: dependencyMap.optional(),
  peerDependencies: dependencyMap.optional(),
  scripts: z.record(z.string(), z.string()).optional(),
  bundledDependencies: z.union([z.array(z.string()), z.boolean()]).optional(),
  bundleDependencies: z.union([z.array(z.string()), z.boolean()]).optional(),
  pnpm: z.unknown().optional(),
});
type Manifest = z.infer<typeof manifestSchema>;
type PnpmManifest = Parameters<typeof satisfiesPackageManifest>[2];

export async function checkDependencies(projectDir: string, options: DependencyPolicyOptions): Promise<DependencyReport> {
  const report = new Report();
  const read = await readManifest(projectDir);
  if ('invalid' in read) {
    report.reject({ package: basename(projectDir), version: null, reason: 'INVALID_MANIFEST', detail: read.invalid, advisory: null });
    return report.result();
  }
  const { manifest } = read;
  const project = { package: manifest.name ?? basename(projectDir), version: manifest.version ?? null, advisory: null };

  await checkProjectConfig(projectDir, manifest, project, report);

  const lockfile = await readLockfile(projectDir);
  if ('unusable' in lockfile) {
    report.reject({ ...project, reason: 'UNSUPPORTED_SOURCE', detail: lockfile.unusable });
    return report.result();
  }
  const { satisfiesPackageManifest } = await import('@pnpm/lockfile.verification');
  const match = satisfiesPackageManifest(lockfile.settings ?? {}, lockfile.importers['.' as keyof LockfileObject['importers']], manifest as PnpmManifest);
  if (!match.satisfies) {
    report.reject({
      ...project,
      reason: 'UNSUPPORTED_SOURCE',
      detail: `pnpm-lock.yaml does not match package.json: ${match.detailedReason?.trim().replace(/\s*\n\s*/g, ' ') ?? 'unknown difference'}; run pnpm install and upload the updated lockfile`,
    });
  }

  for (const [name, specifier] of lockfileSpecifiers(lockfile)) {
    const source = sourceOfSpecifier(specifier);
    if (source)
      report.reject({
        package: name,
        version: null,
        reason: 'UNSUPPORTED_SOURCE',
        detail: `${source} source "${specifier}" cannot be verified; depend on a registry version`,
        advisory: null,
      });
  }
  // What is installed is the locked version, not the specifier: a registry range can be locked to `link:../..`.
  for (const [name, version] of lockedVersions(lockfile)) {
    const source = sourceOfLockedVersion(version);
    if (source)
      report.reject({
        package: name,
        version: null,
        reason: 'UNSUPPORTED_SOURCE',
        detail: `locked to the ${source} source "${version}", which cannot be verified; depend on a registry version`,
        advisory: null,
      });
  }
  for (const [depPath, snapshot] of Object.entries(lockfile.packages ?? {})) {
    checkPackage(depPath, snapshot, options, report);
  }
  return report.result();
}

async function readManifest(projectDir: string): Promise<{ manifest: Manifest } | { invalid: string }> {
  let text: string;
  try {
    text = await readFile(join(projectDir, 'package.json'), 'utf8');
  } catch {
    return { invalid: 'package.json is missing' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { invalid: `package.json is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { invalid: `package.json is malformed at ${issue.path.length ? issue.path.join('.') : 'the top level'}: ${issue.message}` };
  }
  return { manifest: parsed.data };
}

async function readLockfile(projectDir: string): Promise<LockfileObject | { unusable: string }> {
  try {
    const { readWantedLockfile } = await import('@pnpm/lockfile.fs');
    const lockfile = await readWantedLockfile(projectDir, { ignoreIncompatible: false, wantedVersions: [LOCKFILE_VERSION] });
    return lockfile ?? { unusable: 'pnpm-lock.yaml is missing; run pnpm install and upload the project with its lockfile' };
  } catch (err) {
    // pnpm names the file by its absolute path, which is the service's business, not the seller's.
    const reason = (err as Error).message.replaceAll(`${join(projectDir, 'pnpm-lock.yaml')}`, 'pnpm-lock.yaml');
    return { unusable: `pnpm-lock.yaml cannot be read (a lockfile v${LOCKFILE_VERSION} from pnpm is needed): ${reason}` };
  }
}

async function checkProjectConfig(projectDir: string, manifest: Manifest, project: Omit<Warning, 'reason' | 'detail'>, report: Report) {
  for (const [file, detail] of Object.entries(INSTALL_CONFIG_FILES)) {
    if (await exists(join(projectDir, file))) report.warn({ ...project, reason: 'INSTALL_CONFIG', detail });
  }
  if (manifest.pnpm !== undefined) {
    report.warn({ ...project, reason: 'INSTALL_CONFIG', detail: 'package.json has a "pnpm" field; its settings are not applied to the build' });
  }
  const scripts = PROJECT_INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name]);
  if (scripts.length) {
    report.warn({ ...project, reason: 'INSTALL_SCRIPT', detail: `install scripts (${scripts.join(', ')}) are never run` });
  }
  const bundled = manifest.bundledDependencies ?? manifest.bundleDependencies;
  if (bundled === true || (Array.isArray(bundled) && bundled.length)) {
    report.warn({
      ...project,
      reason: 'BUNDLED_DEPENDENCIES',
      detail: `bundled dependencies${Array.isArray(bundled) ? ` (${bundled.join(', ')})` : ''} ship inside the package and are not checked`,
    });
  }
}

/** Every specifier the lockfile records for what the build installs: each project's dependencies (not its dev ones) and the resolved catalog entries. */
function* lockfileSpecifiers(lockfile: LockfileObject): Generator<[string, string]> {
  for (const importer of Object.values(lockfile.importers)) {
    for (const [name, specifier] of Object.entries(importer.specifiers ?? {})) if (!isDevOnly(importer, name)) yield [name, specifier];
  }
  for (const catalog of Object.values(lockfile.catalogs ?? {})) {
    for (const [name, entry] of Object.entries(catalog)) yield [name, entry.specifier];
  }
}

/** Every version the lockfile installs by name: each project's dependencies (not its dev ones, `--prod`) and each locked package's own. */
function* lockedVersions(lockfile: LockfileObject): Generator<[string, string]> {
  type Groups = { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
  const groups = (of: Groups, withDev: boolean) =>
    [of.dependencies, withDev ? of.devDependencies : undefined, of.optionalDependencies].flatMap((group) => Object.entries(group ?? {}));
  for (const importer of Object.values(lockfile.importers)) yield* groups(importer, false);
  for (const snapshot of Object.values(lockfile.packages ?? {})) yield* groups(snapshot, true);
}

/** A project's dev dependency that it does not also need at run time: the build's `--prod` install skips it. */
function isDevOnly(importer: LockfileObject['importers'][keyof LockfileObject['importers']], name: string): boolean {
  return importer.devDependencies?.[name] !== undefined && importer.dependencies?.[name] === undefined && importer.optionalDependencies?.[name] === undefined;
}

/** The kind of a locked version that is not a registry version (`1.2.3`, `1.2.3(peer@1.0.0)`, `alias@1.2.3`), null for one that is. */
function sourceOfLockedVersion(version: string): string | null {
  if (/^(?:(?:@[\w.~-]+\/)?[\w.~-]+@)?\d+\.\d+\.\d+[\w.+-]*$/.test(version.replace(/\(.*$/, ''))) return null;
  return sourceOfSpecifier(version) ?? 'unknown';
}

/** The kind of a non-registry specifier (npm's and pnpm's spellings), null for registry ranges, tags and aliases. */
function sourceOfSpecifier(specifier: string): string | null {
  if (/^(git\+|git:|github:|gitlab:|bitbucket:|gist:)/.test(specifier)) return 'git';
  if (/^[\w.-]+\/[\w.-]+(#.*)?$/.test(specifier)) return 'git';
  if (specifier.startsWith('file:') || /^(\.{0,2}\/|~\/)/.test(specifier)) return 'file';
  if (specifier.startsWith('link:') || specifier.startsWith('workspace:')) return 'link';
  if (/^https?:/.test(specifier)) return 'tarball URL';
  return null;
}

/** The kind of a locked package's non-registry resolution, null for a registry tarball known by its integrity. */
function sourceOfResolution(resolution: PackageSnapshot['resolution']): string | null {
  if ('type' in resolution && resolution.type) {
    return resolution.type === 'git' ? 'git' : resolution.type === 'directory' ? 'file' : 'URL';
  }
  if ('tarball' in resolution && resolution.tarball) {
    if (resolution.gitHosted) return 'git';
    return resolution.tarball.startsWith('file:') ? 'file' : 'tarball URL';
  }
  return null;
}

/** `name@version(peer@x)` → name and version; names start with at most one `@` (their scope). */
function parseDepPath(depPath: string): { name: string; version: string } {
  const at = depPath.indexOf('@', 1);
  if (at < 0) return { name: depPath, version: '' };
  const version = depPath.slice(at + 1);
  const peers = version.indexOf('(');
  return { name: depPath.slice(0, at), version: peers >= 0 ? version.slice(0, peers) : version };
}

function checkPackage(depPath: string, snapshot: PackageSnapshot, options: DependencyPolicyOptions, report: Report) {
  const { name, version } = parseDepPath(depPath);
  const pkg = { package: name, version };
  const source = sourceOfResolution(snapshot.resolution);
  if (source) {
    report.reject({
      ...pkg,
      version: null,
      reason: 'UNSUPPORTED_SOURCE',
      detail: `${source} source (${version}) cannot be verified; depend on a registry version`,
      advisory: null,
    });
  }
  if (isDenylisted(name, options.denylist)) {
    report.reject({ ...pkg, reason: 'DENYLISTED', detail: `${name} is on the service's denylist`, advisory: null });
  }
  const [malware] = options.advisories.malware(name);
  if (malware) {
    report.reject({ ...pkg, reason: 'MALWARE', detail: `${describe(malware)}; every version of ${name} is refused`, advisory: malware.id });
  }
  const seen = new Set<string>();
  for (const advisory of options.advisories.affecting(name, version)) {
    // The same flaw published under two ids (one listing the other as an alias) is reported once.
    if (seen.has(advisory.id)) continue;
    for (const id of [advisory.id, ...advisory.aliases]) seen.add(id);
    const finding = { ...pkg, reason: 'ADVISORY' as const, advisory: advisory.id };
    if (advisory.severity === 'HIGH' || advisory.severity === 'CRITICAL') {
      report.reject({ ...finding, detail: `${advisory.severity.toLowerCase()} severity: ${describe(advisory)}; update ${name} to a fixed version` });
    } else if (advisory.severity === 'MODERATE' || advisory.severity === 'UNKNOWN') {
      report.warn({ ...finding, detail: `${advisory.severity === 'MODERATE' ? 'moderate severity' : 'severity not rated'}: ${describe(advisory)}` });
    }
  }
  // Older lockfile formats record build needs; the build installs with scripts off whatever they say.
  const build = snapshot as { requiresBuild?: boolean; hasInstallScript?: boolean };
  if (build.requiresBuild || build.hasInstallScript) {
    report.warn({
      ...pkg,
      reason: 'INSTALL_SCRIPT',
      detail: `${name} has install scripts; they are never run, so anything they would build is missing`,
      advisory: null,
    });
  }
  if (snapshot.bundledDependencies === true || (Array.isArray(snapshot.bundledDependencies) && snapshot.bundledDependencies.length)) {
    report.warn({ ...pkg, reason: 'BUNDLED_DEPENDENCIES', detail: `${name} ships bundled dependencies that are not checked`, advisory: null });
  }
}

function isDenylisted(name: string, denylist: string[]): boolean {
  return denylist.some((entry) => entry === name || (entry.endsWith('/*') && name.startsWith(entry.slice(0, -1))));
}

function describe(advisory: Advisory): string {
  return advisory.summary ? `${advisory.id} (${advisory.summary})` : advisory.id;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Collects findings once each: a package locked under several peer sets, or found twice, is listed once. */
class Report {
  private readonly rejected = new Map<string, Rejection>();
  private readonly warnings = new Map<string, Warning>();

  reject(finding: Rejection) {
    const key = `${finding.reason}\0${finding.package}\0${finding.reason === 'UNSUPPORTED_SOURCE' ? '' : finding.version}\0${finding.advisory}`;
    if (!this.rejected.has(key)) this.rejected.set(key, finding);
  }

  warn(finding: Warning) {
    const key = `${finding.reason}\0${finding.package}\0${finding.version}\0${finding.advisory}\0${finding.detail}`;
    if (!this.warnings.has(key)) this.warnings.set(key, finding);
  }

  result(): DependencyReport {
    return { rejected: [...this.rejected.values()], warnings: [...this.warnings.values()] };
  }
}

/** Lifecycle scripts npm packages run when installed (a `binding.gyp` implies `install: node-gyp rebuild`). */
const PACKAGE_INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/**
 * Installed packages that have install scripts, read from what pnpm put in `node_modules/.pnpm` (its v9
 * lockfiles no longer record them, and an install with scripts off does not list them): each is a
 * warning `INSTALL_SCRIPT`, since the script never runs and whatever it would build is missing.
 */
export async function installedScriptWarnings(projectDir: string): Promise<Warning[]> {
  const store = join(projectDir, 'node_modules', '.pnpm');
  const entries = await readdir(store, { withFileTypes: true }).catch(() => []);
  const warnings = new Map<string, Warning>();
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === 'node_modules') continue;
    const modules = join(store, entry.name, 'node_modules');
    for (const scopeOrName of await readdir(modules).catch(() => [] as string[])) {
      const names = scopeOrName.startsWith('@')
        ? (await readdir(join(modules, scopeOrName)).catch(() => [] as string[])).map((n) => `${scopeOrName}/${n}`)
        : [scopeOrName];
      for (const name of names) {
        const dir = join(modules, name);
        const manifest = await readFile(join(dir, 'package.json'), 'utf8').then(
          (t) => JSON.parse(t) as { name?: string; version?: string; scripts?: Record<string, string> },
          () => null,
        );
        if (!manifest?.name || manifest.name !== name || warnings.has(`${name}@${manifest.version}`)) continue;
        const scripts = PACKAGE_INSTALL_SCRIPTS.filter((s) => manifest.scripts?.[s]);
        const gyp = await access(join(dir, 'binding.gyp')).then(
          () => true,
          () => false,
        );
        if (scripts.length === 0 && !gyp) continue;
        warnings.set(`${name}@${manifest.version}`, {
          package: name,
          version: manifest.version ?? null,
          reason: 'INSTALL_SCRIPT',
          advisory: null,
          detail: `${name} has install scripts (${[...scripts, ...(gyp ? ['node-gyp rebuild'] : [])].join(', ')}); they are never run, so anything they would build is missing`,
        });
      }
    }
  }
  return [...warnings.values()];
}
