/**
 * Slug changes over HTTP: 3 per 30 days, the old address held 90 days for the store and redirecting to the
 * new one, other stores refused while it is held, released afterwards.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { createSite, ownerCli, storefrontApi } from './support.js';

let svc: TestService;
let api: Api;
let other: { api: Api };
let cli: Awaited<ReturnType<typeof ownerCli>>;
const DAY = 86_400;
test.before(async () => {
  svc = await startTestService();
  api = await storefrontApi(svc);
  cli = await ownerCli(svc);
  await createSite(api);
  other = { api: await storefrontApi(svc, await newSellerWithStore(svc, 'sf-slug')) };
  await createSite(other.api, { templateId: 'basic', slug: 'other-shop' });
});
test.after(async () => {
  await svc.close();
});

const visit = (path: string) => fetch(`${svc.url}/sites/${path}`, { redirect: 'manual' });
const setSlug = (slug: string, client = api) => client('PUT', '/v1/storefront/site/slug', { body: { slug } });

test('a change moves the site; the old address redirects and is held from other stores', async () => {
  const before = ok(await api('GET', '/v1/storefront/site'));
  assert.equal([before.slug, before.slugChangesRemaining], ['dev-store', 3]);
  fails(await setSlug('Bad--Slug'), 400, 'VALIDATION_FAILED');
  fails(await setSlug('other-shop'), 409, 'STOREFRONT_SLUG_TAKEN');
  const moved = ok(await setSlug('new-shop'));
  assert.equal([moved.slug, moved.url, moved.slugChangesRemaining], ['new-shop', `${svc.url}/sites/new-shop/`, 2]);
  assert.is((await visit('new-shop/')).status, 200);
  const old = await visit('dev-store/products/p1?ref=ad');
  assert.is(old.status, 302);
  assert.is(old.headers.get('location'), `${svc.url}/sites/new-shop/products/p1?ref=ad`);
  const taken = ok(await other.api('GET', '/v1/storefront/slug-availability', { query: { slug: 'dev-store' } }));
  assert.equal([taken.available, taken.reason], [false, 'TAKEN']);
  fails(await setSlug('dev-store', other.api), 409, 'STOREFRONT_SLUG_TAKEN');
  assert.is(ok(await setSlug('new-shop')).slugChangesRemaining, 2, 'the same slug again is no change');
});

test('3 changes per 30 days (taking back an own held address counts too); the window moves on', async () => {
  assert.is(ok(await setSlug('dev-store')).slugChangesRemaining, 1, 'the store takes its own held address back');
  assert.is((await visit('dev-store/')).status, 200);
  assert.is((await visit('new-shop/')).headers.get('location'), `${svc.url}/sites/dev-store/`);
  assert.is(ok(await setSlug('third-shop')).slugChangesRemaining, 0);
  const refused = fails(await setSlug('fourth-shop'), 409, 'STOREFRONT_SLUG_CHANGE_LIMIT');
  assert.is(refused.error.details.limit, 3);
  await svc.advance(31 * DAY);
  assert.is(ok(await api('GET', '/v1/storefront/site')).slugChangesRemaining, 3);
  assert.is(ok(await setSlug('dev-store')).slug, 'dev-store');
});

test('held 90 days: then the old address is released (no redirect, free for another store)', async () => {
  assert.is((await visit('third-shop/')).status, 302);
  await svc.advance(91 * DAY);
  assert.is((await visit('third-shop/')).status, 404);
  assert.is(ok(await setSlug('third-shop', other.api)).slug, 'third-shop');
});

test('a store whose hosting the operator suspended changes nothing: STORE_SUSPENDED', async () => {
  ok(await svc.api('POST', '/_dev/v1/storefront/store-suspension', { body: { storeId: svc.storeId, reason: 'POLICY' } }));
  const refused = fails(await setSlug('suspended-shop'), 409, 'STORE_SUSPENDED');
  assert.is(refused.error.details.reason, 'POLICY');
  fails(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'shop.example.test' } }), 409, 'STORE_SUSPENDED');
  ok(await svc.api('DELETE', '/_dev/v1/storefront/store-suspension', { body: { storeId: svc.storeId } }));
});

test('svc storefront slug', async () => {
  const moved = await cli(['storefront', 'slug', 'cli-shop']);
  assert.is(moved.exitCode, 0, moved.stderr);
  assert.match(moved.stdout, `Address ${svc.url}/sites/cli-shop/ (2 change(s) left in 30 days)`);
  const taken = await cli(['storefront', 'slug', 'third-shop', '--json']);
  assert.is(taken.exitCode, 1);
  assert.is(JSON.parse(taken.stdout).code, 'STOREFRONT_SLUG_TAKEN');
});

test.run();
