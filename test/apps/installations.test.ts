import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { and, eq } from 'drizzle-orm';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { issueInstallationToken } from '../../src/modules/apps/installation-tokens.js';
import { appDeliveries, appInstallations, appStorage } from '../../src/modules/apps/schema.js';
import { events } from '../../src/modules/events/schema.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';
import { addMember } from '../helpers/invitations.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const base = (handle: string, more: Record<string, unknown> = {}) => ({
  handle,
  name: 'Test app',
  scopes: ['order:r'],
  mcp: { tools: { hello: { description: 'Says hello', input: { name: { type: 'string', required: true } } } } },
  ...more,
});

test('deploy validates the manifest and names the key path', async () => {
  const res = await svc.api('POST', '/v1/developer/apps', { storeId: null, body: { manifest: { handle: 'x', name: '' } } });
  assert.is(res.status, 400);
  const fields = res.body.error.fieldErrors.map((f: any) => f.field);
  assert.ok(fields.includes('manifest.handle'), JSON.stringify(fields));
  assert.ok(fields.includes('manifest.name'));
});

test('a version missing a declared tool function fails with HANDLER_MISSING', async () => {
  const handle = uniqueHandle();
  const manifest = base(handle);
  const created = await svc.api('POST', '/v1/developer/apps', { storeId: null, body: { manifest } });
  const res = await svc.api('POST', `/v1/developer/apps/${created.data.appId}/versions`, {
    storeId: null,
    body: { manifest, bundle: { code: 'var __app={}', functions: [] } },
  });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'HANDLER_MISSING');
  assert.equal(res.body.error.details.functions, ['tools/hello']);
});

test("a version's answer names the functions its bundle defines", async () => {
  const handle = uniqueHandle();
  const manifest = base(handle, { schedules: { nightly: { interval: '1d' } } });
  const created = await svc.api('POST', '/v1/developer/apps', { storeId: null, body: { manifest } });
  const res = await svc.api('POST', `/v1/developer/apps/${created.data.appId}/versions`, { storeId: null, body: { manifest, bundle: bundleFor(manifest) } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.data.functions, ['schedules/nightly', 'tools/hello']);
  const app = await svc.api('GET', `/v1/developer/apps/${created.data.appId}`, { storeId: null });
  assert.equal([app.status, app.data.handle, app.data.latestVersion, app.data.status], [200, handle, 1, 'ACTIVE']);
});

test('another developer cannot take a handle or upload to an app', async () => {
  const handle = uniqueHandle();
  const { appId } = await deploy(svc.api, base(handle));
  const other = await newSellerWithStore(svc, 'dev2');
  const taken = await other.api('POST', '/v1/developer/apps', { storeId: null, body: { manifest: base(handle) } });
  assert.is(taken.status, 409);
  assert.is(taken.body.error.code, 'APP_HANDLE_TAKEN');
  const upload = await other.api('POST', `/v1/developer/apps/${appId}/versions`, {
    storeId: null,
    body: { manifest: base(handle), bundle: bundleFor(base(handle)) },
  });
  assert.is(upload.status, 404);
  assert.is(upload.body.error.code, 'APP_NOT_FOUND');
});

test('install, list, detail with masked secret settings and needs-setup', async () => {
  const handle = uniqueHandle();
  await deploy(
    svc.api,
    base(handle, { settings: { apiKey: { type: 'string', label: 'API key', required: true, secret: true }, region: { type: 'string', label: 'Region' } } }),
  );
  const inst = await installApp(svc.api, handle);
  assert.is(inst.status, 'ACTIVE');
  assert.is(inst.version, 1);
  assert.is(inst.pendingVersion, null);
  assert.equal(inst.permissions.scopes, ['order:r']);
  assert.equal(
    inst.tools.map((t: any) => t.name),
    ['hello'],
  );
  assert.is(inst.needsSetup, true);
  assert.equal(inst.missingSettings, ['apiKey']);

  const put = await svc.api('PUT', `/v1/apps/installations/${inst.installationId}/settings`, {
    body: { settings: { apiKey: 'sk_live_abcdefgh', region: 'kr' } },
  });
  assert.is(put.status, 200, JSON.stringify(put.body));
  assert.is(put.data.settings.apiKey, 'sk_l************');
  assert.is(put.data.settings.region, 'kr');
  assert.is(put.data.needsSetup, false);

  const bad = await svc.api('PUT', `/v1/apps/installations/${inst.installationId}/settings`, { body: { settings: { nope: 'x', region: 3 } } });
  assert.is(bad.status, 400);
  assert.equal(
    bad.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
    [
      ['settings.nope', 'UNKNOWN_FIELD'],
      ['settings.region', 'INVALID_TYPE'],
    ],
  );
  const after = await svc.api('GET', `/v1/apps/installations/${inst.installationId}`);
  assert.is(after.data.settings.region, 'kr', 'a refused patch changes nothing');

  const list = await svc.api('GET', '/v1/apps/installations');
  assert.ok(list.data.contents.some((i: any) => i.installationId === inst.installationId));
  const again = await svc.api('POST', '/v1/apps/installations', { body: { handle } });
  assert.is(again.status, 200, 'one installation per store: installing again returns it');
  assert.is(again.data.installationId, inst.installationId);
});

test('ADMIN cannot install an app asking for settlement:r', async () => {
  const handle = uniqueHandle();
  const seller = await newSellerWithStore(svc, 'owner');
  await deploy(seller.api, base(handle, { scopes: ['settlement:r'] }));
  // An ADMIN of the seller's store, who is not the app's developer.
  const admin = await newSellerWithStore(svc, 'admin');
  await addMember(svc, seller, admin, 'ADMIN');
  const adminApi = apiClient(svc.url, { token: admin.token, storeId: seller.storeId });
  const res = await adminApi('POST', '/v1/apps/installations', { body: { handle } });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'INSUFFICIENT_ROLE');
  assert.equal(res.body.error.details.scopes, ['settlement:r']);
  const none = await seller.api('GET', '/v1/apps/installations');
  assert.is(none.data.contents.length, 0, 'nothing was installed');
  // The OWNER holds settlement:r and may grant it.
  assert.is((await installApp(seller.api, handle)).status, 'ACTIVE');
});

test('a development app installs only where its developer is a member', async () => {
  const handle = uniqueHandle();
  await deploy(svc.api, base(handle));
  const stranger = await newSellerWithStore(svc, 'stranger');
  const res = await stranger.api('POST', '/v1/apps/installations', { body: { handle } });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'APP_NOT_INSTALLABLE');
});

test('a version that adds no consent moves installations at once; a wider one waits for consent', async () => {
  const handle = uniqueHandle();
  await deploy(svc.api, base(handle));
  const inst = await installApp(svc.api, handle);
  const token = (await issueInstallationToken(svc.services, inst.installationId)).token;
  const asApp = apiClient(svc.url, { token, storeId: svc.storeId });
  assert.is((await asApp('GET', '/v1/store')).status, 403, 'store:r not consented yet');

  await deploy(svc.api, base(handle, { name: 'Renamed' }));
  let detail = await svc.api('GET', `/v1/apps/installations/${inst.installationId}`);
  assert.is(detail.data.version, 2);
  assert.is(detail.data.pendingVersion, null);

  await deploy(svc.api, base(handle, { scopes: ['order:r', 'store:r'], network: { hosts: ['api.example.com'] } }));
  detail = await svc.api('GET', `/v1/apps/installations/${inst.installationId}`);
  assert.is(detail.data.version, 2, 'keeps the old version');
  assert.is(detail.data.needsUpdate, true);
  assert.equal(detail.data.pendingVersion, { version: 3, requires: { scopes: ['store:r'], hosts: ['api.example.com'] } });
  assert.is((await asApp('GET', '/v1/store')).status, 403, 'still on the old consent');

  const consent = await svc.api('POST', `/v1/apps/installations/${inst.installationId}/consent`);
  assert.is(consent.status, 200, JSON.stringify(consent.body));
  assert.is(consent.data.version, 3);
  assert.is(consent.data.pendingVersion, null);
  assert.equal(consent.data.permissions, { scopes: ['order:r', 'store:r'], hosts: ['api.example.com'] });
  assert.is((await asApp('GET', '/v1/store')).status, 200, 'the same token now has the consented scope');

  const emitted = await svc.services.db
    .select()
    .from(events)
    .where(and(eq(events.storeId, svc.storeId), eq(events.type, 'APP.SCOPES_UPDATED')))
    .all();
  assert.ok(emitted.some((e) => e.data.installationId === inst.installationId && (e.data.scopes as string[]).includes('store:r')));
  const notice = await svc.services.db.select().from(appDeliveries).where(eq(appDeliveries.installationId, inst.installationId)).all();
  assert.ok(notice.some((d) => d.event === 'APP.SCOPES_UPDATED'));

  const twice = await svc.api('POST', `/v1/apps/installations/${inst.installationId}/consent`);
  assert.is(twice.status, 409);
  assert.is(twice.body.error.code, 'APP_NO_PENDING_VERSION');
});

test('installation management is for store-platform people: an access token may only read', async () => {
  const handle = uniqueHandle();
  await deploy(svc.api, base(handle));
  const inst = await installApp(svc.api, handle);
  const access = await createAccessToken(svc, await login(svc), { scopes: ['store:rw', 'order:rw'] });
  const asToken = apiClient(svc.url, { token: access, storeId: svc.storeId });
  assert.is((await asToken('GET', `/v1/apps/installations/${inst.installationId}`)).status, 200);
  const del = await asToken('DELETE', `/v1/apps/installations/${inst.installationId}`);
  assert.is(del.status, 403);
  assert.is(del.body.error.code, 'INSUFFICIENT_ROLE');
});

test("another store's installation id is TENANT_MISMATCH", async () => {
  const handle = uniqueHandle();
  await deploy(svc.api, base(handle));
  const inst = await installApp(svc.api, handle);
  const other = await newSellerWithStore(svc, 'tenant');
  for (const [method, path] of [
    ['GET', `/v1/apps/installations/${inst.installationId}`],
    ['GET', `/v1/apps/installations/${inst.installationId}/activity`],
    ['PUT', `/v1/apps/installations/${inst.installationId}/settings`],
    ['POST', `/v1/apps/installations/${inst.installationId}/consent`],
    ['DELETE', `/v1/apps/installations/${inst.installationId}`],
    ['POST', `/v1/apps/installations/${inst.installationId}/tools/hello`],
  ] as const) {
    const res = await other.api(method, path, { body: method === 'PUT' ? { settings: {} } : method === 'POST' ? {} : undefined });
    assert.is(res.status, 403, `${method} ${path}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'TENANT_MISMATCH');
  }
  const missing = await other.api('GET', '/v1/apps/installations/inst_nope');
  assert.is(missing.status, 404);
  assert.is(missing.body.error.code, 'APP_INSTALLATION_NOT_FOUND');
});

test('activity lists recent deliveries and counts API calls of 7 days', async () => {
  const handle = uniqueHandle();
  await deploy(svc.api, base(handle, { scopes: ['store:r'] }));
  const inst = await installApp(svc.api, handle);
  const asApp = apiClient(svc.url, { token: (await issueInstallationToken(svc.services, inst.installationId)).token, storeId: svc.storeId });
  for (let i = 0; i < 3; i++) await asApp('GET', '/v1/store');
  const activity = await svc.api('GET', `/v1/apps/installations/${inst.installationId}/activity`);
  assert.is(activity.status, 200);
  assert.equal(activity.data.apiCalls, { days: 7, count: 3 });
  assert.ok(Array.isArray(activity.data.deliveries));
});

test('uninstall cuts access at once; 48 hours later settings and storage are erased', async () => {
  const handle = uniqueHandle();
  await deploy(svc.api, base(handle, { scopes: ['store:r'], settings: { note: { type: 'string', label: 'Note' } } }));
  const inst = await installApp(svc.api, handle);
  await svc.api('PUT', `/v1/apps/installations/${inst.installationId}/settings`, { body: { settings: { note: 'hi' } } });
  const token = (await issueInstallationToken(svc.services, inst.installationId)).token;
  const asApp = apiClient(svc.url, { token, storeId: svc.storeId });
  assert.is((await asApp('PUT', '/v1/app/storage/k', { body: { value: 1 } })).status, 200);
  assert.is((await asApp('GET', '/v1/store')).status, 200);

  const del = await svc.api('DELETE', `/v1/apps/installations/${inst.installationId}`);
  assert.is(del.status, 200);
  assert.is(del.data.status, 'UNINSTALLED');
  assert.ok(del.data.eraseAt);
  const cut = await asApp('GET', '/v1/store');
  assert.is(cut.status, 401);
  assert.is(cut.body.error.code, 'TOKEN_REVOKED');
  const tool = await svc.api('POST', `/v1/apps/installations/${inst.installationId}/tools/hello`, { body: { input: { name: 'a' } } });
  assert.is(tool.status, 404);
  assert.is(tool.body.error.code, 'APP_TOOL_NOT_FOUND');
  const again = await svc.api('DELETE', `/v1/apps/installations/${inst.installationId}`);
  assert.is(again.status, 409);

  const installation = async () => (await svc.services.db.select().from(appInstallations).where(eq(appInstallations.id, inst.installationId)).get())!;
  await svc.advance(47 * 3600);
  assert.equal((await installation()).settings, { note: 'hi' }, 'kept for 48 hours');
  await svc.advance(3600 + 1);
  assert.equal((await installation()).settings, {});
  assert.ok((await installation()).erasedAt);
  assert.is((await svc.services.db.select().from(appStorage).where(eq(appStorage.installationId, inst.installationId)).all()).length, 0);
  const notices = (await svc.services.db.select().from(appDeliveries).where(eq(appDeliveries.installationId, inst.installationId)).all()).map((d) => d.event);
  assert.ok(notices.includes('APP.UNINSTALLED') && notices.includes('APP.STORE_DATA_ERASE'), notices.join());

  // The owner's login expired while the clock jumped two days.
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const reinstall = await owner('POST', '/v1/apps/installations', { body: { handle } });
  assert.is(reinstall.status, 201, 'a new installation after uninstall');
  assert.is.not(reinstall.data.installationId, inst.installationId);
});

test.run();
