/**
 * How the CLI's lines look (issue 32): ✓ and ✗ are green and red at a terminal, plain for NO_COLOR, --json
 * and pipes; an API error prints its code, the service's message and what to do next.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv, packageRoot, runCli } from '../helpers/cli.js';
import { createAccessToken, login, startTestService, type TestService } from '../helpers/service.js';

const ESC = '\u001b[';
const GREEN_CHECK = `${ESC}32m✓${ESC}39m`;
const RED_CROSS = `${ESC}31m✗${ESC}39m`;

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-output-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const secret = 'whsec_output';
const body = '{"ok":true}';
const now = Math.floor(Date.now() / 1000);
const valid = [
  'webhooks',
  'verify',
  '--secret',
  secret,
  '--header',
  `t=${now},v1=${createHmac('sha256', secret).update(`${now}.${body}`).digest('hex')}`,
  '--body',
  body,
];
const invalid = ['webhooks', 'verify', '--secret', secret, '--header', `t=${now},v1=${'0'.repeat(64)}`, '--body', body];

/** Runs the CLI with a terminal (script(1)), as in a person's shell; `vars` replace the environment's colour settings. */
async function atTerminal(args: string[], vars: Record<string, string> = {}) {
  const env = cliEnv(vars);
  // A person's shell: no NO_COLOR or FORCE_COLOR, and no CI (Node takes a bare CI=1 for a log without colours).
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  delete env.CI;
  Object.assign(env, { TERM: 'xterm-256color' }, vars);
  const quoted = args.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const r = await execa('script', ['-qec', `node bin/run.js ${quoted}`, '/dev/null'], {
    cwd: packageRoot,
    env,
    extendEnv: false,
    reject: false,
    timeout: 30_000,
  });
  return String(r.stdout);
}

test('✓ and ✗ are green and red at a terminal', async () => {
  assert.match(await atTerminal(valid), GREEN_CHECK);
  assert.match(await atTerminal(invalid), RED_CROSS);
});

test('no colour with NO_COLOR, with --json, or into a pipe', async () => {
  assert.not.match(await atTerminal(valid, { NO_COLOR: '1' }), ESC);
  assert.not.match(await atTerminal(invalid, { NO_COLOR: '1' }), ESC);
  assert.not.match(await atTerminal([...valid, '--json']), ESC);
  const env = cliEnv({});
  delete env.NO_COLOR;
  const piped = await execa(process.execPath, ['bin/run.js', ...valid], { cwd: packageRoot, env, extendEnv: false, reject: false });
  assert.match(String(piped.stdout), '✓ valid');
  assert.not.match(String(piped.stdout), ESC);
});

test("an API error prints its code, the service's message and what to do next", async () => {
  const owner = await login(svc);
  const readOnly = await createAccessToken(svc, owner, { scopes: ['store:r'] });
  const r = await runCli(['api', 'PATCH', '/v1/store', '--store', svc.storeId, '--data', '{"name":"x"}'], {
    SVC_CONFIG_DIR: configDir,
    SVC_API_URL: svc.url,
    SVC_TOKEN: readOnly,
  });
  assert.is(r.exitCode, 1);
  const [first, ...rest] = r.stderr.trim().split('\n');
  assert.match(first, /^✗ INSUFFICIENT_ROLE: \S/);
  assert.match(rest.join('\n'), /next: .*store:rw.*svc tokens create/);
});

test.run();
