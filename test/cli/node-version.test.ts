/**
 * The first thing a newcomer on an older Node sees (issue 32): `svc` on Node below 24 prints one line that
 * says what to do and exits 1 before oclif loads; `npm ci` refuses early on it (engine-strict) and still
 * installs on Node 24 (no dependency's `engines` excludes it).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../helpers/cli.js';

/** A Node older than 24 on this machine (the system's), or undefined where there is none. */
async function olderNode(): Promise<string | undefined> {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    if (!existsSync(candidate)) continue;
    const r = await execa(candidate, ['-p', 'process.versions.node'], { reject: false });
    if (r.exitCode === 0 && Number(String(r.stdout).split('.')[0]) < 24) return candidate;
  }
  return undefined;
}

/** A folder holding only what `npm ci` reads: the manifests, the lockfile and `.npmrc`. */
function installFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-npm-ci-'));
  const lock = JSON.parse(readFileSync(join(packageRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { link?: boolean }> };
  const local = Object.keys(lock.packages).filter((key) => key !== '' && !key.includes('node_modules/'));
  for (const file of ['package.json', 'package-lock.json', '.npmrc', ...local.map((folder) => join(folder, 'package.json'))]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(join(packageRoot, file), join(dir, file));
  }
  return dir;
}

test('svc on Node below 24 prints one line saying what to do and exits 1', async () => {
  const node = await olderNode();
  if (!node) return console.log('  (skipped: no Node older than 24 on this machine)');
  const version = (await execa(node, ['-p', 'process.versions.node'])).stdout;
  const r = await execa(node, ['bin/run.js', '--help'], { cwd: packageRoot, reject: false, env: { PATH: dirname(node) } });
  assert.is(r.exitCode, 1);
  assert.is(r.stdout, '');
  assert.is(r.stderr, `svc needs Node.js 24 or newer (this is ${version}). Install it: https://nodejs.org or \`nvm install 24\``);
});

test('the project pins Node 24 for version managers', () => {
  for (const file of ['.nvmrc', '.node-version']) assert.is(readFileSync(join(packageRoot, file), 'utf8').trim(), '24');
  assert.match(readFileSync(join(packageRoot, '.npmrc'), 'utf8'), /^engine-strict=true$/m);
});

test('npm ci refuses on Node below 24 before installing anything', async () => {
  const node = await olderNode();
  if (!node) return console.log('  (skipped: no Node older than 24 on this machine)');
  const dir = installFolder();
  try {
    const npm = join(dirname(node), 'npm');
    const r = await execa(node, [npm, 'ci', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      reject: false,
      env: { PATH: dirname(node), HOME: dir },
    });
    assert.is.not(r.exitCode, 0);
    assert.match(r.stderr, 'EBADENGINE');
    assert.not.ok(existsSync(join(dir, 'node_modules')), 'nothing installed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('engine-strict keeps npm ci working on Node 24: no locked package excludes it', async () => {
  const dir = installFolder();
  try {
    // A dry run plans the whole tree from the lockfile, checking every package's engines, and writes nothing.
    const r = await execa('npm', ['ci', '--dry-run', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: dir, reject: false });
    assert.is(r.exitCode, 0, r.stderr);
    assert.not.match(r.stderr, 'EBADENGINE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
