/**
 * svc serve without bubblewrap: seller code is refused, not run unsandboxed — site creation (its first
 * build), a new version's build and checks answer 503 SELLER_SANDBOX_UNAVAILABLE and the start banner says
 * why; the operator's explicit SVC_SELLER_SANDBOX=off runs them, and the banner says that too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails } from '../helpers/assert.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { apiClient } from '../helpers/service.js';
import { execa } from 'execa';
import { cliEnv } from '../helpers/cli.js';

// Node alone on PATH: no bwrap (nor anything else of /usr/bin) for the service to find.
const NODE_ONLY_PATH = dirname(process.execPath);
const dataDir = mkdtempSync(join(tmpdir(), 'svc-sandbox-policy-'));
let service: ServiceProcess | null = null;

test.after(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function serve(extra: Record<string, string> = {}) {
  return startServiceProcess(['serve'], {
    PATH: NODE_ONLY_PATH,
    SVC_PORT: String(await freePort()),
    SVC_HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_STOREFRONT_HOSTING: '1',
    ...extra,
  });
}

/** The human start banner of `svc serve` with `env`, read up to its last line; the service is then stopped. */
async function banner(env: Record<string, string>): Promise<string> {
  const proc = execa(process.execPath, ['bin/run.js', 'serve'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: cliEnv({ PATH: NODE_ONLY_PATH, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: dataDir, ...env }),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  let out = '';
  await new Promise<void>((resolve) => {
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Press Ctrl-C to stop.')) resolve();
    });
    void proc.then(() => resolve());
  });
  proc.kill('SIGTERM');
  await proc;
  return out;
}

/** A person with a store of their own on `url`, and the API as them. */
async function seller(url: string) {
  const api = apiClient(url);
  const email = `owner-${Math.random().toString(36).slice(2)}@example.com`;
  assert.is((await api('POST', '/auth/v1/signup', { body: { email, password: 'password-1234', name: 'owner' } })).status, 201);
  const token = (await api('POST', '/auth/v1/login', { body: { email, password: 'password-1234' } })).data.accessToken as string;
  const store = await api('POST', '/auth/v1/stores', { token, body: { name: 'Sandboxed', code: `sb-${Math.random().toString(36).slice(2, 8)}` } });
  assert.is(store.status, 201, JSON.stringify(store.body));
  return apiClient(url, { token, storeId: store.data.storeId });
}

test('svc serve without bubblewrap refuses site creation with 503 SELLER_SANDBOX_UNAVAILABLE and says so at start', async () => {
  service = await serve();
  try {
    const api = await seller(service.url);
    fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic' } }), 503, 'SELLER_SANDBOX_UNAVAILABLE');
    assert.is((await api('GET', '/v1/storefront/site')).data.siteId, null, 'nothing was created');
  } finally {
    await service.stop();
    service = null;
  }
  assert.match(await banner({}), /seller code\s+refused: builds, checks and editing need bubblewrap/);
});

test('the operator opts out explicitly: SVC_SELLER_SANDBOX=off runs them unsandboxed, and the banner says so', async () => {
  service = await serve({ SVC_SELLER_SANDBOX: 'off' });
  try {
    const api = await seller(service.url);
    const site = await api('POST', '/v1/storefront/site', { body: { templateId: 'basic' } });
    assert.ok([201, 202].includes(site.status), JSON.stringify(site.body));
  } finally {
    await service.stop();
    service = null;
  }
  assert.match(await banner({ SVC_SELLER_SANDBOX: 'off' }), /seller code\s+UNSANDBOXED \(SVC_SELLER_SANDBOX=off\)/);
});

test.run();
