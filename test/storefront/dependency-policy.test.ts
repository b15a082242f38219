/**
 * The storefront build's dependency policy (src/modules/storefront/builds/dependency-policy.ts) as a table:
 * fixture projects in temp folders (package.json plus pnpm-lock.yaml in pnpm 12's v9 format), checked
 * against the offline advisory snapshot, each producing every refusal reason and warning once; then the
 * OSV advisory source itself — range matching, severities, the zip export, a URL and an unreachable source.
 */
import { test } from 'uvu';
import { execa } from 'execa';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { stringify } from 'yaml';
import {
  AdvisoryIndex,
  AdvisorySourceUnavailable,
  advisorySnapshotDir,
  cvss3BaseScore,
  loadAdvisories,
} from '../../src/modules/storefront/builds/advisories.js';
import { checkDependencies, type DependencyReport } from '../../src/modules/storefront/builds/dependency-policy.js';

const INTEGRITY = 'sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==';
const snapshot = await loadAdvisories(advisorySnapshotDir);
const temps: string[] = [];

interface Locked {
  specifier: string;
  version: string;
  /** Extra fields of the `packages:` entry (resolution defaults to a registry integrity). */
  info?: Record<string, unknown>;
  dev?: boolean;
}

/** A v9 lockfile as pnpm 12 writes it (`pnpm install --lockfile-only`): importers, packages and snapshots. */
function lockfileOf(deps: Record<string, Locked>, transitive: Record<string, Record<string, unknown>> = {}): string {
  const importer: Record<string, Record<string, { specifier: string; version: string }>> = {};
  const packages: Record<string, Record<string, unknown>> = {};
  const snapshots: Record<string, Record<string, unknown>> = {};
  for (const [name, dep] of Object.entries(deps)) {
    const field = dep.dev ? 'devDependencies' : 'dependencies';
    importer[field] = { ...importer[field], [name]: { specifier: dep.specifier, version: dep.version } };
    if (dep.version.startsWith('link:')) continue;
    const key = `${name}@${dep.version}`;
    packages[key.replace(/\(.*$/, '')] = { resolution: { integrity: INTEGRITY }, ...dep.info };
    snapshots[key] = {};
  }
  for (const [key, info] of Object.entries(transitive)) {
    packages[key.replace(/\(.*$/, '')] = { resolution: { integrity: INTEGRITY }, ...info };
    snapshots[key] = {};
  }
  const sorted = (entries: Record<string, Record<string, unknown>>) => Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
  return stringify({
    lockfileVersion: '9.0',
    settings: { autoInstallPeers: true, excludeLinksFromLockfile: false },
    importers: { '.': importer },
    packages: sorted(packages),
    snapshots: sorted(snapshots),
  });
}

/** A project folder: `package.json` from `manifest` (a string is written as is), the lockfile of `deps`, and any extra files. */
async function project(
  manifest: Record<string, unknown> | string,
  deps: Record<string, Locked> | null,
  files: Record<string, string> = {},
  transitive?: Record<string, Record<string, unknown>>,
) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-deppolicy-'));
  temps.push(dir);
  if (typeof manifest === 'string') {
    await writeFile(join(dir, 'package.json'), manifest);
  } else {
    const fromDeps = (dev: boolean) =>
      Object.fromEntries(
        Object.entries(deps ?? {})
          .filter(([, d]) => !!d.dev === dev)
          .map(([n, d]) => [n, d.specifier]),
      );
    const dependencies = fromDeps(false);
    const devDependencies = fromDeps(true);
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify(
        {
          name: 'shop',
          version: '1.0.0',
          ...(Object.keys(dependencies).length ? { dependencies } : {}),
          ...(Object.keys(devDependencies).length ? { devDependencies } : {}),
          ...manifest,
        },
        null,
        2,
      ),
    );
  }
  if (deps) await writeFile(join(dir, 'pnpm-lock.yaml'), lockfileOf(deps, transitive));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), content);
  }
  return dir;
}

const check = (dir: string, denylist: string[] = [], advisories = snapshot) => checkDependencies(dir, { advisories, denylist });
const reg = (version: string, dev = false): Locked => ({ specifier: version, version, dev });
const summary = (report: DependencyReport) => ({
  rejected: report.rejected.map((r) => `${r.reason} ${r.package}@${r.version ?? '-'}${r.advisory ? ` ${r.advisory}` : ''}`),
  warnings: report.warnings.map((w) => `${w.reason} ${w.package}@${w.version ?? '-'}${w.advisory ? ` ${w.advisory}` : ''}`),
});

test('a clean project from the registry passes without findings', async () => {
  const dir = await project(
    {},
    {
      lodash: reg('4.17.21'),
      minimist: { specifier: '^1.2.6', version: '1.2.8' },
      typescript: reg('5.6.3', true),
    },
  );
  assert.equal(await check(dir), { rejected: [], warnings: [] });
});

test('the offline snapshot holds one record of each kind', () => {
  assert.is(snapshot.size, 4);
  assert.equal(
    snapshot.malware('npm-cli-docs').map((a) => a.id),
    ['MAL-2022-4933'],
  );
  assert.equal(
    snapshot.affecting('lodash', '4.17.20').map((a) => [a.id, a.severity]),
    [
      ['GHSA-29mw-wpgm-hmr9', 'MODERATE'],
      ['GHSA-35jh-r3h4-6jhm', 'HIGH'],
    ],
  );
  assert.equal(
    snapshot.affecting('minimist', '1.2.5').map((a) => [a.id, a.severity]),
    [['GHSA-xvch-5gv4-984h', 'CRITICAL']],
  );
});

test('UNSUPPORTED_SOURCE: no pnpm-lock.yaml', async () => {
  const dir = await project({ dependencies: { lodash: '4.17.21' } }, null);
  const { rejected, warnings } = await check(dir);
  assert.equal(
    rejected.map((r) => [r.reason, r.package, r.version]),
    [['UNSUPPORTED_SOURCE', 'shop', '1.0.0']],
  );
  assert.match(rejected[0].detail, 'pnpm-lock.yaml is missing');
  assert.equal(warnings, []);
});

test('UNSUPPORTED_SOURCE: a lockfile that no longer matches package.json', async () => {
  const dir = await project({ dependencies: { lodash: '^4.17.21', 'is-number': '7.0.0' } }, { lodash: reg('4.17.21') });
  const { rejected } = await check(dir);
  assert.equal(
    rejected.map((r) => [r.reason, r.package]),
    [['UNSUPPORTED_SOURCE', 'shop']],
  );
  assert.match(rejected[0].detail, 'pnpm-lock.yaml does not match package.json');
  assert.match(rejected[0].detail, 'is-number');
});

test('lockfiles written by the real pnpm (local sources only, so no registry is needed)', async () => {
  const pnpm = (dir: string) =>
    execa(join(import.meta.dirname, '../../node_modules/.bin/pnpm'), ['install', '--lockfile-only', '--ignore-scripts', '--offline'], { cwd: dir });
  const empty = await project({}, null);
  await pnpm(empty);
  assert.equal(await check(empty), { rejected: [], warnings: [] });
  await writeFile(join(empty, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', dependencies: { lodash: '4.17.21' } }));
  assert.equal(
    (await check(empty)).rejected.map((r) => [r.reason, r.package]),
    [['UNSUPPORTED_SOURCE', 'shop']],
  );

  const local = await project({ dependencies: { localdep: 'file:./localdep', linked: 'link:./localdep' } }, null, {
    'localdep/package.json': '{"name":"localdep","version":"1.0.0"}',
  });
  await pnpm(local);
  assert.equal(summary(await check(local)), { rejected: ['UNSUPPORTED_SOURCE linked@-', 'UNSUPPORTED_SOURCE localdep@-'], warnings: [] });
});

test('UNSUPPORTED_SOURCE: a broken lockfile or one of another format', async () => {
  const broken = await project({}, { lodash: reg('4.17.21') }, { 'pnpm-lock.yaml': 'lockfileVersion: [9\n  importers: {' });
  const [brokenRejection] = (await check(broken)).rejected;
  assert.equal([brokenRejection.reason, brokenRejection.package], ['UNSUPPORTED_SOURCE', 'shop']);
  assert.match(brokenRejection.detail, 'pnpm-lock.yaml cannot be read');

  const old = await project(
    {},
    { lodash: reg('4.17.21') },
    {
      'pnpm-lock.yaml':
        "lockfileVersion: '5.4'\nspecifiers:\n  lodash: 4.17.21\ndependencies:\n  lodash: 4.17.21\npackages:\n  /lodash/4.17.21:\n    resolution: {integrity: sha512-x}\n",
    },
  );
  const [oldRejection] = (await check(old)).rejected;
  assert.equal(oldRejection.reason, 'UNSUPPORTED_SOURCE');
  assert.match(oldRejection.detail, 'pnpm-lock.yaml cannot be read (a lockfile v9.0 from pnpm is needed)');
  assert.not.match(oldRejection.detail, old);
});

test('UNSUPPORTED_SOURCE: git, file, link and tarball-URL sources in specifiers and resolutions', async () => {
  const dir = await project(
    {},
    {
      'is-odd': {
        specifier: 'github:i-voted-for-trump/is-odd#3.0.1',
        version: 'https://codeload.github.com/i-voted-for-trump/is-odd/tar.gz/abc123',
        info: { resolution: { tarball: 'https://codeload.github.com/i-voted-for-trump/is-odd/tar.gz/abc123', gitHosted: true }, version: '3.0.1' },
      },
      'left-pad': {
        specifier: 'git+https://example.com/left-pad.git#v1.3.0',
        version: 'git+https://example.com/left-pad.git#abc123',
        info: { resolution: { type: 'git', repo: 'https://example.com/left-pad.git', commit: 'abc123' }, version: '1.3.0' },
      },
      localdep: { specifier: 'file:./localdep', version: 'file:localdep', info: { resolution: { directory: 'localdep', type: 'directory' } } },
      linked: { specifier: 'link:./localdep', version: 'link:localdep' },
      'is-number': {
        specifier: 'https://cdn.example.com/is-number-7.0.0.tgz',
        version: 'https://cdn.example.com/is-number-7.0.0.tgz',
        info: { resolution: { integrity: INTEGRITY, tarball: 'https://cdn.example.com/is-number-7.0.0.tgz' }, version: '7.0.0' },
      },
      lodash: reg('4.17.21'),
    },
    { 'localdep/package.json': '{"name":"localdep","version":"1.0.0"}' },
    {
      // A transitive dependency resolved from a tarball URL appears only in the packages section.
      'tiny@https://cdn.example.com/tiny-1.0.0.tgz': {
        resolution: { integrity: INTEGRITY, tarball: 'https://cdn.example.com/tiny-1.0.0.tgz' },
        version: '1.0.0',
      },
    },
  );
  const { rejected } = await check(dir);
  assert.equal(rejected.map((r) => [r.reason, r.package, r.version]).sort(), [
    ['UNSUPPORTED_SOURCE', 'is-number', null],
    ['UNSUPPORTED_SOURCE', 'is-odd', null],
    ['UNSUPPORTED_SOURCE', 'left-pad', null],
    ['UNSUPPORTED_SOURCE', 'linked', null],
    ['UNSUPPORTED_SOURCE', 'localdep', null],
    ['UNSUPPORTED_SOURCE', 'tiny', null],
  ]);
  const detail = (name: string) => rejected.find((r) => r.package === name)!.detail;
  assert.match(detail('is-odd'), 'git source "github:i-voted-for-trump/is-odd#3.0.1"');
  assert.match(detail('left-pad'), 'git source');
  assert.match(detail('localdep'), 'file source');
  assert.match(detail('linked'), 'link source');
  assert.match(detail('is-number'), 'tarball URL source');
  assert.match(detail('tiny'), 'tarball URL source (https://cdn.example.com/tiny-1.0.0.tgz)');
});

test('dev dependencies are outside the source rule (the build installs --prod), runtime ones and every locked package are not', async () => {
  // What a scaffold writes: the svc CLI as a linked dev dependency, written by the real pnpm.
  const linked = await project({ devDependencies: { '@svc-commerce/cli': 'link:./cli' } }, null, {
    'cli/package.json': '{"name":"@svc-commerce/cli","version":"0.1.0"}',
  });
  await execa(join(import.meta.dirname, '../../node_modules/.bin/pnpm'), ['install', '--lockfile-only', '--ignore-scripts', '--offline'], { cwd: linked });
  assert.match(await readFile(join(linked, 'pnpm-lock.yaml'), 'utf8'), 'version: link:cli');
  assert.equal(await check(linked), { rejected: [], warnings: [] });

  const mixed = await project(
    {},
    {
      '@svc-commerce/cli': { specifier: 'link:../svc', version: 'link:../svc', dev: true },
      // A dev dependency's locked package is still checked: its resolution is what an install would fetch.
      devtool: { specifier: 'file:./devtool', version: 'file:devtool', dev: true, info: { resolution: { directory: 'devtool', type: 'directory' } } },
      localdep: { specifier: 'file:./localdep', version: 'file:localdep', info: { resolution: { directory: 'localdep', type: 'directory' } } },
      linked: { specifier: 'link:./localdep', version: 'link:localdep' },
    },
  );
  assert.equal(summary(await check(mixed)).rejected.sort(), ['UNSUPPORTED_SOURCE devtool@-', 'UNSUPPORTED_SOURCE linked@-', 'UNSUPPORTED_SOURCE localdep@-']);
});

test('INVALID_MANIFEST: unparsable, malformed or missing package.json', async () => {
  const unparsable = await project('{ "name": "shop", ', { lodash: reg('4.17.21') });
  const [first] = (await check(unparsable)).rejected;
  assert.equal([first.reason, first.version, first.advisory], ['INVALID_MANIFEST', null, null]);
  assert.match(first.detail, 'package.json is not valid JSON');

  const malformed = await project(JSON.stringify({ name: 'shop', dependencies: ['lodash'] }), { lodash: reg('4.17.21') });
  const report = await check(malformed);
  assert.equal(
    report.rejected.map((r) => r.reason),
    ['INVALID_MANIFEST'],
  );
  assert.match(report.rejected[0].detail, 'package.json is malformed at dependencies');

  const missing = await project('{}', null);
  await rm(join(missing, 'package.json'));
  assert.equal(
    (await check(missing)).rejected.map((r) => [r.reason, r.detail]),
    [['INVALID_MANIFEST', 'package.json is missing']],
  );
});

test('ADVISORY: high and critical on the locked version refuse, moderate warns, fixed versions pass', async () => {
  const dir = await project(
    {},
    { lodash: reg('4.17.20'), minimist: reg('1.2.5'), 'is-number': reg('7.0.0') },
    {},
    {
      'minimist@0.2.4': {},
      'minimist@0.1.0': {},
    },
  );
  const report = await check(dir);
  assert.equal(summary(report), {
    rejected: ['ADVISORY lodash@4.17.20 GHSA-35jh-r3h4-6jhm', 'ADVISORY minimist@0.1.0 GHSA-xvch-5gv4-984h', 'ADVISORY minimist@1.2.5 GHSA-xvch-5gv4-984h'],
    warnings: ['ADVISORY lodash@4.17.20 GHSA-29mw-wpgm-hmr9'],
  });
  assert.match(report.rejected[0].detail, 'high severity: GHSA-35jh-r3h4-6jhm (Command Injection in lodash)');
  assert.match(report.rejected[1].detail, 'critical severity');
  assert.match(report.warnings[0].detail, 'moderate severity');
});

test('MALWARE: any malware record refuses the package in every version', async () => {
  const dir = await project({}, { 'npm-cli-docs': reg('99.0.0'), lodash: reg('4.17.21') });
  const { rejected } = await check(dir);
  assert.equal(
    rejected.map((r) => [r.reason, r.package, r.version, r.advisory]),
    [['MALWARE', 'npm-cli-docs', '99.0.0', 'MAL-2022-4933']],
  );
  assert.match(rejected[0].detail, 'every version of npm-cli-docs is refused');

  // A malware record that lists one version still refuses the others.
  const index = new AdvisoryIndex();
  index.add({
    id: 'MAL-2025-0001',
    summary: 'Malicious code in hijacked (npm)',
    affected: [{ package: { ecosystem: 'npm', name: 'hijacked' }, versions: ['2.0.1'] }],
  });
  const other = await project({}, { hijacked: reg('1.0.0') });
  assert.equal(
    (await check(other, [], index)).rejected.map((r) => [r.reason, r.advisory]),
    [['MALWARE', 'MAL-2025-0001']],
  );
});

test('DENYLISTED: names and whole scopes, peer-suffixed snapshots included', async () => {
  const dir = await project(
    {},
    {
      'left-pad': reg('1.3.0'),
      '@evil/widget': { specifier: '1.0.0', version: '1.0.0(react@18.3.1)' },
      react: reg('18.3.1'),
      '@good/widget': reg('1.0.0'),
    },
  );
  const { rejected } = await check(dir, ['left-pad', '@evil/*']);
  assert.equal(
    rejected.map((r) => [r.reason, r.package, r.version]),
    [
      ['DENYLISTED', '@evil/widget', '1.0.0'],
      ['DENYLISTED', 'left-pad', '1.3.0'],
    ],
  );
  assert.match(rejected[0].detail, "on the service's denylist");
});

test('INSTALL_SCRIPT warns for the project and for locked packages that build, never refuses', async () => {
  const dir = await project(
    { scripts: { build: 'vite build', postinstall: 'node setup.js', prepare: 'husky' } },
    {
      esbuild: { ...reg('0.24.0'), info: { hasInstallScript: true } },
      'node-sass': { ...reg('9.0.0'), info: { requiresBuild: true } },
      lodash: reg('4.17.21'),
    },
  );
  const report = await check(dir);
  assert.equal(report.rejected, []);
  assert.equal(summary(report).warnings, ['INSTALL_SCRIPT shop@1.0.0', 'INSTALL_SCRIPT esbuild@0.24.0', 'INSTALL_SCRIPT node-sass@9.0.0']);
  assert.match(report.warnings[0].detail, 'install scripts (postinstall, prepare) are never run');
});

test('INSTALL_CONFIG warns for .npmrc, pnpm-workspace.yaml, a pnpmfile and the "pnpm" field', async () => {
  const dir = await project(
    { pnpm: { overrides: { lodash: '4.17.21' } } },
    { lodash: reg('4.17.21') },
    {
      '.npmrc': 'registry=https://registry.example.com/\n',
      'pnpm-workspace.yaml': 'onlyBuiltDependencies: [esbuild]\n',
      '.pnpmfile.cjs': 'module.exports = { hooks: {} };\n',
    },
  );
  const report = await check(dir);
  assert.equal(report.rejected, []);
  assert.equal(
    report.warnings.map((w) => [w.reason, w.package]),
    Array(4).fill(['INSTALL_CONFIG', 'shop']),
  );
  assert.equal(
    report.warnings.map((w) => w.detail.split(';')[0]),
    ['the project has a .npmrc', 'the project has a pnpm-workspace.yaml', 'the project has a .pnpmfile.cjs', 'package.json has a "pnpm" field'],
  );
});

test('BUNDLED_DEPENDENCIES warns for the project and for locked packages that bundle', async () => {
  const dir = await project(
    { bundledDependencies: ['lodash'] },
    { lodash: reg('4.17.21'), npm: { ...reg('10.9.0'), info: { bundledDependencies: ['abbrev', 'semver'] } } },
  );
  const report = await check(dir);
  assert.equal(report.rejected, []);
  assert.equal(summary(report).warnings, ['BUNDLED_DEPENDENCIES shop@1.0.0', 'BUNDLED_DEPENDENCIES npm@10.9.0']);
  assert.match(report.warnings[0].detail, 'bundled dependencies (lodash)');
});

test('a project can collect refusals and warnings of several reasons at once', async () => {
  const dir = await project(
    { scripts: { install: 'node-gyp rebuild' } },
    {
      lodash: reg('4.17.20'),
      'npm-cli-docs': reg('1.0.0'),
      'left-pad': reg('1.3.0'),
      localdep: { specifier: 'file:./localdep', version: 'file:localdep', info: { resolution: { directory: 'localdep', type: 'directory' } } },
    },
    { '.npmrc': 'ignore-scripts=false\n' },
  );
  assert.equal(summary(await check(dir, ['left-pad'])), {
    rejected: [
      'UNSUPPORTED_SOURCE localdep@-',
      'DENYLISTED left-pad@1.3.0',
      'ADVISORY lodash@4.17.20 GHSA-35jh-r3h4-6jhm',
      'MALWARE npm-cli-docs@1.0.0 MAL-2022-4933',
    ],
    warnings: ['INSTALL_CONFIG shop@1.0.0', 'INSTALL_SCRIPT shop@1.0.0', 'ADVISORY lodash@4.17.20 GHSA-29mw-wpgm-hmr9'],
  });
});

test('OSV ranges: introduced/fixed, last_affected, explicit versions, several ranges; other ecosystems and withdrawn records ignored', () => {
  const index = new AdvisoryIndex();
  const record = (id: string, affected: unknown[], extra: Record<string, unknown> = {}) =>
    index.add({ id, affected, database_specific: { severity: 'HIGH' }, ...extra });
  record('GHSA-aaaa-0001', [
    {
      package: { ecosystem: 'npm', name: 'pkg' },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '2.0.0' }, { fixed: '2.3.1' }, { introduced: '3.0.0-beta.1' }, { last_affected: '3.1.0' }] }],
    },
  ]);
  record('GHSA-aaaa-0002', [{ package: { ecosystem: 'npm', name: 'pkg' }, versions: ['1.0.5'] }]);
  // Events out of order are sorted before they are applied.
  record('GHSA-aaaa-0003', [
    { package: { ecosystem: 'npm', name: 'other' }, ranges: [{ type: 'ECOSYSTEM', events: [{ fixed: '1.4.0' }, { introduced: '0' }] }] },
  ]);
  record('GHSA-aaaa-0004', [{ package: { ecosystem: 'PyPI', name: 'pkg' }, versions: ['1.0.0'] }]);
  record('GHSA-aaaa-0005', [{ package: { ecosystem: 'npm', name: 'pkg' }, versions: ['1.0.0'] }], { withdrawn: '2024-01-01T00:00:00Z' });
  record('GHSA-aaaa-0006', [
    { package: { ecosystem: 'npm', name: 'pkg' }, ranges: [{ type: 'GIT', repo: 'https://example.com/pkg', events: [{ introduced: '0' }] }] },
  ]);
  index.add({ id: 'broken', affected: 'everything' });
  const ids = (name: string, version: string) => index.affecting(name, version).map((a) => a.id);
  assert.is(index.size, 4);
  assert.equal(ids('pkg', '1.9.9'), []);
  assert.equal(ids('pkg', '2.0.0'), ['GHSA-aaaa-0001']);
  assert.equal(ids('pkg', '2.3.0'), ['GHSA-aaaa-0001']);
  assert.equal(ids('pkg', '2.3.1'), []);
  assert.equal(ids('pkg', '3.0.0-beta.1'), ['GHSA-aaaa-0001']);
  assert.equal(ids('pkg', '3.1.0'), ['GHSA-aaaa-0001']);
  assert.equal(ids('pkg', '3.1.1'), []);
  assert.equal(ids('pkg', '1.0.5'), ['GHSA-aaaa-0002']);
  assert.equal(ids('pkg', '1.0.0'), []);
  assert.equal(ids('other', '1.3.9'), ['GHSA-aaaa-0003']);
  assert.equal(ids('other', '1.4.0'), []);
});

test('severity: GitHub label first, else the CVSS v3 base score; aliases reported once', async () => {
  assert.is(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), 9.8);
  assert.is(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H'), 7.2);
  assert.is(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N'), 6.1);
  assert.is(cvss3BaseScore('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H'), 10);
  assert.is(cvss3BaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'), 0);
  assert.is(cvss3BaseScore('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N'), null);

  const index = new AdvisoryIndex();
  const affected = [{ package: { ecosystem: 'npm', name: 'pkg' }, versions: ['1.0.0'] }];
  index.add({ id: 'GHSA-cvss-crit', severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }], affected });
  index.add({ id: 'GHSA-cvss-mod', severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:L' }], affected });
  index.add({ id: 'GHSA-cvss-low', severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N' }], affected });
  index.add({
    id: 'GHSA-label-wins',
    database_specific: { severity: 'MEDIUM' },
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected,
  });
  index.add({ id: 'GHSA-v4-only', severity: [{ type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' }], affected });
  index.add({ id: 'GHSA-dupe-of-crit', aliases: ['CVE-2024-0001'], database_specific: { severity: 'HIGH' }, affected });
  index.add({ id: 'CVE-2024-0001', aliases: ['GHSA-dupe-of-crit'], database_specific: { severity: 'HIGH' }, affected });
  assert.equal(
    index.affecting('pkg', '1.0.0').map((a) => [a.id, a.severity]),
    [
      ['GHSA-cvss-crit', 'CRITICAL'],
      ['GHSA-cvss-mod', 'MODERATE'],
      ['GHSA-cvss-low', 'LOW'],
      ['GHSA-label-wins', 'MODERATE'],
      ['GHSA-v4-only', 'UNKNOWN'],
      ['GHSA-dupe-of-crit', 'HIGH'],
      ['CVE-2024-0001', 'HIGH'],
    ],
  );

  const dir = await project({}, { pkg: reg('1.0.0') });
  const report = await check(dir, [], index);
  assert.equal(summary(report), {
    rejected: ['ADVISORY pkg@1.0.0 GHSA-cvss-crit', 'ADVISORY pkg@1.0.0 GHSA-dupe-of-crit'],
    warnings: ['ADVISORY pkg@1.0.0 GHSA-cvss-mod', 'ADVISORY pkg@1.0.0 GHSA-label-wins', 'ADVISORY pkg@1.0.0 GHSA-v4-only'],
  });
  assert.match(report.warnings[2].detail, 'severity not rated');
});

/** A zip archive as OSV exports it: deflated members (and one stored), optionally with ZIP64 end records. */
function zipOf(files: [string, string][], zip64: boolean): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  files.forEach(([name, content], i) => {
    const data = Buffer.from(content);
    const method = i === 0 ? 0 : 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(method, 10);
    entry.writeUInt32LE(crc32(data), 16);
    entry.writeUInt32LE(body.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, body);
    central.push(entry, nameBytes);
    offset += local.length + nameBytes.length + body.length;
  });
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  if (!zip64) {
    end.writeUInt16LE(files.length, 8);
    end.writeUInt16LE(files.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    return Buffer.concat([...locals, directory, end]);
  }
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(files.length), 24);
  record.writeBigUInt64LE(BigInt(files.length), 32);
  record.writeBigUInt64LE(BigInt(directory.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
  locator.writeUInt32LE(1, 16);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...locals, directory, record, locator, end]);
}

async function snapshotZip(zip64: boolean): Promise<Buffer> {
  const names = (await readdir(advisorySnapshotDir)).sort();
  const members = await Promise.all(names.map(async (name): Promise<[string, string]> => [name, await readFile(join(advisorySnapshotDir, name), 'utf8')]));
  // OSV's export also holds records of no interest here; a non-JSON member is skipped.
  return zipOf(
    [
      ...members,
      ['PYSEC-2024-1.json', JSON.stringify({ id: 'PYSEC-2024-1', affected: [{ package: { ecosystem: 'PyPI', name: 'x' }, versions: ['1'] }] })],
      ['README.txt', 'not a record'],
    ],
    zip64,
  );
}

const sameAsSnapshot = (index: AdvisoryIndex) => {
  assert.is(index.size, snapshot.size);
  assert.equal(index.malware('npm-cli-docs'), snapshot.malware('npm-cli-docs'));
  assert.equal(index.affecting('lodash', '4.17.20'), snapshot.affecting('lodash', '4.17.20'));
  assert.equal(index.affecting('minimist', '0.2.3'), snapshot.affecting('minimist', '0.2.3'));
};

test('zip source: an archive like OSV npm/all.zip, with and without ZIP64 end records', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-advisories-'));
  temps.push(dir);
  for (const zip64 of [false, true]) {
    const path = join(dir, `all-${zip64}.zip`);
    await writeFile(path, await snapshotZip(zip64));
    sameAsSnapshot(await loadAdvisories(path));
  }
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

test('URL source: the zip fetched over http', async () => {
  const zip = await snapshotZip(true);
  const { server, url } = await serve((req, res) => {
    if (req.url === '/npm/all.zip') res.writeHead(200, { 'content-type': 'application/zip' }).end(zip);
    else res.writeHead(404).end();
  });
  try {
    sameAsSnapshot(await loadAdvisories(`${url}/npm/all.zip`));
  } finally {
    server.close();
  }
});

test('AdvisorySourceUnavailable: missing folder or file, closed port, HTTP error, damaged archive', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-advisories-'));
  temps.push(dir);
  const damaged = join(dir, 'damaged.zip');
  await writeFile(damaged, (await snapshotZip(false)).subarray(0, 200));
  const mangled = join(dir, 'mangled.zip');
  const whole = await snapshotZip(false);
  // The central directory is intact but points at a member that is not there.
  await writeFile(mangled, Buffer.concat([Buffer.alloc(4), whole.subarray(4)]));

  const { server, url } = await serve((_req, res) => res.writeHead(503).end('down'));
  const closed = await serve((_req, res) => res.end());
  await new Promise((resolve) => closed.server.close(resolve));
  try {
    const cases: [string, string][] = [
      [join(dir, 'nowhere'), 'ENOENT'],
      [join(dir, 'nowhere.zip'), 'ENOENT'],
      [`${closed.url}/npm/all.zip`, 'fetch failed'],
      [`${url}/npm/all.zip`, 'HTTP 503'],
      [damaged, 'not a readable zip archive'],
      [mangled, 'not a readable zip archive'],
    ];
    for (const [source, why] of cases) {
      try {
        await loadAdvisories(source);
        assert.unreachable(`${source} loaded`);
      } catch (err) {
        assert.instance(err, AdvisorySourceUnavailable, source);
        assert.is((err as AdvisorySourceUnavailable).source, source);
        assert.match((err as Error).message, why);
      }
    }
  } finally {
    server.close();
  }
});

test.after(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

test.run();
