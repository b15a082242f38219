/**
 * Hosted sites run on an origin of their own, never on the service's: a hostile site in headless Chromium
 * (svc dev: `http://{slug}.localhost:{port}`) can neither read the service's dev mail or API with the
 * browser's credentials, nor put a service worker over the service's pages, nor use the owner's
 * approval-page login to approve an agent's held request; `/sites/{slug}/…` on the service's origin only
 * redirects. `.localhost` names reach the sites alone, never the service. And svc serve with a sites domain
 * serves no site content on its API host (without one: sites only on custom domains).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sitesLine } from '../../src/modules/storefront/sites/sites.js';
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';
import { fails, ok } from '../helpers/assert.js';
import { launchBrowser, type BrowserSession } from '../helpers/browser.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { localFetch, siteFetch, siteUrlOf } from '../helpers/sites.js';
import { makeStoreWentPublic } from '../helpers/storefront.js';
import { createProduct } from '../helpers/checkout.js';
import { longLivedToken } from '../helpers/members.js';
import { build, createSite, miniProject, synced, tarGz, uploadSource } from '../helpers/site-builds.js';

/** A service worker that answers every page of its scope with the attacker's. */
const WORKER = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => event.respondWith(new Response('<h1 id="pwned">pwned</h1>', { headers: { 'content-type': 'text/html' } })));`;

/**
 * The hostile page: with the service's origin and the held request's id from its query, it tries what the
 * outside run did on the service's origin, and leaves what each attempt got in `window.__attack`.
 */
const ATTACK = `const q = new URLSearchParams(location.search);
const api = q.get('api'), approval = q.get('approval');
const attempt = async (f) => { try { return await f(); } catch (e) { return 'blocked: ' + e.name; } };
window.__attack = (async () => ({
  mail: await attempt(async () => (await fetch(api + '/_dev/v1/mail', { credentials: 'include' })).text()),
  store: await attempt(async () => (await fetch(api + '/v1/store', { credentials: 'include' })).text()),
  mailOpaque: await attempt(async () => { const r = await fetch(api + '/_dev/v1/mail', { mode: 'no-cors', credentials: 'include' }); return r.type + ':' + r.status + ':' + (await r.text()).length; }),
  ownMail: await attempt(async () => { const r = await fetch('/_dev/v1/mail'); return r.status + ' ' + (await r.text()); }),
  approvalPage: await attempt(async () => (await fetch(api + '/approvals/' + approval, { credentials: 'include' })).text()),
  ownApprovalPage: await attempt(async () => (await fetch('/approvals/' + approval)).text()),
  approve: await attempt(async () => (await fetch(api + '/approvals/' + approval, { method: 'POST', mode: 'no-cors', credentials: 'include', body: new URLSearchParams({ action: 'approve', formToken: 'guessed' }) })).type),
  apiWorker: await attempt(async () => (await navigator.serviceWorker.register(api + '/sw.js', { scope: api + '/' })).scope),
  wideWorker: await attempt(async () => (await navigator.serviceWorker.register('/wide/sw.js', { scope: '/' })).scope),
  worker: await attempt(async () => { const r = await navigator.serviceWorker.register('/sw.js', { scope: '/' }); await navigator.serviceWorker.ready; return r.scope; }),
}))();`;

/** The site's server code: the page, and a worker script that asks (in vain) for a scope wider than its folder. */
const SERVER = `  const url = new URL(request.url);
  if (url.pathname === '/wide/sw.js') return new Response(${JSON.stringify(WORKER)}, { headers: { 'content-type': 'text/javascript', 'service-worker-allowed': '/' } });
  if (url.pathname !== '/') return new Response('site page ' + url.pathname, { status: 404, headers: { 'content-type': 'text/plain' } });
  return new Response('<!doctype html><title>hostile</title><h1>hostile</h1><script>' + ${JSON.stringify(ATTACK)} + '</script>', { headers: { 'content-type': 'text/html; charset=utf-8' } });`;

let svc: TestService;
let api: Api;
let owner: string;
let agent: Api;
let browser: BrowserSession;

test.before(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchBrowser()]);
  owner = await login(svc);
  const token = await longLivedToken(svc);
  api = apiClient(svc.url, { token, storeId: svc.storeId });
  // The store went public once: an agent's store change now waits for a person's approval.
  await makeStoreWentPublic(svc, { token, storeId: svc.storeId });
  agent = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['store:rw'], agent: true }), storeId: svc.storeId });
  ok(await uploadSource(svc, { token, storeId: svc.storeId }, await tarGz(miniProject({ server: SERVER, files: { 'public/sw.js': WORKER } }))));
  const built = await build(api);
  assert.is(built.status, 'SUCCEEDED', JSON.stringify(built));
  ok(await api('POST', `/v1/storefront/site/versions/${built.versionId}/publish`, { body: {} }));
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
  await synced(api);
});
test.after(async () => {
  await browser?.close();
  await svc?.close();
});

test('in Chromium a hostile site reads nothing of the service, approves nothing, and its service worker controls only its own origin', async () => {
  const held = await agent('PATCH', '/v1/store', { body: { name: 'Approved By A Site' } });
  assert.is(held.status, 202, JSON.stringify(held.body));
  const { approvalId, approvalUrl } = held.data;
  const { page } = browser;
  page.setDefaultTimeout(15_000);

  // The owner logs in on the approval page: its cookie is the service's, scoped to the approval pages.
  await page.goto(approvalUrl);
  await page.fill('#email', SEED_EMAIL);
  await page.fill('#password', SEED_PASSWORD);
  await Promise.all([page.waitForSelector('[data-status="PENDING"]'), page.getByRole('button', { name: '로그인' }).click()]);
  const [cookie] = (await page.context().cookies()).filter((c) => c.name === 'svc_approver');
  assert.equal([cookie.domain, cookie.path, cookie.httpOnly, cookie.sameSite], ['127.0.0.1', '/approvals', true, 'Strict']);

  // The same browser opens the hostile site — on its own origin.
  const site = siteUrlOf(svc, 'dev-store');
  await page.goto(`${site}?${new URLSearchParams({ api: svc.url, approval: approvalId })}`);
  assert.is(await page.textContent('h1'), 'hostile');
  const got = await page.evaluate(() => (window as any).__attack);
  assert.is(got.mail, 'blocked: TypeError', 'the dev mail of the service: a cross-origin read the browser refuses');
  assert.is(got.store, 'blocked: TypeError', 'the admin API: likewise');
  assert.is(got.mailOpaque, 'opaque:0:0', 'without CORS the answer is opaque: nothing to read');
  assert.is(got.ownMail, '404 site page /_dev/v1/mail', "on the site's own origin the path is the site's, not the service's");
  assert.is(got.approvalPage, 'blocked: TypeError', 'the approval page (and its form token) is out of reach');
  assert.not.match(got.ownApprovalPage, 'formToken');
  assert.is(got.approve, 'opaque');
  assert.is(got.apiWorker, 'blocked: SecurityError', "no worker from another origin's script");
  assert.is(got.wideWorker, 'blocked: SecurityError', "Service-Worker-Allowed was stripped: no scope wider than the script's folder");
  assert.is(got.worker, site, "a worker of its own origin's root is the seller's own business");

  const approval = ok(await svc.api('GET', `/v1/approval-requests/${approvalId}`, { token: owner }));
  assert.is(approval.status, 'PENDING', 'the held request still waits for a person');
  const bystander = await newSellerWithStore(svc, 'site-bystander');
  assert.is((await bystander.api('GET', '/v1/store')).status, 200, 'another store answers as before');
  assert.is.not(ok(await svc.api('GET', '/v1/store', { token: owner })).name, 'Approved By A Site');

  // The worker controls its own origin (it is active)… and none of the service's pages.
  const own = await page.goto(`${site}anything`);
  assert.equal([await page.textContent('h1'), own!.fromServiceWorker()], ['pwned', true]);
  for (const path of [`/approvals/${approvalId}`, '/auth/authorize?response_type=code&client_id=svc-cli']) {
    const answer = await page.goto(`${svc.url}${path}`);
    assert.is(answer!.fromServiceWorker(), false, path);
    assert.not.match(await page.content(), 'pwned', path);
    if (path.startsWith('/approvals/')) assert.ok(await page.$('[data-status="PENDING"]'), 'the real approval page, still pending');
  }
});

test("`/sites/{slug}/…` on the service's origin redirects to the site's own (path and query kept), in a browser too", async () => {
  const moved = await fetch(`${svc.url}/sites/dev-store/products/p1?ref=ad`, { redirect: 'manual' });
  assert.is(moved.status, 308);
  assert.is(moved.headers.get('location'), `${siteUrlOf(svc, 'dev-store')}products/p1?ref=ad`);
  assert.is(await moved.text(), '', "no site content on the service's origin");
  const bare = await fetch(`${svc.url}/sites/dev-store`, { redirect: 'manual' });
  assert.is(bare.headers.get('location'), siteUrlOf(svc, 'dev-store'));
  const { page } = browser;
  await page.goto(`${svc.url}/sites/dev-store/?x=1`);
  assert.is(page.url(), `${siteUrlOf(svc, 'dev-store')}?x=1`);
  assert.is(await page.textContent('h1'), 'pwned', "the site's own origin (its worker answers there)");
  fails(await svc.api('GET', '/sites/'), 404, 'ROUTE_NOT_FOUND');
});

test("svc dev: names under .localhost reach the sites alone — never the service's API, pages or dev helpers; other names get 421", async () => {
  const port = new URL(svc.url).port;
  const held = ok(await agent('PATCH', '/v1/store', { body: { name: 'Held Again' } }), 202);
  const paths = ['/_dev/v1/mail', '/v1/store', '/v1/openapi.json', `/approvals/${held.approvalId}`, '/auth/authorize', '/mcp', '/sites/dev-store/'];
  for (const host of ['nobody.localhost', 'deep.shop.localhost']) {
    for (const path of paths) {
      const res = await localFetch(`http://${host}:${port}${path}`, { headers: { authorization: `Bearer ${owner}`, 'x-store-id': svc.storeId } });
      assert.is(res.status, 404, `${host}${path}`);
      assert.match(await res.text(), '페이지를 찾을 수 없습니다', `${host}${path}: the sites' not-found page`);
    }
  }
  for (const path of paths) {
    const res = await siteFetch(svc, 'dev-store', path, { headers: { authorization: `Bearer ${owner}`, 'x-store-id': svc.storeId } });
    assert.equal([res.status, await res.text()], [404, `site page ${path}`], `the site's own code answers ${path}`);
  }
  // What a site uses on its own origin: the buyer API and the collector.
  const buyer = await siteFetch(svc, 'dev-store', '/storefront/v1/store', { headers: { 'x-store-id': svc.storeId } });
  assert.is(buyer.status, 200);
  assert.is((await siteFetch(svc, 'dev-store', '/_svc/analytics.js')).status, 200);
  // The address search (svc dev's stand-in) and the Korean webfont: its stylesheet and files, nothing else of the package.
  const postcode = await siteFetch(svc, 'dev-store', '/_svc/postcode.v2.js');
  assert.equal([postcode.status, postcode.headers.get('content-type')], [200, 'text/javascript; charset=utf-8']);
  assert.match(await postcode.text(), 'daum.Postcode = Postcode');
  const fontCss = await siteFetch(svc, 'dev-store', '/_svc/fonts/noto-sans-kr/index.css');
  const css = await fontCss.text();
  assert.equal([fontCss.status, fontCss.headers.get('content-type')], [200, 'text/css; charset=utf-8']);
  const file = /url\(\.\/(files\/[^)]+\.woff2)\)/.exec(css)![1];
  const font = await siteFetch(svc, 'dev-store', `/_svc/fonts/noto-sans-kr/${file}`);
  assert.equal([font.status, font.headers.get('content-type')], [200, 'font/woff2']);
  assert.ok((await font.arrayBuffer()).byteLength > 1000);
  assert.is((await siteFetch(svc, 'dev-store', '/_svc/fonts/noto-sans-kr/package.json')).status, 404);
  assert.is((await siteFetch(svc, 'dev-store', '/_svc/fonts/noto-sans-kr/../../package.json')).status, 404);
  // A name that is not loopback (DNS rebinding) is refused as before.
  const rebound = await localFetch(`http://attacker.example:${port}/v1/store`, { headers: { authorization: `Bearer ${owner}` } });
  assert.is(rebound.status, 421);
  ok(await svc.api('POST', `/v1/approval-requests/${held.approvalId}/reject`, { token: owner }));
});

test('svc serve with SVC_SITES_DOMAIN: sites on {slug}.{domain} only, never on the API host; without it, sites only on custom domains', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-serve-sites-'));
  const sitesDomain = 'shops.localhost';
  try {
    // The site is made in svc dev (its seed and job helpers), then served by svc serve from the same data dir.
    const dev = await startTestService({ dataDir, storefront: { sitesDomain } });
    let script: string;
    const { storeId } = dev;
    try {
      const devApi = apiClient(dev.url, { token: await longLivedToken(dev), storeId: dev.storeId });
      await createProduct(devApi, { name: '서브 머그컵', salePrice: 9000 });
      await createSite(devApi);
      await synced(devApi);
      ok(await devApi('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
      const home = await localFetch(`http://dev-store.${sitesDomain}:${new URL(dev.url).port}/`);
      script = /src="[^"]*?(assets\/client-[A-Z0-9]+\.js)"/.exec(await home.text())![1];
    } finally {
      await dev.close();
    }

    const serve = await startTestService({ dataDir, mode: 'serve', storefront: { sitesDomain } });
    try {
      const port = new URL(serve.url).port;
      const site = `http://dev-store.${sitesDomain}:${port}/`;
      assert.equal(sitesLine(serve.services), [
        `  sites          http://{slug}.${sitesDomain}:${port}/ and connected custom domains, each an origin of its own`,
      ]);
      const home = await localFetch(site);
      assert.is(home.status, 200);
      assert.match(await home.text(), '서브 머그컵');
      assert.is((await localFetch(`${site}${script}`)).status, 200);
      // A live shop's address search is the real postcode service's script.
      const postcode = await localFetch(`${site}_svc/postcode.v2.js`, { redirect: 'manual' });
      assert.equal([postcode.status, postcode.headers.get('location')], [302, 'https://t1.daumcdn.net/mapjsapi/bundle/postcode/prod/postcode.v2.js']);
      for (const rest of ['', script, '_preview/', `products/p1?ref=ad`]) {
        const res = await fetch(`${serve.url}/sites/dev-store/${rest}`, { redirect: 'manual' });
        assert.equal([res.status, res.headers.get('location'), await res.text()], [308, `${site}${rest}`, ''], `/sites/dev-store/${rest}`);
      }
      for (const path of ['/', `/${script}`, '/v1/openapi.json']) {
        const res = await localFetch(`http://nobody.${sitesDomain}:${port}${path}`);
        assert.is(res.status, 404, path);
        assert.match(await res.text(), '페이지를 찾을 수 없습니다');
      }
    } finally {
      await serve.close();
    }

    const customOnly = await startTestService({ dataDir, mode: 'serve' });
    try {
      assert.equal(sitesLine(customOnly.services), ['  sites          connected custom domains only (set SVC_SITES_DOMAIN for {slug}.{domain} addresses)']);
      const ownerApi = apiClient(customOnly.url, { token: await login(customOnly), storeId });
      assert.is(ok(await ownerApi('GET', '/v1/storefront/site')).url, null, 'no address until a custom domain is connected');
      fails(await ownerApi('POST', '/v1/storefront/site/preview-link', {}), 409, 'STOREFRONT_NO_ADDRESS');
      const res = await fetch(`${customOnly.url}/sites/dev-store/${script}`, { redirect: 'manual' });
      assert.is(
        fails({ status: res.status, body: await res.json(), headers: res.headers, data: null }, 404, 'ROUTE_NOT_FOUND').error.details.path,
        `/sites/dev-store/${script}`,
      );
      const formerHost = await localFetch(`http://dev-store.${sitesDomain}:${new URL(customOnly.url).port}/`);
      assert.not.match(await formerHost.text(), '서브 머그컵', 'the former sites domain names no site now');
    } finally {
      await customOnly.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
