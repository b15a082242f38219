/**
 * Slug changes over HTTP: 3 per 30 days, the old address held 90 days for the store and redirecting to the
 * new one, other stores refused while it is held, released afterwards; reserved slugs refused everywhere.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { siteFetch, siteUrlOf } from '../helpers/sites.js';
import { createSite, ownerCli, storefrontApi } from '../helpers/site-builds.js';

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

/** `path` below the site's root on `{slug}`'s own origin. */
const visit = (slug: string, path = '') => siteFetch(svc, slug, path);
const setSlug = (slug: string, client = api) => client('PUT', '/v1/storefront/site/slug', { body: { slug } });

test('a change moves the site; the old address redirects and is held from other stores', async () => {
  const before = ok(await api('GET', '/v1/storefront/site'));
  assert.equal([before.slug, before.slugChangesRemaining], ['dev-store', 3]);
  fails(await setSlug('Bad--Slug'), 400, 'VALIDATION_FAILED');
  fails(await setSlug('other-shop'), 409, 'STOREFRONT_SLUG_TAKEN');
  const moved = ok(await setSlug('new-shop'));
  assert.equal([moved.slug, moved.url, moved.slugChangesRemaining], ['new-shop', siteUrlOf(svc, 'new-shop'), 2]);
  assert.is((await visit('new-shop')).status, 200);
  const old = await visit('dev-store', 'products/p1?ref=ad');
  assert.is(old.status, 302);
  assert.is(old.headers.get('location'), `${siteUrlOf(svc, 'new-shop')}products/p1?ref=ad`);
  const taken = ok(await other.api('GET', '/v1/storefront/slug-availability', { query: { slug: 'dev-store' } }));
  assert.equal([taken.available, taken.reason], [false, 'TAKEN']);
  fails(await setSlug('dev-store', other.api), 409, 'STOREFRONT_SLUG_TAKEN');
  assert.is(ok(await setSlug('new-shop')).slugChangesRemaining, 2, 'the same slug again is no change');
});

test('3 changes per 30 days (taking back an own held address counts too); the window moves on', async () => {
  assert.is(ok(await setSlug('dev-store')).slugChangesRemaining, 1, 'the store takes its own held address back');
  assert.is((await visit('dev-store')).status, 200);
  assert.is((await visit('new-shop')).headers.get('location'), siteUrlOf(svc, 'dev-store'));
  assert.is(ok(await setSlug('third-shop')).slugChangesRemaining, 0);
  const refused = fails(await setSlug('fourth-shop'), 409, 'STOREFRONT_SLUG_CHANGE_LIMIT');
  assert.is(refused.error.details.limit, 3);
  await svc.advance(31 * DAY);
  assert.is(ok(await api('GET', '/v1/storefront/site')).slugChangesRemaining, 3);
  assert.is(ok(await setSlug('dev-store')).slug, 'dev-store');
});

test('held 90 days: then the old address is released (no redirect, free for another store)', async () => {
  assert.is((await visit('third-shop')).status, 302);
  await svc.advance(91 * DAY);
  assert.is((await visit('third-shop')).status, 404);
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
  assert.match(moved.stdout, `Address ${siteUrlOf(svc, 'cli-shop')} (2 change(s) left in 30 days)`);
  const taken = await cli(['storefront', 'slug', 'third-shop', '--json']);
  assert.is(taken.exitCode, 1);
  assert.is(JSON.parse(taken.stdout).code, 'STOREFRONT_SLUG_TAKEN');
});

/** The fixed list, and the CNAME target's first label (the test service's target is domains.svc.localhost). */
const RESERVED = [
  'api',
  'auth',
  'login',
  'www',
  'admin',
  'mail',
  'console',
  'status',
  'cdn',
  'static',
  'assets',
  'app',
  'apps',
  'docs',
  'help',
  'support',
  'dev',
  'domains',
];

test("reserved slugs (the operator's hosts under the sites domain) are refused wherever a slug is chosen or changed", async () => {
  const reserved = (res: Parameters<typeof fails>[0], slug: string) =>
    assert.is(fails(res, 409, 'STOREFRONT_SLUG_TAKEN').error.details.reason, 'RESERVED', slug);
  const before = ok(await api('GET', '/v1/storefront/site'));
  for (const slug of RESERVED) {
    const availability = ok(await api('GET', '/v1/storefront/slug-availability', { query: { slug } }));
    assert.equal([availability.available, availability.reason], [false, 'RESERVED'], slug);
    reserved(await setSlug(slug), slug);
  }
  const after = ok(await api('GET', '/v1/storefront/site'));
  assert.equal([after.slug, after.slugChangesRemaining], [before.slug, before.slugChangesRemaining], 'a refused change neither moves the site nor counts');

  // A new site: its slug given, or by default the store's code.
  const seller = await newSellerWithStore(svc, 'sf-reserved');
  const store = ok(await apiClient(svc.url, { token: seller.token })('POST', '/auth/v1/stores', { body: { name: 'Support', code: 'support' } }), 201);
  const fresh = await storefrontApi(svc, { token: seller.token, storeId: store.storeId });
  reserved(await fresh('POST', '/v1/storefront/site', { body: { templateId: 'basic' } }), 'support');
  for (const slug of ['www', 'domains']) reserved(await fresh('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug } }), slug);
  assert.is(ok(await fresh('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'support-shop' } }), 201).slug, 'support-shop');
});

test.run();
