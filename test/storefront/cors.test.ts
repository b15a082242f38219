/**
 * The buyer API from storefronts on other origins (CORS): preflights, `Access-Control-Allow-Origin` only
 * for the store's `storefrontOrigins` (all while the list is empty), error answers readable too; and in a
 * real browser, a page on an allowed origin reads products and its collector's events are recorded, while
 * the same page on another origin is refused.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { launchBrowser, type BrowserSession } from '../helpers/browser.js';
import { apiClient, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { createProduct } from '../helpers/checkout.js';
import { longLivedToken } from '../helpers/members.js';

// A desktop Chrome's user agent: headless Chromium's own is rightly taken for a bot (its events not counted).
const USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let svc: TestService;
let api: Api;
let browser: BrowserSession;
let pages: Server;
let pagesPort: number;

/** A seller's own storefront page, served from its own origin, calling the buyer API and carrying the collector. */
const storefrontPage = () => `<!doctype html><html><body><h1>my shop</h1>
<script src="${svc.url}/_svc/analytics.js" data-store="${svc.storeId}" data-api="${svc.url}/storefront/v1"></script>
<script>
window.products = fetch('${svc.url}/storefront/v1/collections/all/products', { headers: { 'x-store-id': '${svc.storeId}' } })
  .then((r) => r.json()).then((j) => 'listed ' + j.data.totalElements, (e) => 'refused ' + e.name);
</script></body></html>`;

test.before(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchBrowser({ userAgent: USER_AGENT })]);
  api = apiClient(svc.url, { token: await longLivedToken(svc), storeId: svc.storeId });
  await createProduct(api, { name: '출처 머그컵', salePrice: 12000, stockQuantity: 5 });
  pages = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(storefrontPage()));
  await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
  pagesPort = (pages.address() as AddressInfo).port;
});
test.after(async () => {
  await browser?.close();
  pages?.close();
  await svc?.close();
});

const buyer = (origin: string, storeId: string | null = svc.storeId) =>
  fetch(`${svc.url}/storefront/v1/collections/all/products`, { headers: { origin, ...(storeId ? { 'x-store-id': storeId } : {}) } });
const setOrigins = async (origins: string[]) => {
  ok(await api('PATCH', '/v1/store', { body: { storefrontOrigins: origins } }));
  await svc.advance(61); // origin settings apply within a minute
};

test('preflight for any origin; an answer names the origin only when the store allows it; errors readable too', async () => {
  const preflight = await fetch(`${svc.url}/storefront/v1/events`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://www.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-svc-visitor, x-svc-session',
    },
  });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), 'https://www.example.com');
  assert.match(preflight.headers.get('access-control-allow-methods')!, 'POST');
  for (const name of ['content-type', 'x-svc-visitor', 'x-svc-session', 'x-store-id', 'authorization', 'idempotency-key'])
    assert.match(preflight.headers.get('access-control-allow-headers')!, name);
  assert.is(preflight.headers.get('access-control-allow-credentials'), null, 'tokens, never cookies');

  // An empty list allows every origin.
  const open = await buyer('https://anywhere.example.org');
  assert.is(open.status, 200);
  assert.is(open.headers.get('access-control-allow-origin'), 'https://anywhere.example.org');
  assert.match(open.headers.get('access-control-expose-headers')!, 'x-request-id');
  assert.match(open.headers.get('vary')!, 'origin');

  await setOrigins(['https://www.example.com']);
  assert.is((await buyer('https://www.example.com')).headers.get('access-control-allow-origin'), 'https://www.example.com');
  const foreign = await buyer('https://evil.example.net');
  assert.is(foreign.headers.get('access-control-allow-origin'), null, 'another origin cannot read the answer');
  // Another store's list does not open this one's, nor the other way round.
  const other = await newSellerWithStore(svc, 'sf-cors');
  assert.is((await buyer('https://evil.example.net', other.storeId)).headers.get('access-control-allow-origin'), 'https://evil.example.net');
  // An answer that concerns no store (no X-Store-Id) is readable, so the page sees what it did wrong.
  const missing = await buyer('https://evil.example.net', null);
  assert.is(missing.status, 400);
  assert.is(missing.headers.get('access-control-allow-origin'), 'https://evil.example.net');
  assert.is((await missing.json()).error.code, 'STORE_ID_REQUIRED');
  await setOrigins([]);
});

test('in a browser: a page on an allowed origin lists products and its visits are recorded; on another origin it is refused', async () => {
  const allowed = `http://localhost:${pagesPort}`;
  await setOrigins([allowed]);
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const pageViews = async () => ok(await owner('GET', '/v1/analytics/realtime')).summary.pageViews as number;
  const before = await pageViews();

  await browser.page.goto(`${allowed}/`);
  const listed = ok(await apiClient(svc.url, { storeId: svc.storeId })('GET', '/storefront/v1/collections/all/products')).totalElements;
  assert.is(await browser.page.evaluate(() => (window as any).products), `listed ${listed}`);
  await browser.page.goto('about:blank'); // the collector flushes as the page hides
  let after = before;
  for (let i = 0; i < 50 && after === before; i++) {
    await new Promise((r) => setTimeout(r, 100));
    after = await pageViews();
  }
  assert.is(after, before + 1, 'the page view from the allowed origin was recorded');

  // The same page from 127.0.0.1 is another origin, not in the list.
  await browser.page.goto(`http://127.0.0.1:${pagesPort}/`);
  assert.is(await browser.page.evaluate(() => (window as any).products), 'refused TypeError');
  await browser.page.goto('about:blank');
  await new Promise((r) => setTimeout(r, 500));
  assert.is(await pageViews(), after, 'nothing recorded from the other origin');
});

test.run();
