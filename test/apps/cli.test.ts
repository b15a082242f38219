/**
 * The app author's path with the compiled CLI (`node bin/run.js app …`, as `npm test` builds it) against
 * an in-process service: init → build → deploy → install → tools call, then dev's rebuild loop.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startTestService, type TestService } from '../helpers/service.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'run.js');
let svc: TestService;
let work: string;

test.before(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'svc-app-cli-'));
});
test.after(async () => {
  await svc.close();
  rmSync(work, { recursive: true, force: true });
});

const env = () => ({ SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_CONFIG_DIR: join(work, '.config'), CI: '1', NO_COLOR: '1' });
const svcCli = (args: string[], cwd = join(work, 'demo')) => execa('node', [bin, ...args], { cwd, env: env(), reject: false });

test('init, build, deploy, install, then tools call returns the tool result', async () => {
  const init = await svcCli(['app', 'init', 'demo'], work);
  assert.is(init.exitCode, 0, init.stderr);
  const manifest = JSON.parse(readFileSync(join(work, 'demo', 'manifest.json'), 'utf8'));
  assert.is(manifest.handle, 'demo');
  assert.ok(existsSync(join(work, 'demo', manifest.$schema)), 'the $schema path reaches the shipped JSON Schema');
  assert.ok(existsSync(join(work, 'demo', '.gitignore')));
  // The app carries this CLI as a dev dependency npm links (file:), already linked, with npm scripts.
  const pkg = JSON.parse(readFileSync(join(work, 'demo', 'package.json'), 'utf8'));
  assert.equal(pkg.devDependencies, { '@svc-commerce/cli': `file:${relative(realpathSync(join(work, 'demo')), realpathSync(root))}` });
  assert.equal(pkg.scripts, { build: 'svc app build', deploy: 'svc app deploy', dev: 'svc app dev' });
  assert.is(realpathSync(join(work, 'demo', 'node_modules', '.bin', 'svc')), realpathSync(bin));

  const build = await execa('npm', ['run', '--silent', 'build', '--', '--json'], { cwd: join(work, 'demo'), env: env(), reject: false });
  assert.is(build.exitCode, 0, build.stderr);
  assert.equal(JSON.parse(build.stdout).functions, ['tools/greet', 'tools/store-name']);
  assert.ok(existsSync(join(work, 'demo', 'dist', 'app.js.map')));

  const deploy = await svcCli(['app', 'deploy', '--json']);
  assert.is(deploy.exitCode, 0, deploy.stderr);
  assert.is(JSON.parse(deploy.stdout).version, 1);

  const install = await svcCli(['app', 'install', '--json']);
  assert.is(install.exitCode, 0, install.stderr);
  assert.equal(JSON.parse(install.stdout).permissions.scopes, ['store:r']);

  const call = await svcCli(['app', 'tools', 'call', 'greet', '--input', '{"name":"민지"}', '--json']);
  assert.is(call.exitCode, 0, call.stderr);
  assert.equal(JSON.parse(call.stdout), { message: '안녕하세요, 민지!', times: 1 });
  const viaApi = await svcCli(['app', 'tools', 'call', 'store-name', '--json']);
  assert.equal(JSON.parse(viaApi.stdout), { name: 'Dev Store', code: 'dev-store' });

  const settings = await svcCli(['app', 'settings', '--set', 'greeting=반가워요', '--json']);
  assert.is(settings.exitCode, 0, settings.stderr);
  assert.equal(JSON.parse(settings.stdout), { greeting: '반가워요' });
  const again = await svcCli(['app', 'tools', 'call', 'greet', '--input', '{"name":"민지"}', '--json']);
  assert.equal(JSON.parse(again.stdout), { message: '반가워요, 민지!', times: 2 });

  const bad = await svcCli(['app', 'tools', 'call', 'greet', '--input', '{}']);
  assert.is(bad.exitCode, 1);
  assert.match(bad.stderr, 'APP_TOOL_INPUT_INVALID');
  assert.match(bad.stderr, 'input.name');

  const logs = await svcCli(['app', 'logs', '--json']);
  assert.is(logs.exitCode, 0, logs.stderr);
  const runs = JSON.parse(logs.stdout);
  assert.equal(Object.keys(runs).sort(), ['contents', 'nextCursor'], 'a cursor list like every other --json list');
  assert.ok(runs.contents.some((x: any) => x.name === 'greet' && x.logs.some((l: string) => l.includes('greeted 민지'))));
});

test('build errors name the key path or the missing function; exit 1', async () => {
  const file = join(work, 'demo', 'manifest.json');
  const good = readFileSync(file, 'utf8');
  const m = JSON.parse(good);
  m.mcp.tools.greet.description = 'x'.repeat(501);
  writeFileSync(file, JSON.stringify(m));
  const invalid = await svcCli(['app', 'build']);
  assert.is(invalid.exitCode, 1);
  assert.match(invalid.stderr, 'MANIFEST_INVALID');
  assert.match(invalid.stderr, 'mcp.tools.greet.description');
  const json = await svcCli(['app', 'build', '--json']);
  assert.equal(
    JSON.parse(json.stdout).issues.map((i: any) => [i.field, i.code]),
    [['mcp.tools.greet.description', 'TOO_LONG']],
  );

  m.mcp.tools.greet.description = 'ok';
  m.mcp.tools.farewell = { description: 'Not written yet' };
  writeFileSync(file, JSON.stringify(m));
  const missing = await svcCli(['app', 'build']);
  assert.is(missing.exitCode, 1);
  assert.match(missing.stderr, 'HANDLER_MISSING');
  assert.match(missing.stderr, 'src/tools/farewell.ts');
  writeFileSync(file, good);
});

test('the legacy svc.app.json is read with a warning when manifest.json is absent', async () => {
  const dir = join(work, 'demo');
  renameSync(join(dir, 'manifest.json'), join(dir, 'svc.app.json'));
  try {
    const build = await svcCli(['app', 'build']);
    assert.is(build.exitCode, 0, build.stderr);
    assert.match(build.stderr, 'legacy');
  } finally {
    renameSync(join(dir, 'svc.app.json'), join(dir, 'manifest.json'));
  }
});

test('usage errors exit 2', async () => {
  assert.is((await svcCli(['app', 'init', 'Bad_Name'], work)).exitCode, 2);
  assert.is((await svcCli(['app', 'init', 'demo'], work)).exitCode, 2, 'an existing folder is not overwritten');
  assert.is((await svcCli(['app', 'tools', 'call', 'greet', '--input', '{oops'])).exitCode, 2);
});

/**
 * `svc app dev` in `dir`, with its output collected from the start (output arriving between two waits must not
 * be lost): `seen(stream, pattern, from)` waits for the first match after offset `from` of that stream.
 */
function startAppDev(dir: string) {
  const dev = execa('node', [bin, 'app', 'dev'], { cwd: dir, env: env(), reject: false });
  const out = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const)
    dev[stream]!.on('data', (chunk: Buffer) => {
      out[stream] += chunk.toString();
      for (const w of waiters) w();
    });
  const seen = (stream: 'stdout' | 'stderr', pattern: RegExp, from = 0, timeoutMs = 15_000) =>
    new Promise<{ match: RegExpExecArray; end: number }>((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(out[stream].slice(from));
        if (!m) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve({ match: m, end: from + m.index + m[0].length });
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${pattern} on ${stream}; output:\n${out.stdout}\nstderr:\n${out.stderr}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const stop = async () => {
    dev.kill('SIGINT');
    await dev;
  };
  return { seen, stop, out };
}

const CYCLE = /↻ demo v(\d+) installed .* in (\d+) ms/;

test('app dev: a save is rebuilt, deployed and installed, and the new version answers', async () => {
  const dir = join(work, 'demo');
  const dev = startAppDev(dir);
  try {
    const watching = await dev.seen('stdout', /Watching/);
    appendFileSync(join(dir, 'src', 'tools', 'greet.ts'), '\n// touched\n');
    const cycle = await dev.seen('stdout', CYCLE, watching.end);
    // Timings are measured by the benchmarks, never asserted in tests (DESIGN.md §5).
    console.log(`app dev cycle (rebuild + deploy + install): ${cycle.match[2]} ms`);
    const call = await svcCli(['app', 'tools', 'call', 'greet', '--input', '{"name":"dev"}', '--json']);
    assert.is(call.exitCode, 0, call.stderr);
    await dev.seen('stdout', /tool greet {2}SUCCEEDED/, cycle.end);
  } finally {
    await dev.stop();
  }
});

test('app dev follows a file saved by rename (vim, sed -i, atomic-save editors), save after save', async () => {
  const dir = join(work, 'demo');
  const file = join(dir, 'src', 'tools', 'greet.ts');
  const original = readFileSync(file, 'utf8');
  /** Saves as those editors do: the new text goes to a temporary file beside it, renamed over the file. */
  const saveByRename = (text: string) => {
    const temporary = join(dir, 'src', 'tools', '.greet.ts.swp');
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  };
  const greeting = (word: string) => original.replace(/const message = .*;/, `const message = \`${word}, \${input.name}!\`;`);
  const dev = startAppDev(dir);
  try {
    let from = (await dev.seen('stdout', /Watching/)).end;
    for (const word of ['first', 'second']) {
      saveByRename(greeting(word));
      // The temporary file may start a cycle of its own before the rename: wait for the one that has the change.
      let answer = '';
      while (!answer.includes(word)) {
        from = (await dev.seen('stdout', CYCLE, from)).end;
        answer = (await svcCli(['app', 'tools', 'call', 'greet', '--input', '{"name":"dev"}', '--json'])).stdout;
      }
    }
    saveByRename('export default async function greet( {\n');
    const failed = await dev.seen('stderr', /✗ BUILD_FAILED/);
    assert.ok(failed, 'a broken save prints the build error');
  } finally {
    await dev.stop();
    writeFileSync(file, original);
  }
});

test('app deploy of a runtime "external" app uploads its manifest and external URL; nothing is built', async () => {
  assert.is((await svcCli(['app', 'init', 'ext-demo'], work)).exitCode, 0);
  const dir = join(work, 'ext-demo');
  const file = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, JSON.stringify({ ...manifest, runtime: 'external', external: { url: 'https://apps.example.com/svc' } }));
  const deploy = await svcCli(['app', 'deploy', '--json'], dir);
  assert.is(deploy.exitCode, 0, deploy.stdout + deploy.stderr);
  const result = JSON.parse(deploy.stdout);
  assert.equal([result.handle, result.version, result.runtime, result.externalUrl], ['ext-demo', 1, 'external', 'https://apps.example.com/svc']);
  assert.not.ok(existsSync(join(dir, 'dist')), 'no bundle was built');
  const apps = await svc.api('GET', '/v1/developer/apps', { query: { handle: 'ext-demo' } });
  const app = apps.data.contents[0];
  assert.is(app.appId, result.appId);
  const install = await svcCli(['app', 'install', '--json'], dir);
  assert.is(install.exitCode, 0, install.stdout + install.stderr);
  assert.is(JSON.parse(install.stdout).externalHost, 'apps.example.com', 'the installation runs at the external host');
});

test.run();
