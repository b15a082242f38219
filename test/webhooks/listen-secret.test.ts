/**
 * `svc webhooks listen` keeps one signing secret per profile and store across starts (like `stripe listen`),
 * so a receiver configured with it keeps verifying after a restart; `--print-secret` prints it and exits,
 * and the `--json` ready line carries it.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliEnv, packageRoot, runCli } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  configDir = mkdtempSync(join(tmpdir(), 'svc-listen-secret-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const env = (store = svc.storeId) => ({ SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: store });

/** Starts `listen --json`, returns its first line (the ready line) and stops it. */
async function readyLine(): Promise<Record<string, unknown>> {
  const listen = execa(process.execPath, ['bin/run.js', 'webhooks', 'listen', '--json'], {
    cwd: packageRoot,
    env: cliEnv(env()),
    extendEnv: false,
    reject: false,
  });
  let out = '';
  try {
    const line = await new Promise<string>((resolve, reject) => {
      listen.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      void listen.then((r) => reject(new Error(`listen exited: ${r.stdout} ${r.stderr}`)));
      setTimeout(() => reject(new Error(`no ready line: ${out}`)), 15_000).unref();
    });
    return JSON.parse(line);
  } finally {
    listen.kill('SIGINT');
    await listen;
  }
}

test('two starts of listen sign with the same secret, shown in the --json ready line', async () => {
  const first = await readyLine();
  assert.is(first.event, 'ready');
  assert.is(first.storeId, svc.storeId);
  assert.match(String(first.secret), /^whsec_[\w-]+$/);
  const second = await readyLine();
  assert.is(second.secret, first.secret);
  assert.is(statSync(join(configDir, 'listen-secrets.json')).mode & 0o777, 0o600, 'kept private, like the credentials');
});

test('--print-secret prints the secret and exits; another store has its own', async () => {
  const printed = await runCli(['webhooks', 'listen', '--print-secret'], env());
  assert.is(printed.exitCode, 0, printed.stderr);
  assert.is(printed.stdout.trim(), (await readyLine()).secret);
  const json = await runCli(['webhooks', 'listen', '--print-secret', '--json'], env());
  assert.equal(JSON.parse(json.stdout), { secret: printed.stdout.trim() });

  const other = await svc.api('POST', '/auth/v1/stores', { body: { name: 'Other Store', code: 'other-store' } });
  assert.is(other.status, 201, JSON.stringify(other.body));
  const otherSecret = await runCli(['webhooks', 'listen', '--print-secret'], env(other.data.storeId));
  assert.is(otherSecret.exitCode, 0, otherSecret.stderr);
  assert.match(otherSecret.stdout.trim(), /^whsec_[\w-]+$/, otherSecret.stdout + otherSecret.stderr);
  assert.is.not(otherSecret.stdout.trim(), printed.stdout.trim());
});

test.run();
