/**
 * The outside security run's attack on checks, through the public API: a project's test file is the
 * seller's code, and it tried to read the signing key and the database, write into the data dir, signal
 * the service, read its environment and call it over the network. In the seller sandbox (bubblewrap) it
 * reaches none of them; a check that never ends is stopped with the service, leaving no process behind;
 * other stores' requests answer while a check spins.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bubblewrapAvailable } from '../../src/modules/storefront/builds/seller-sandbox.js';
import { ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { createSite, eventually, miniProject, tarGz, uploadSource } from '../helpers/site-builds.js';

const CANARY = `canary-${process.pid}-operator-secret-0123456789abcdef`;
let svc: TestService;
let api: Api;
let token: string;

test.before(async () => {
  assert.ok(bubblewrapAvailable(), 'bubblewrap (bwrap) is required for this test: install it with `apt-get install -y bubblewrap` (.ci/run does)');
  // The service runs in this process: what it holds in its environment is what a check must not see.
  process.env.SVC_TEST_CANARY = CANARY;
  svc = await startTestService({ operatorToken: CANARY });
  token = await createAccessToken(svc, svc.ownerToken, { scopes: ['storefront:rw'], expiresInDays: 365 });
  api = apiClient(svc.url, { token, storeId: svc.storeId });
  await createSite(api);
});
test.after(async () => {
  await svc.close();
});

const upload = async (files: Record<string, string | Uint8Array>) => {
  const res = await uploadSource(svc, { token, storeId: svc.storeId }, await tarGz(files));
  assert.is(res.status, 200, JSON.stringify(res.body));
};
const startCheck = async () => ok(await api('POST', '/v1/storefront/site/checks'), 202).checkId as string;
const finished = (checkId: string) =>
  eventually(
    api,
    async () => {
      const check = ok(await api('GET', `/v1/storefront/site/checks/${checkId}`));
      return ['QUEUED', 'RUNNING'].includes(check.status) ? undefined : check;
    },
    `check ${checkId}`,
    120_000,
  );

/** A test file that tries every reach of the finding and prints what it got. */
function hostileTest(): string {
  const target = { dataDir: svc.dataDir, url: svc.url, pid: process.pid };
  return `import { test } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
const target = ${JSON.stringify(target)};
test('reach out', async () => {
  const seen: Record<string, string> = {};
  const attempt = async (name: string, reach: () => unknown) => {
    try { seen[name] = 'GOT ' + String(await reach()).slice(0, 300); } catch (error: any) { seen[name] = 'ERR ' + (error?.code ?? error?.cause?.code ?? error?.name); }
  };
  await attempt('signingKey', () => readFileSync(target.dataDir + '/signing.json', 'utf8'));
  await attempt('database', () => readFileSync(target.dataDir + '/svc.db').length);
  await attempt('write', () => writeFileSync(target.dataDir + '/pwned', 'x'));
  await attempt('signal', () => process.kill(target.pid, 0));
  await attempt('network', () => fetch(target.url + '/v1/store').then((r) => r.status));
  await attempt('environment', () => JSON.stringify(process.env));
  await attempt('firstProcess', () => readFileSync('/proc/1/cmdline', 'utf8'));
  await attempt('identity', () => process.getuid!());
  console.log('EVIDENCE ' + JSON.stringify(seen));
});
`;
}

test('a hostile test file reaches neither the data dir, the keys, the service process, its environment nor the network', async () => {
  await upload({ ...miniProject(), 'test/reach.test.ts': hostileTest() });
  const check = await finished(await startCheck());
  const output: string = check.steps.find((s: any) => s.name === 'test').output;
  const evidence = JSON.parse(/EVIDENCE (\{.*\})/.exec(output)?.[1] ?? 'null') as Record<string, string> | null;
  assert.ok(evidence, `the hostile test ran and reported:\n${output}`);
  assert.is(evidence.signingKey, 'ERR ENOENT', 'the data dir is not in the sandbox');
  assert.is(evidence.database, 'ERR ENOENT');
  assert.ok(evidence.write.startsWith('ERR '), evidence.write);
  assert.is(evidence.signal, 'ERR ESRCH', 'the service process is not visible');
  assert.ok(evidence.network.startsWith('ERR '), `no network: ${evidence.network}`);
  assert.is(evidence.identity, 'GOT 65534');
  assert.ok(evidence.firstProcess.startsWith('GOT bwrap'), `the first process it sees is the sandbox's own: ${evidence.firstProcess}`);
  for (const [name, value] of Object.entries(evidence)) assert.not.ok(value.includes(CANARY), `${name} leaked the service's secret`);
  assert.not.ok(evidence.environment.includes('SVC_'), `no SVC_ variable reaches a check: ${evidence.environment}`);
  assert.not.ok(existsSync(join(svc.dataDir, 'pwned')));
});

test('while a check spins, other stores answer; a check still running when the service stops leaves no process behind', async () => {
  const marker = `spin-${randomUUID()}`;
  await upload({ ...miniProject(), [`test/${marker}.test.ts`]: "import { test } from 'node:test';\ntest('spin', () => { for (;;) {} });\n" });
  const checkId = await startCheck();
  await eventually(
    api,
    async () =>
      ok(await api('GET', `/v1/storefront/site/checks/${checkId}`)).steps.find((s: any) => s.name === 'test').status === 'RUNNING' ? true : undefined,
    'the spinning test step',
    120_000,
  );
  const other = await newSellerWithStore(svc, 'check-bystander');
  const answered = await other.api('GET', '/v1/store');
  assert.is(answered.status, 200);
  await svc.close();
  const left = readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
  assert.equal(left, [], 'no check process outlives the service');
  svc = await startTestService();
});

test.run();
