import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addDays, today } from '../../src/kernel/dates.js';
import { kstDayStart } from '../../src/modules/orders/queries.js';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, directSheet, simulate, startGuestPayment } from '../helpers/checkout.js';
import { clearOfMidnight } from '../helpers/kst-midnight.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const MIN = 60_000;

let svc: TestService;
/** Midnight (KST) that starts yesterday: crafted streams sit around it, safely in the accepted past. */
let t0: number;
let yesterday: string;

test.before(async () => {
  svc = await startTestService();
  // The tests before the retention one move the clock by under an hour in all.
  await clearOfMidnight(svc, 3600);
  const now = svc.services.clock.now();
  yesterday = addDays(today(now), -1);
  t0 = kstDayStart(yesterday);
});
test.after(async () => {
  await svc.close();
});

const ev = (name: string, at: number, extra: Record<string, unknown> = {}) => ({ name, at: new Date(at).toISOString(), path: '/', ...extra });
const visit = (visitor: string, ua = CHROME) => ({ 'x-svc-visitor': `visitor-${visitor}`, 'x-svc-session': `session-${visitor}`, 'user-agent': ua });

async function send(storeId: string, visitor: string, events: unknown[], headers: Record<string, string> = {}) {
  const res = await apiClient(svc.url, { storeId })('POST', '/storefront/v1/events', { body: { events }, headers: { ...visit(visitor), ...headers } });
  return res;
}

async function store() {
  const seller = await newSellerWithStore(svc, 'an');
  return seller;
}

/** Lets the 10-minute job recompute. */
const aggregate = () => svc.advance(600);

const report = async (
  api: Api,
  name: string,
  query: Record<string, string | boolean> = { from: addDays(yesterday, -1), to: today(svc.services.clock.now()) },
) => ok(await api('GET', `/v1/analytics/${name}`, { query }));

test('sessions: a 29-minute gap continues the session, a 31-minute gap starts one; engaged by 2 pages; visitors per day', async () => {
  const { api, storeId } = await store();
  const a = t0 + 2 * 3600_000;
  assert.is((await send(storeId, 'a', [ev('page', a, { path: '/x' }), ev('page', a + 29 * MIN, { path: '/y' })])).status, 204);
  assert.is((await send(storeId, 'b', [ev('page', a), ev('page', a + 31 * MIN)])).status, 204);
  await aggregate();
  const overview = await report(api, 'overview', { from: yesterday, to: yesterday });
  assert.equal(
    { ...overview.summary, dwellSeconds: undefined },
    {
      sessions: 3,
      engagedSessions: 1,
      visitors: 2,
      pageViews: 4,
      dwellSeconds: undefined,
      productViews: 0,
      cartAdds: 0,
      checkoutStarts: 0,
      purchases: 0,
      purchaseAmount: 0,
      clickThroughRate: null,
    },
  );
  assert.is(overview.summary.dwellSeconds, 29 * 60);
  assert.ok(overview.lastComputedAt);
  assert.is(overview.rows.length, 1);
  const pages = await report(api, 'pages', { from: yesterday, to: yesterday });
  assert.equal(
    pages.rows.find((r: any) => r.path === '/x'),
    { path: '/x', sessions: 1, visitors: 1, pageViews: 1, dwellSeconds: 29 * 60 },
  );
});

test('sessions: another campaign starts a session; sources come from the first page utm, then the referrer, DIRECT without either', async () => {
  const { api, storeId } = await store();
  const a = t0 + 3 * 3600_000;
  await send(storeId, 'c', [
    ev('page', a, { utm: { source: 'naver', medium: 'cpc', campaign: 'spring' } }),
    ev('page', a + MIN, { utm: { source: 'naver', medium: 'cpc', campaign: 'summer' } }),
    ev('page', a + 2 * MIN),
  ]);
  await send(storeId, 'd', [ev('page', a, { referrer: 'https://www.instagram.com/p/1?x=2' })]);
  await send(storeId, 'e', [ev('page', a)]);
  await aggregate();
  const sources = await report(api, 'sources', { from: yesterday, to: yesterday });
  assert.equal(
    sources.rows.map((r: any) => [r.source, r.sessions]),
    [
      ['naver', 2],
      ['DIRECT', 1],
      ['www.instagram.com', 1],
    ],
  );
  assert.is(sources.summary.sessions, 4);
  const devices = await report(api, 'devices', { from: yesterday, to: yesterday });
  assert.equal(
    devices.rows.map((r: any) => [r.device, r.sessions]),
    [['DESKTOP', 4]],
  );
});

test('a session across midnight (KST) counts on both dates; dwell is capped at 30 minutes per page; bots are excluded and counted', async () => {
  const { api, storeId } = await store();
  await send(storeId, 'm', [ev('page', t0 - 5 * MIN), ev('page', t0 + 5 * MIN)]);
  const b = t0 + 5 * 3600_000;
  await send(storeId, 'dw', [ev('page', b, { path: '/long' }), ev('search', b + 25 * MIN, { query: 'Socks', resultCount: 3 }), ev('page_hide', b + 50 * MIN)]);
  await send(storeId, 'bot', [ev('page', b), ev('page', b + MIN)], { 'user-agent': GOOGLEBOT });
  await aggregate();
  const overview = await report(api, 'overview', { from: addDays(yesterday, -1), to: yesterday });
  assert.equal(
    overview.rows.map((r: any) => [r.date, r.sessions]),
    [
      [addDays(yesterday, -1), 1],
      [yesterday, 2],
    ],
  );
  assert.is(overview.summary.sessions, 3);
  assert.is(overview.excludedBotSessions, 1);
  const pages = await report(api, 'pages', { from: yesterday, to: yesterday });
  assert.is(pages.rows.find((r: any) => r.path === '/long').dwellSeconds, 30 * 60);
  // 10 s or more of dwell engages a one-page session.
  assert.is(overview.rows[1].engagedSessions, 2);
});

test('search terms are lower-cased and whitespace-normalised; zero-result terms listed', async () => {
  const { api, storeId } = await store();
  const a = t0 + 4 * 3600_000;
  await send(storeId, 's', [
    ev('search', a, { query: '  Wool   Socks ', resultCount: 2 }),
    ev('search', a + MIN, { query: 'wool socks', resultCount: 2 }),
    ev('search', a + 2 * MIN, { query: 'Unicorn', resultCount: 0 }),
  ]);
  await aggregate();
  const search = await report(api, 'search', { from: yesterday, to: yesterday });
  assert.equal(
    search.rows.map((r: any) => [r.term, r.searches, r.sessions]),
    [
      ['wool socks', 2, 1],
      ['unicorn', 1, 1],
    ],
  );
  assert.equal(search.zeroResultTerms, [{ term: 'unicorn', searches: 1 }]);
});

test('server-recorded steps: cart add, checkout start and purchase with the visit headers; funnel without earlier steps; search-then-purchase; payment results', async () => {
  // A fresh store: the owner's login token of the seeded one has expired with the clock moves.
  const { api, storeId } = await store();
  await connectSandbox(api);
  const { productId, optionId } = await createProduct(api, {});
  const item = { productId, optionId };
  const headers = visit('buyer1');
  const buyer = apiClient(svc.url, { storeId });
  const now = svc.services.clock.now();
  const day = today(now);
  await send(storeId, 'buyer1', [ev('page', now, { path: '/products/x' }), ev('search', now, { query: 'Wool', resultCount: 1 })]);
  ok(await buyer('POST', '/storefront/v1/cart/items', { body: { ...item, quantity: 1 }, headers }), 201);
  const sheet = ok(await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { ...item, quantity: 1 } }, headers }), 201);
  const start = ok(await startGuestPayment(buyerApi(svc, storeId), sheet), 201);
  ok(await simulate(api, start.paymentId, 'APPROVE'));
  // Without the headers nothing is recorded.
  await directSheet(buyerApi(svc, storeId), item);
  const realtime = ok(await api('GET', '/v1/analytics/realtime'));
  assert.equal({ ...realtime.summary }, { visitors: 1, pageViews: 1, productViews: 0, cartAdds: 1, checkoutStarts: 1, purchases: 0, purchaseAmount: 0 });
  const withTest = ok(await api('GET', '/v1/analytics/realtime', { query: { includeTest: true } }));
  assert.is(withTest.summary.purchases, 1);
  assert.is(withTest.summary.purchaseAmount, sheet.amounts.totalAmount);

  // A cart add alone: a server-only session, source UNKNOWN, in the funnel without a product view.
  ok(await buyer('POST', '/storefront/v1/cart/items', { body: { ...item, quantity: 1 }, headers: visit('cartonly') }), 201);
  await aggregate();
  const checkout = await report(api, 'checkout', { from: day, to: day, includeTest: true });
  assert.equal(
    checkout.rows.map((r: any) => [r.step, r.sessions]),
    [
      ['SESSION', 2],
      ['PRODUCT_VIEW', 0],
      ['CART_ADD', 2],
      ['CHECKOUT_START', 1],
      ['PURCHASE', 1],
    ],
  );
  assert.is(checkout.paymentResults.find((r: any) => r.result === 'COMPLETED').count >= 1, true);
  const live = await report(api, 'checkout', { from: day, to: day });
  assert.is(live.rows.find((r: any) => r.step === 'PURCHASE').sessions, 0);
  const sources = await report(api, 'sources', { from: day, to: day });
  assert.ok(sources.rows.some((r: any) => r.source === 'UNKNOWN' && r.sessions === 1));
  const search = await report(api, 'search', { from: day, to: day, includeTest: true });
  assert.equal(
    search.rows.map((r: any) => [r.term, r.purchases, r.purchaseAmount]),
    [['wool', 1, sheet.amounts.totalAmount]],
  );
  const productsReport = await report(api, 'products', { from: day, to: day, includeTest: true });
  const row = productsReport.rows.find((r: any) => r.productId === item.productId);
  assert.is(row.cartAdds, 2);
  assert.is(row.purchases, 1);
  assert.is(row.purchaseAmount, sheet.items[0].amount);
});

test('limits: 50 events per request, 120 per visitor per minute recorded, 32 KB; over them still 204', async () => {
  const { storeId } = await store();
  const now = svc.services.clock.now();
  const count = async (visitor: string) =>
    Number(
      await svc.services.db.$client
        .prepare('SELECT count(*) FROM analytics_events WHERE store_id = ? AND visitor_id = ?')
        .pluck()
        .get(storeId, `visitor-${visitor}`),
    );
  const many = (n: number) => Array.from({ length: n }, () => ev('product_view', now, { productId: 'prd_x' }));
  assert.is((await send(storeId, 'cap', many(60))).status, 204);
  assert.is(await count('cap'), 50);
  assert.is((await send(storeId, 'cap', many(50))).status, 204);
  const third = await send(storeId, 'cap', many(50));
  assert.is(third.status, 204);
  assert.is(await count('cap'), 120);
  assert.is((await send(storeId, 'cap', many(1))).status, 204);
  assert.is(await count('cap'), 120);
  const big = [ev('page', now, { path: `/${'a'.repeat(2000)}` })];
  for (let i = 0; i < 20; i++) big.push(ev('page', now, { path: `/${'b'.repeat(2000)}` }));
  assert.is((await send(storeId, 'big', big)).status, 204);
  assert.is(await count('big'), 0);
  // Denied consent is discarded; events the server records itself cannot be sent.
  await send(storeId, 'deny', [ev('page', now, { consent: 'denied' }), ev('purchase', now)]);
  assert.is(await count('deny'), 0);
  fails(await send(storeId, 'bad', [{ name: 'page' }]), 400, 'VALIDATION_FAILED');
});

test('origins: with storefrontOrigins set, other origins get 403 ORIGIN_NOT_ALLOWED; listed ones and no origin pass', async () => {
  const { api, storeId } = await store();
  ok(await api('PATCH', '/v1/store', { body: { storefrontOrigins: ['https://shop.example.com'] } }));
  const now = svc.services.clock.now();
  fails(await send(storeId, 'o1', [ev('page', now)], { origin: 'https://evil.example.com' }), 403, 'ORIGIN_NOT_ALLOWED');
  assert.is((await send(storeId, 'o2', [ev('page', now)], { origin: 'https://shop.example.com' })).status, 204);
  // A page outside the list without an Origin header: dropped, still 204.
  assert.is((await send(storeId, 'o3', [ev('page', now)], { referer: 'https://evil.example.com/x' })).status, 204);
  const count = Number(await svc.services.db.$client.prepare('SELECT count(*) FROM analytics_events WHERE store_id = ?').pluck().get(storeId));
  assert.is(count, 1);
});

test('origins: a change of storefrontOrigins applies within a minute', async () => {
  const { api, storeId } = await store();
  const now = () => svc.services.clock.now();
  assert.is((await send(storeId, 'p1', [ev('page', now())], { origin: 'https://elsewhere.example.com' })).status, 204);
  ok(await api('PATCH', '/v1/store', { body: { storefrontOrigins: ['https://shop.example.com'] } }));
  await svc.advance(61);
  fails(await send(storeId, 'p2', [ev('page', now())], { origin: 'https://elsewhere.example.com' }), 403, 'ORIGIN_NOT_ALLOWED');
});

test('retention: raw events older than 90 days are deleted by the job', async () => {
  const { storeId } = await store();
  await send(storeId, 'old', [ev('page', svc.services.clock.now())]);
  const count = async () => Number(await svc.services.db.$client.prepare('SELECT count(*) FROM analytics_events WHERE store_id = ?').pluck().get(storeId));
  assert.is(await count(), 1);
  await svc.advance(89 * 86400);
  assert.is(await count(), 1);
  await svc.advance(2 * 86400);
  assert.is(await count(), 0);
});

test('periods: inclusive, at most 92 days (RANGE_TOO_WIDE), INVALID_PARAMETER, default last 30 days; scope and tenancy', async () => {
  const { api } = await store();
  const day = today(svc.services.clock.now());
  const overview = ok(await api('GET', '/v1/analytics/overview'));
  assert.is(overview.rows.length, 30);
  assert.is(overview.to, day);
  fails(await api('GET', '/v1/analytics/products', { query: { from: addDays(day, -92), to: day } }), 400, 'RANGE_TOO_WIDE');
  ok(await api('GET', '/v1/analytics/products', { query: { from: addDays(day, -91), to: day } }));
  fails(await api('GET', '/v1/analytics/pages', { query: { from: day, to: addDays(day, -1) } }), 400, 'INVALID_PARAMETER');
  fails(await api('GET', '/v1/analytics/search', { query: { from: '2026-02-30', to: day } }), 400, 'INVALID_PARAMETER');
  const other = await store();
  assert.ok([403, 404].includes((await other.api('GET', '/v1/analytics/overview', { storeId: svc.storeId })).status));
});

test('the collector is served at /_svc/analytics.js', async () => {
  const res = await fetch(`${svc.url}/_svc/analytics.js`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /javascript/);
  const body = await res.text();
  assert.match(body, /svc_vid/);
  assert.match(body, /pushState/);
});

test.run();
