import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { transaction } from '../../src/db/client.js';
import { issueInstallationToken } from '../../src/modules/apps/installation-tokens.js';
import { STORAGE_MAX_BYTES, STORAGE_MAX_KEYS } from '../../src/modules/apps/storage.js';
import { deploy, installApp, uniqueHandle } from '../helpers/apps.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

/** A fresh installation in the seeded store and a client acting as it. */
async function asNewApp(scopes: string[] = ['order:r']): Promise<{ app: Api; installationId: string }> {
  const handle = uniqueHandle();
  await deploy(svc.api, { handle, name: 'Storage test', scopes });
  const inst = await installApp(svc.api, handle);
  const { token } = await issueInstallationToken(svc.services, inst.installationId);
  return { app: apiClient(svc.url, { token, storeId: svc.storeId }), installationId: inst.installationId };
}

test('put, get, list and delete', async () => {
  const { app } = await asNewApp();
  const put = await app('PUT', '/v1/app/storage/greeted%3A%EB%AF%BC%EC%A7%80', { body: { value: { times: 2 } } });
  assert.is(put.status, 200, JSON.stringify(put.body));
  assert.is(put.data.key, 'greeted:민지');
  assert.equal(put.data.usage, { keys: 1, bytes: put.data.bytes, maxKeys: 1000, maxBytes: 1048576 });
  assert.equal((await app('GET', '/v1/app/storage/greeted%3A%EB%AF%BC%EC%A7%80')).data.value, { times: 2 });
  const list = await app('GET', '/v1/app/storage', { query: { prefix: 'greeted:' } });
  assert.equal(
    list.data.contents.map((c: any) => c.key),
    ['greeted:민지'],
  );
  assert.is((await app('DELETE', '/v1/app/storage/greeted%3A%EB%AF%BC%EC%A7%80')).status, 200);
  const gone = await app('GET', '/v1/app/storage/greeted%3A%EB%AF%BC%EC%A7%80');
  assert.is(gone.status, 404);
  assert.is(gone.body.error.code, 'APP_STORAGE_KEY_NOT_FOUND');
  const noValue = await app('PUT', '/v1/app/storage/k', { body: {} });
  assert.is(noValue.status, 400);
  assert.is(noValue.body.error.fieldErrors[0].field, 'value');
});

test('a value nested 5,000 deep is refused with 400 (TOO_DEEP), not a 500, and nothing is stored', async () => {
  const { app } = await asNewApp();
  const deep = `{"value":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  const res = await app('PUT', '/v1/app/storage/deep', { rawBody: deep, headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.is(res.body.error.fieldErrors[0].code, 'TOO_DEEP');
  assert.is((await app('GET', '/v1/app/storage/deep')).status, 404);
});

test('storage is for installation tokens only', async () => {
  const owner = await svc.api('GET', '/v1/app/storage');
  assert.is(owner.status, 403);
  assert.is(owner.body.error.code, 'INSUFFICIENT_ROLE');
  const access = await createAccessToken(svc, await login(svc), { scopes: ['store:rw'] });
  const asToken = await apiClient(svc.url, { token: access, storeId: svc.storeId })('PUT', '/v1/app/storage/k', { body: { value: 1 } });
  assert.is(asToken.status, 403);
});

test('exactly 1,000 keys fit; the 1,001st is refused with the limit named; rewriting a key still works', async () => {
  const { app, installationId } = await asNewApp();
  // The quota rules are the API's; filling through the service function keeps the test fast, the edges go over HTTP.
  const { writeItem } = await import('../../src/modules/apps/storage.js');
  await transaction(svc.services.db, async () => {
    for (let i = 0; i < STORAGE_MAX_KEYS - 1; i++) await writeItem(svc.services.db, installationId, `k${i}`, i, Date.now());
  });
  const last = await app('PUT', '/v1/app/storage/k999', { body: { value: 999 } });
  assert.is(last.status, 200, JSON.stringify(last.body));
  assert.is(last.data.usage.keys, 1000);
  const over = await app('PUT', '/v1/app/storage/k1000', { body: { value: 1000 } });
  assert.is(over.status, 409);
  assert.is(over.body.error.code, 'APP_STORAGE_QUOTA_EXCEEDED');
  assert.equal(over.body.error.details, { limit: 'KEYS', maxKeys: 1000, usedKeys: 1000, key: 'k1000' });
  assert.is((await app('GET', '/v1/app/storage/k1000')).status, 404, 'nothing was written');
  assert.is((await app('PUT', '/v1/app/storage/k5', { body: { value: 'again' } })).status, 200, 'replacing a key adds no key');
  assert.is((await app('DELETE', '/v1/app/storage/k0')).status, 200);
  assert.is((await app('PUT', '/v1/app/storage/k1000', { body: { value: 1000 } })).status, 200, 'a freed key makes room');
});

test('exactly 1 MB fits; one byte more is refused with used and requested bytes', async () => {
  const { app } = await asNewApp();
  // Bytes counted: key plus JSON value in UTF-8. A string value of n characters is n + 2 bytes of JSON.
  const first = 600_000;
  assert.is((await app('PUT', '/v1/app/storage/big1', { body: { value: 'a'.repeat(first - 4 - 2) } })).data.bytes, first);
  const rest = STORAGE_MAX_BYTES - first;
  const full = await app('PUT', '/v1/app/storage/big2', { body: { value: 'b'.repeat(rest - 4 - 2) } });
  assert.is(full.status, 200, JSON.stringify(full.body));
  assert.is(full.data.usage.bytes, STORAGE_MAX_BYTES);

  const over = await app('PUT', '/v1/app/storage/c', { body: { value: 1 } });
  assert.is(over.status, 409);
  assert.is(over.body.error.code, 'APP_STORAGE_QUOTA_EXCEEDED');
  assert.equal(over.body.error.details, {
    limit: 'BYTES',
    maxBytes: STORAGE_MAX_BYTES,
    usedBytes: STORAGE_MAX_BYTES,
    requestedBytes: 2,
    availableBytes: 0,
    key: 'c',
  });

  const grow = await app('PUT', '/v1/app/storage/big2', { body: { value: 'b'.repeat(rest - 4 - 2 + 1) } });
  assert.is(grow.status, 409, 'rewriting a key one byte larger does not fit');
  assert.is(grow.body.error.details.availableBytes, rest);
  const shrink = await app('PUT', '/v1/app/storage/big2', { body: { value: 'b'.repeat(rest - 4 - 2 - 2) } });
  assert.is(shrink.status, 200, 'rewriting smaller frees room');
  assert.is((await app('PUT', '/v1/app/storage/c', { body: { value: 1 } })).status, 200, 'and exactly 2 bytes fit again');
  assert.is((await app('GET', '/v1/app/storage')).data.usage.bytes, STORAGE_MAX_BYTES);
});

test("installations do not see each other's storage", async () => {
  const a = await asNewApp();
  const b = await asNewApp();
  await a.app('PUT', '/v1/app/storage/shared-name', { body: { value: 'a' } });
  assert.is((await b.app('GET', '/v1/app/storage/shared-name')).status, 404);
});

test('installation token: consented scopes only, human-only actions refused, its own store only', async () => {
  const { app } = await asNewApp(['order:r', 'member:rw', 'store:rw']);
  assert.is((await app('GET', '/v1/store')).status, 200, 'store:r through store:rw');
  const outside = await app('GET', '/v1/audit-logs');
  assert.is(outside.status, 403, 'audit:r not consented');
  assert.is(outside.body.error.code, 'INSUFFICIENT_ROLE');
  for (const [method, path, body] of [
    ['POST', '/v1/member-invitations', { email: 'x@example.com', role: 'STAFF' }],
    ['POST', '/v1/apps/installations', { handle: 'x' }],
    ['GET', '/auth/v1/access-tokens', undefined],
  ] as const) {
    const res = await app(method, path, { body });
    assert.is(res.status, 403, `${method} ${path}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'INSUFFICIENT_ROLE');
  }
  const other = await newSellerWithStore(svc, 'other');
  const elsewhere = await app('GET', '/v1/store', { storeId: other.storeId });
  assert.is(elsewhere.status, 403);
  assert.is(elsewhere.body.error.code, 'STORE_NOT_GRANTED');
  const apps = await app('GET', '/v1/developer/apps', { storeId: null });
  assert.is(apps.status, 403, 'developer operations are not for apps');
});

test.run();
