/**
 * The page cache of published sites over HTTP (src/modules/storefront/serving/page-cache.ts): a page the
 * service answers again without running the site's code shows every change of what it read at the next
 * visit — products, store settings, the published version (publish and rollback), collections, the day
 * (discounts) — and one store's pages and changes never reach another's. A page whose code reads the clock,
 * or that sets no Cache-Control (the service's default is no-store), runs every time.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { createProduct } from '../helpers/checkout.js';
import { longLivedToken } from '../helpers/members.js';
import { apiClient, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { siteFetch } from '../helpers/sites.js';
import { build, createSite, miniProject, storefrontApi, synced, tarGz, uploadSource } from '../helpers/site-builds.js';
import { addDays, today } from '../../src/kernel/dates.js';

let svc: TestService;
let api: Api;
let other: { api: Api; storefront: Api; auth: { token: string; storeId: string } };
let mug: string;
let cup: string;

const goPublic = (client: Api) => client('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } });
const page = async (slug: string, path = '') => {
  const res = await siteFetch(svc, slug, path);
  assert.is(res.status, 200, `${slug}/${path}`);
  return res.text();
};
/** Twice: the second visit is the one a cached page would answer. */
const home = async (slug = 'dev-store') => {
  const first = await page(slug);
  assert.is(await page(slug), first, 'the same page twice while nothing changed');
  return first;
};

test.before(async () => {
  svc = await startTestService();
  api = apiClient(svc.url, { token: await longLivedToken(svc), storeId: svc.storeId });
  await createSite(api);
  mug = (await createProduct(api, { name: '캐시 머그컵', salePrice: 12000, stockQuantity: 5 })).productId;
  ok(await goPublic(api));
  await synced(api);
  const seller = await newSellerWithStore(svc, 'pc-other');
  other = { api: seller.api, storefront: await storefrontApi(svc, seller), auth: seller };
  await createSite(other.storefront, { templateId: 'basic', slug: 'other-cache' });
  cup = (await createProduct(other.api, { name: '다른 상점 컵', salePrice: 3000, stockQuantity: 5 })).productId;
  ok(await goPublic(other.storefront));
  await synced(other.storefront);
});
test.after(async () => {
  await svc.close();
});

test('a product change shows at the next visit, in its own store only', async () => {
  assert.match(await home(), '캐시 머그컵');
  const theirs = await home('other-cache');
  assert.match(theirs, '다른 상점 컵');
  assert.not.match(theirs, '캐시 머그컵', "another store's page never shows this store's products");
  ok(await api('PATCH', `/v1/products/${mug}`, { body: { name: '새 이름 머그컵' } }));
  const renamed = await home();
  assert.match(renamed, '새 이름 머그컵');
  assert.not.match(renamed, '캐시 머그컵');
  assert.is(await home('other-cache'), theirs, "another store's page is not changed by this store's write");
  ok(await api('PATCH', `/v1/products/${mug}`, { body: { stockQuantity: 0 } }));
  assert.not.match(await home(), '새 이름 머그컵', 'sold out once its stock is gone: no longer on sale');
  ok(await other.api('PATCH', `/v1/products/${cup}`, { body: { name: '바뀐 컵' } }));
  assert.match(await home('other-cache'), '바뀐 컵');
  assert.not.match(await home(), '바뀐 컵', "this store's page does not show the other store's product");
});

test('a store settings change shows at the next visit', async () => {
  ok(await svc.api('PATCH', '/v1/store', { body: { name: '캐시 상점' } }));
  assert.match(await home(), '캐시 상점');
  assert.not.match(await home('other-cache'), '캐시 상점');
});

test('publishing and rolling back: visitors get the page of the version served now', async () => {
  const first = ok(await api('GET', '/v1/storefront/site')).publishedVersionId;
  assert.match(await home(), '<span class="version">v1</span>');
  const built = await build(api);
  assert.is(built.status, 'SUCCEEDED', JSON.stringify(built));
  ok(await api('POST', `/v1/storefront/site/versions/${built.versionId}/publish`, { body: {} }));
  await synced(api);
  assert.match(await home(), '<span class="version">v2</span>');
  ok(await api('POST', `/v1/storefront/site/versions/${first}/publish`, { body: {} }));
  await synced(api);
  assert.match(await home(), '<span class="version">v1</span>');
});

test('a collection change shows at the next visit; a page that reads the clock, or says nothing of caching, runs every time', async () => {
  const server = `  const url = new URL(request.url);
  const state = globalThis as any;
  state.renders = (state.renders ?? 0) + 1;
  const stored = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' };
  if (url.pathname === '/clock') return new Response(state.renders + ' ' + new Date().getFullYear(), { headers: stored });
  if (url.pathname === '/unsaid') return new Response(String(state.renders));
  if (url.pathname === '/counted') return new Response(String(state.renders), { headers: stored });
  const answer = await fetch(env.storefrontApiUrl + '/collections' + url.pathname + '/products', { headers: { 'x-store-id': env.storeId } });
  const { data } = JSON.parse(await answer.text());
  return new Response(data.contents.map((p: any) => p.name).join(','), { headers: stored });`;
  ok(await uploadSource(svc, other.auth, await tarGz(miniProject({ server }))));
  const built = await build(other.storefront);
  assert.is(built.status, 'SUCCEEDED', JSON.stringify(built));
  ok(await other.storefront('POST', `/v1/storefront/site/versions/${built.versionId}/publish`, { body: {} }));
  await synced(other.storefront);
  const plate = (await createProduct(other.api, { name: '접시', salePrice: 5000 })).productId;
  const picks = ok(await other.api('POST', '/v1/collections', { body: { slug: 'picks', title: '추천', productIds: [cup] } }), 201);
  assert.is(await page('other-cache', 'picks'), '바뀐 컵');
  assert.is(await page('other-cache', 'picks'), '바뀐 컵');
  ok(await other.api('PUT', `/v1/collections/${picks.collectionId}`, { body: { slug: 'picks', title: '추천', productIds: [plate] } }));
  assert.is(await page('other-cache', 'picks'), '접시');

  const counted = new Set<string>();
  for (let i = 0; i < 12; i++) counted.add(await page('other-cache', 'counted'));
  assert.is(counted.size, 1, `a storable page that reads nothing volatile is rendered once: ${[...counted]}`);

  for (const path of ['clock', 'unsaid']) {
    const answers = new Set<string>();
    for (let i = 0; i < 12; i++) answers.add(await page('other-cache', path));
    assert.ok(answers.size > 1, `${path}: the page was answered again: ${[...answers]}`);
  }
});

test('a discount starting tomorrow shows once the day has come', async () => {
  ok(await api('PATCH', `/v1/products/${mug}`, { body: { stockQuantity: 5, status: 'ON_SALE' } }));
  const tomorrow = addDays(today(svc.services.clock.now()), 1);
  ok(await api('PUT', `/v1/products/${mug}/discount`, { body: { method: 'PERCENT', value: 10, startDate: tomorrow, endDate: addDays(tomorrow, 5) } }));
  const before = await home();
  assert.match(before, '12,000원');
  assert.not.match(before, '10,800원');
  await svc.advance(86_400);
  assert.match(await home(), '10,800원');
});

test.run();
