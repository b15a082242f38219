/**
 * Hosted storefront sites over HTTP: templates and slugs, creation and its refusals, the deployment that
 * publishes the template's first version, serving (coming soon, SSR, static files with caching,
 * suspension), visibility and what going public changes (checkout availability, the agent exemption),
 * and tenancy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { jsonOf, runCli } from '../helpers/cli.js';
import { longLivedApi, longLivedToken } from '../helpers/members.js';
import { localFetch, siteFetch, siteUrlOf } from '../helpers/sites.js';
import { createSite, synced } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let site: any;
/** The published version's hashed client bundle (`assets/client-….js`), found by the static-files test. */
let clientScript: string;
const OPERATOR_TOKEN = 'op-secret-for-tests-0123456789abcdef';
test.before(async () => {
  svc = await startTestService({ operatorToken: OPERATOR_TOKEN });
  await connectSandbox(svc.api);
  api = await longLivedApi(svc);
});
test.after(async () => {
  await svc.close();
});

/** A page or file of the seeded store's site, on the site's own origin (`http://dev-store.localhost:{port}/`). */
const visit = (path: string, init: RequestInit = {}) => siteFetch(svc, 'dev-store', path, init);

test('templates and slug rules; creation opens a deployment that publishes the template', async () => {
  const templates = ok(await api('GET', '/v1/storefront/templates')).contents;
  assert.ok(
    templates.some((t: any) => t.templateId === 'basic' && t.templateVersion === '1'),
    JSON.stringify(templates),
  );
  const before = ok(await api('GET', '/v1/storefront/site'));
  assert.equal(before, { enabled: true, siteId: null });
  fails(await api('GET', '/v1/storefront/site/deployment'), 404, 'STOREFRONT_SITE_NOT_FOUND');

  for (const [slug, available] of [
    ['dev-store', true],
    ['ab', false],
    ['-shop', false],
    ['shop-', false],
    ['sh--op', false],
    ['Shop', false],
    ['a'.repeat(31), false],
    ['my-shop-2', true],
  ] as const) {
    const answer = ok(await api('GET', '/v1/storefront/slug-availability', { query: { slug } }));
    assert.is(answer.available, available, slug);
    if (!available) assert.is(answer.reason, 'INVALID');
  }
  fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'nope' } }), 404, 'TEMPLATE_NOT_FOUND');
  const bad = fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'Bad--Slug' } }), 400, 'VALIDATION_FAILED');
  assert.is(bad.error.fieldErrors[0].field, 'slug');

  const created = await createSite(api);
  site = created.site;
  assert.is(site.slug, 'dev-store', 'the slug defaults to the store code');
  assert.is(site.url, siteUrlOf(svc, 'dev-store'), 'an origin of its own: http://dev-store.localhost:{port}/');
  assert.is(site.visibility, 'COMING_SOON');
  assert.is(created.deployment.status, 'SUCCEEDED', JSON.stringify(created.deployment));
  assert.equal(
    created.deployment.steps.map((s: any) => `${s.name}:${s.status}`),
    ['SITE:SUCCEEDED', 'UPLOAD:SUCCEEDED', 'PUBLISH:SUCCEEDED'],
  );
  const synced1 = await synced(api);
  assert.is(synced1.templateVersion, '1');
  const versions = ok(await api('GET', '/v1/storefront/site/versions')).contents;
  assert.is(versions.length, 1);
  assert.is(versions[0].number, 'v1');
  assert.is(versions[0].published, true);
  assert.ok(versions[0].sizes.serverBundle > 1000);

  fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'other-slug' } }), 409, 'STOREFRONT_SITE_EXISTS');
  fails(await api('POST', '/v1/storefront/site/template', { body: {} }), 409, 'TEMPLATE_CHANGE_NOT_SUPPORTED');
  fails(await api('POST', '/v1/storefront/site/deployment/retry'), 409, 'STOREFRONT_DEPLOYMENT_NOT_RETRYABLE');
  const store = ok(await api('GET', '/v1/store'));
  assert.is(store.storefrontUrl, siteUrlOf(svc, 'dev-store'));
});

test('another store: slug taken, no access to this site; STAFF and tokens without the scope are refused', async () => {
  const other = await newSellerWithStore(svc, 'sf-other');
  const otherApi = apiClient(svc.url, { token: other.token, storeId: other.storeId });
  const taken = ok(await otherApi('GET', '/v1/storefront/slug-availability', { query: { slug: 'dev-store' } }));
  assert.equal([taken.available, taken.reason], [false, 'TAKEN']);
  fails(await otherApi('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'dev-store' } }), 409, 'STOREFRONT_SLUG_TAKEN');
  assert.equal(ok(await otherApi('GET', '/v1/storefront/site')), { enabled: true, siteId: null });
  fails(await otherApi('GET', '/v1/storefront/site/versions'), 404, 'STOREFRONT_SITE_NOT_FOUND');
  fails(await api('GET', '/v1/storefront/site', { storeId: other.storeId }), 403, 'NOT_A_MEMBER');
  fails(
    await otherApi('PUT', '/v1/storefront/site/visibility', { storeId: svc.storeId, body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }),
    403,
    'NOT_A_MEMBER',
  );
  const scoped = await createAccessToken(svc, await login(svc), { name: 'products only', scopes: ['product:rw'], storeScope: { all: true } });
  fails(await api('GET', '/v1/storefront/site', { token: scoped }), 403, 'INSUFFICIENT_ROLE');
});

test('creation limit: 3 sites in 30 days per store, counted across disables', async () => {
  // A service of its own: the clock moves by a month here.
  const own = await startTestService();
  try {
    const seller = await newSellerWithStore(own, 'sf-limit');
    // Logins last 15 minutes and the clock moves by days: a fresh one for each step.
    const fresh = () => login(own, seller.email, seller.password).then((token) => apiClient(own.url, { token, storeId: seller.storeId }));
    for (const slug of ['limit-one', 'limit-two', 'limit-three']) {
      const sellerApi = await fresh();
      ok(await sellerApi('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug } }), 201);
      ok(await sellerApi('POST', '/v1/storefront/site/disable', { body: { confirmSlug: slug } }));
      await own.advance(86_400);
    }
    const refused = fails(
      await (
        await fresh()
      )('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'limit-four' } }),
      409,
      'STOREFRONT_SITE_CREATE_LIMIT',
    );
    assert.is(refused.error.details.limit, 3);
    await own.advance(28 * 86_400);
    ok(await (await fresh())('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'limit-four' } }), 201);
  } finally {
    await own.close();
  }
});

test("sites at {slug}.{SVC_SITES_DOMAIN}: pages, and the buyer API on the site's own host", async () => {
  const hosted = await startTestService({ storefront: { sitesDomain: 'shops.localhost' } });
  try {
    const hostedApi = apiClient(hosted.url, { token: await longLivedToken(hosted), storeId: hosted.storeId });
    await connectSandbox(hosted.api);
    await createProduct(hostedApi, { name: '호스트 머그컵', salePrice: 8000 });
    const { site: created } = await createSite(hostedApi);
    const port = new URL(hosted.url).port;
    assert.is(created.url, `http://dev-store.shops.localhost:${port}/`);
    await synced(hostedApi);
    ok(await hostedApi('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await localFetch(`http://dev-store.shops.localhost:${port}${path}`, { headers });
      return { status: res.status, body: await res.text() };
    };
    const home = await get('/');
    assert.is(home.status, 200);
    assert.match(home.body, '호스트 머그컵');
    const script = /src="[^"]*?(assets\/client-[A-Z0-9]+\.js)"/.exec(home.body)![1];
    const file = await get(`/${script}`);
    assert.is(file.status, 200, "static files on the site's own host");
    assert.match(file.body, 'localStorage');
    assert.match(home.body, `http://dev-store.shops.localhost:${port}/storefront/v1`, 'the page calls the buyer API on its own origin');
    const store = await get('/storefront/v1/store', { 'x-store-id': hosted.storeId });
    assert.is(store.status, 200, store.body);
    assert.is(JSON.parse(store.body).data.storeId, hosted.storeId);
    const moved = await fetch(`${hosted.url}/sites/dev-store/products/p1?ref=ad`, { redirect: 'manual' });
    assert.is(moved.status, 308, "the service's own host serves no site");
    assert.is(moved.headers.get('location'), `http://dev-store.shops.localhost:${port}/products/p1?ref=ad`);
  } finally {
    await hosted.close();
  }
});

test('hosting closed in svc serve until the setting opens it', async () => {
  const closed = await startTestService({ storefront: { hostingOpen: false } });
  try {
    assert.equal(ok(await closed.api('GET', '/v1/storefront/site')), { enabled: false, siteId: null });
    fails(await closed.api('POST', '/v1/storefront/site', { body: { templateId: 'basic' } }), 403, 'STOREFRONT_HOSTING_DISABLED');
  } finally {
    await closed.close();
  }
});

test('serving: coming soon until public; going public needs an on-sale product and the expected visibility', async () => {
  const soon = await visit('');
  assert.is(soon.status, 200);
  assert.match(await soon.text(), '곧 문을 엽니다');
  assert.is((await siteFetch(svc, 'no-such-site')).status, 404);

  fails(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'PUBLIC' } }), 409, 'STOREFRONT_SITE_CHANGED');
  const sampleOnly = fails(
    await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }),
    409,
    'STOREFRONT_NOT_READY',
  );
  assert.ok(sampleOnly);
  const storeBefore = ok(await api('GET', '/v1/store'));
  assert.equal([storeBefore.checkoutAvailable, storeBefore.checkoutMode], [true, 'TEST']);

  await createProduct(api, { name: '공개용 머그컵', salePrice: 12000 });
  const open = ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
  assert.is(open.visibility, 'PUBLIC');
  const home = await visit('');
  assert.is(home.status, 200);
  const html = await home.text();
  assert.match(html, '공개용 머그컵', "the SSR page lists the store's products through the buyer API");

  const store = ok(await api('GET', '/v1/store'));
  assert.equal([store.checkoutAvailable, store.checkoutMode, store.checkoutUnavailableReason], [false, null, 'PAYMENT_NOT_LIVE']);
  const buyerStore = ok(await apiClient(svc.url, { storeId: svc.storeId })('GET', '/storefront/v1/store'));
  assert.is(buyerStore.checkoutUnavailableReason, 'PAYMENT_NOT_LIVE');

  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'COMING_SOON', expectedVisibility: 'PUBLIC' } }));
  assert.match(await (await visit('')).text(), '곧 문을 엽니다');
  const back = ok(await api('GET', '/v1/store'));
  assert.is(back.checkoutMode, 'TEST', 'private again: sandbox checkout works again');
});

test('static files: hashed client bundles are immutable, public files revalidate by ETag; only while visitors may see the site', async () => {
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
  const html = await (await visit('')).text();
  const script = /src="[^"]*?(assets\/client-[A-Z0-9]+\.js)"/.exec(html)?.[1];
  assert.ok(script, `the page references its hashed client bundle: ${html.slice(0, 400)}`);
  clientScript = script;
  const js = await visit(script);
  assert.is(js.status, 200);
  assert.is(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.match(js.headers.get('content-type')!, 'text/javascript');
  assert.is(js.headers.get('x-content-type-options'), 'nosniff');
  const bytes = (await js.arrayBuffer()).byteLength;
  assert.is(Number(js.headers.get('content-length')), bytes);
  const head = await visit(script, { method: 'HEAD' });
  assert.equal([head.status, head.headers.get('content-length'), (await head.arrayBuffer()).byteLength], [200, String(bytes), 0]);
  assert.is((await visit(`${script}?v=2`)).status, 200, 'a query string is no part of the file name');
  const posted = await visit(script, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
  assert.not.match(posted.headers.get('cache-control') ?? '', 'immutable', 'other methods go to the server code');
  assert.is((await visit(`_preview/${script}`)).status, 403, 'preview paths need the preview trust');

  const files = ok(await api('GET', '/v1/storefront/site/files')).contents.map((f: any) => f.path);
  const css = files.find((p: string) => p.startsWith('public/') && p.endsWith('.css')).slice('public/'.length);
  const first = await visit(css);
  assert.is(first.status, 200);
  const etag = first.headers.get('etag')!;
  assert.match(first.headers.get('cache-control')!, 'must-revalidate');
  const again = await visit(css, { headers: { 'if-none-match': etag } });
  assert.is(again.status, 304);

  // Files are the site's too: a site visitors may not see gives none.
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'COMING_SOON', expectedVisibility: 'PUBLIC' } }));
  const hidden = await visit(script);
  assert.equal([hidden.status, hidden.headers.get('cache-control')], [200, 'no-store']);
  assert.match(await hidden.text(), '곧 문을 엽니다');
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
  assert.is((await visit(script)).headers.get('cache-control'), 'public, max-age=31536000, immutable');
});

test('suspension by the operator (svc operator, the operator API): a suspension page for visitors, every change refused', async () => {
  const operator = (args: string[], token = OPERATOR_TOKEN) => runCli(['operator', ...args, '--json'], { SVC_API_URL: svc.url, SVC_OPERATOR_TOKEN: token });
  const wrong = await operator(['sites', 'suspend', 'dev-store'], 'not-the-operator-secret-0123456789abcdef');
  assert.is(wrong.exitCode, 1, wrong.stderr);
  assert.is(jsonOf(wrong).code, 'UNAUTHORIZED');
  // A store's own token is no operator secret.
  fails(
    await apiClient(svc.url, { token: svc.ownerToken })('POST', '/_operator/v1/storefront/suspension', { body: { slug: 'dev-store' } }),
    401,
    'UNAUTHORIZED',
  );
  assert.is((await visit('')).status, 200, 'refused attempts changed nothing');
  const unknown = await operator(['sites', 'suspend', 'no-such-site']);
  assert.equal([unknown.exitCode, jsonOf(unknown).code], [1, 'STOREFRONT_SITE_NOT_FOUND']);

  const suspended = await operator(['sites', 'suspend', 'dev-store', '--reason', 'POLICY_VIOLATION']);
  assert.is(suspended.exitCode, 0, suspended.stderr);
  assert.equal(jsonOf(suspended), { slug: 'dev-store', status: 'SUSPENDED', reason: 'POLICY_VIOLATION' });
  const page = await visit('');
  assert.is(page.status, 503);
  assert.match(await page.text(), '정지');
  assert.is((await visit(clientScript)).status, 503, 'no files of a suspended site either');
  const shown = ok(await api('GET', '/v1/storefront/site'));
  assert.equal([shown.status, shown.suspension], ['SUSPENDED', { reason: 'POLICY_VIOLATION' }]);
  fails(
    await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'COMING_SOON', expectedVisibility: 'PUBLIC' } }),
    409,
    'STOREFRONT_SITE_NOT_ACTIVE',
  );
  fails(await api('POST', '/v1/storefront/site/versions'), 409, 'STOREFRONT_SITE_NOT_ACTIVE');
  assert.is(jsonOf(await operator(['sites', 'resume', 'dev-store'])).status, 'ACTIVE');
  assert.is((await visit('')).status, 200);
  // svc dev's helper does the same.
  ok(await api('POST', '/_dev/v1/storefront/suspension', { body: { slug: 'dev-store' } }));
  assert.is((await visit('')).status, 503);
  ok(await api('DELETE', '/_dev/v1/storefront/suspension', { body: { slug: 'dev-store' } }));
});

test('a suspended store: its site shows the suspension page, storefront changes and site creation are refused', async () => {
  ok(await api('POST', '/_dev/v1/storefront/store-suspension', { body: { storeId: svc.storeId, reason: 'FRAUD_REVIEW' } }));
  assert.is((await visit('')).status, 503);
  assert.is((await visit(clientScript)).status, 503);
  const refused = fails(
    await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'COMING_SOON', expectedVisibility: 'PUBLIC' } }),
    409,
    'STORE_SUSPENDED',
  );
  assert.is(refused.error.details.reason, 'FRAUD_REVIEW');
  fails(await api('POST', '/v1/storefront/site/versions'), 409, 'STORE_SUSPENDED');
  const other = await newSellerWithStore(svc, 'sf-suspended');
  const byOperator = await runCli(['operator', 'stores', 'suspend', other.storeId, '--json'], { SVC_API_URL: svc.url, SVC_OPERATOR_TOKEN: OPERATOR_TOKEN });
  assert.equal(jsonOf(byOperator), { storeId: other.storeId, suspended: true, reason: 'OPERATOR' });
  fails(await other.api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'suspended-shop' } }), 409, 'STORE_SUSPENDED');
  ok(await api('DELETE', '/_dev/v1/storefront/store-suspension', { body: { storeId: svc.storeId } }));
  assert.is((await visit('')).status, 200);
});

test.run();
