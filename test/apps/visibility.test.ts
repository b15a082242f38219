/**
 * App visibility (spec 02 §2.2: `DEVELOPMENT`, `PRIVATE`, `PUBLIC`): a developer publishes an app privately
 * to stores they name, or publicly to every store; a store not allowed gets 403 APP_NOT_INSTALLABLE.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deploy, installApp, uniqueHandle } from '../helpers/apps.js';
import { jsonOf, runCli } from '../helpers/cli.js';
import { newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const work = mkdtempSync(join(tmpdir(), 'svc-app-visibility-'));
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
  rmSync(work, { recursive: true, force: true });
});

const manifestOf = (handle: string) => ({ handle, name: 'Visibility app', scopes: ['order:r'] });
const publish = (appId: string, body: Record<string, unknown>) => svc.api('PUT', `/v1/developer/apps/${appId}/visibility`, { storeId: null, body });

test('PRIVATE installs only in the stores its developer names; PUBLIC in any store; a store not allowed gets 403', async () => {
  const handle = uniqueHandle('vis');
  const { appId } = await deploy(svc.api, manifestOf(handle));
  const named = await newSellerWithStore(svc, 'named');
  const other = await newSellerWithStore(svc, 'other');

  const refusedInDevelopment = await named.api('POST', '/v1/apps/installations', { body: { handle } });
  assert.is(refusedInDevelopment.status, 403);
  assert.is(refusedInDevelopment.body.error.code, 'APP_NOT_INSTALLABLE');

  const priv = await publish(appId, { visibility: 'PRIVATE', stores: [named.storeId] });
  assert.is(priv.status, 200, JSON.stringify(priv.body));
  assert.is(priv.data.visibility, 'PRIVATE');
  assert.equal(priv.data.allowedStoreIds, [named.storeId]);
  assert.is((await svc.api('GET', `/v1/developer/apps/${appId}`, { storeId: null })).data.visibility, 'PRIVATE');

  const inst = await installApp(named.api, handle);
  assert.is(inst.visibility, 'PRIVATE');
  const refused = await other.api('POST', '/v1/apps/installations', { body: { handle } });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'APP_NOT_INSTALLABLE');
  assert.is(refused.body.error.details.visibility, 'PRIVATE');
  // The developer's own store still takes it, as in development.
  assert.is((await installApp(svc.api, handle)).status, 'ACTIVE');

  const pub = await publish(appId, { visibility: 'PUBLIC' });
  assert.is(pub.status, 200, JSON.stringify(pub.body));
  assert.is(pub.data.visibility, 'PUBLIC');
  assert.equal(pub.data.allowedStoreIds, []);
  assert.is((await installApp(other.api, handle)).visibility, 'PUBLIC');

  // A public app stays public: stores that installed it are not cut off.
  const back = await publish(appId, { visibility: 'PRIVATE', stores: [named.storeId] });
  assert.is(back.status, 409);
  assert.is(back.body.error.code, 'APP_ALREADY_PUBLIC');
});

test('publishing refuses bad requests: stores with PRIVATE only, known stores, a deployed version, own apps', async () => {
  const handle = uniqueHandle('vis');
  const { appId } = await deploy(svc.api, manifestOf(handle));
  const noStores = await publish(appId, { visibility: 'PRIVATE' });
  assert.is(noStores.status, 400);
  assert.is(noStores.body.error.code, 'VALIDATION_FAILED');
  const storesOnPublic = await publish(appId, { visibility: 'PUBLIC', stores: [svc.storeId] });
  assert.is(storesOnPublic.status, 400);
  const unknown = await publish(appId, { visibility: 'PRIVATE', stores: ['no-such-store'] });
  assert.is(unknown.status, 400);
  assert.equal(
    unknown.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
    [['stores.0', 'STORE_NOT_FOUND']],
  );
  assert.is((await publish(appId, { visibility: 'DEVELOPMENT' })).status, 400);

  const bare = await svc.api('POST', '/v1/developer/apps', { storeId: null, body: { manifest: manifestOf(uniqueHandle('bare')) } });
  const noVersion = await publish(bare.data.appId, { visibility: 'PUBLIC' });
  assert.is(noVersion.status, 409);
  assert.is(noVersion.body.error.code, 'APP_NO_VERSION');

  const stranger = await newSellerWithStore(svc, 'stranger');
  const foreign = await stranger.api('PUT', `/v1/developer/apps/${appId}/visibility`, { storeId: null, body: { visibility: 'PUBLIC' } });
  assert.is(foreign.status, 404);
  assert.is(foreign.body.error.code, 'APP_NOT_FOUND');
});

test('svc app publish --visibility private --stores CODE, then public', async () => {
  const handle = uniqueHandle('vis');
  const { appId } = await deploy(svc.api, manifestOf(handle));
  const named = await newSellerWithStore(svc, 'clicode');
  const code = (await named.api('GET', '/v1/store')).data.code as string;
  writeFileSync(join(work, 'manifest.json'), JSON.stringify(manifestOf(handle)));
  const env = { SVC_CONFIG_DIR: join(work, '.config'), SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken };

  const usage = await runCli(['app', 'publish', '--dir', work, '--visibility', 'private'], env);
  assert.is(usage.exitCode, 2, usage.stdout + usage.stderr);
  assert.match(usage.stderr, /--stores/);

  const priv = await runCli(['app', 'publish', '--dir', work, '--visibility', 'private', '--stores', code, '--json'], env);
  assert.is(priv.exitCode, 0, priv.stderr);
  assert.equal([jsonOf(priv).appId, jsonOf(priv).visibility, jsonOf(priv).allowedStoreIds], [appId, 'PRIVATE', [named.storeId]]);

  const pub = await runCli(['app', 'publish', '--dir', work, '--visibility', 'public'], env);
  assert.is(pub.exitCode, 0, pub.stderr);
  assert.match(pub.stdout, /PUBLIC/);
});

test.run();
