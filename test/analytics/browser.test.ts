/**
 * The collector in a real browser (headless Chromium, playwright-core) on the published `basic` site: a
 * visitor opens the shop through a preview link, moves with the History API and a hash change, searches,
 * buys as a guest; after the aggregation job the reports show the page views (not the hash move), the
 * search term, the funnel and the purchase amount.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { today } from '../../src/kernel/dates.js';
import { ok } from '../helpers/assert.js';
import { launchBrowser, type BrowserSession } from '../helpers/browser.js';
import { apiClient, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { longLivedToken } from '../helpers/members.js';
import { createSite, synced } from '../helpers/site-builds.js';
import { realTimeClearOfMidnight } from '../helpers/kst-midnight.js';

// A desktop Chrome's user agent: headless Chromium's own ("HeadlessChrome") is rightly taken for a bot.
const USER_AGENT = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let svc: TestService;
let api: Api;
let browser: BrowserSession;
let productId: string;

test.before(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchBrowser({ userAgent: USER_AGENT })]);
  await connectSandbox(svc.api);
  api = apiClient(svc.url, { token: await longLivedToken(svc), storeId: svc.storeId });
  ({ productId } = await createProduct(api, { name: '분석 머그컵', salePrice: 12000, stockQuantity: 9 }));
  await createSite(api);
  await synced(api);
});
test.after(async () => {
  await browser?.close();
  await svc?.close();
});

test('page views on load and History API moves (not hash moves), search, cart-less purchase: all in the reports', async () => {
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const link = ok(await owner('POST', '/v1/storefront/site/preview-link', {}));
  const { page } = browser;
  page.setDefaultTimeout(15_000);
  await realTimeClearOfMidnight(60);
  const day = today(svc.services.clock.now());
  await page.goto(link.url);
  await page.waitForFunction(() => Boolean((window as any).svc?.track));
  const base = new URL(page.url()).pathname;
  await page.evaluate(() => {
    history.pushState({}, '', 'moved');
    location.hash = '#only-a-hash';
    (window as any).svc.track('search', { query: '  Analytics  MUG ', resultCount: 1 });
  });
  await page.getByText('분석 머그컵').first().click();
  await page.waitForSelector('[data-product-form]');
  await page.getByRole('button', { name: '바로 구매' }).click();
  await page.waitForSelector('[data-checkout-form]');
  const fields: Record<string, string> = {
    'guest.name': '김구매',
    'guest.phone': '01012345678',
    'guest.email': 'buyer@example.com',
    'guest.orderPassword': 'pass-1234',
    'shippingAddress.receiverName': '김수령',
    'shippingAddress.phone': '01098765432',
    'shippingAddress.zipCode': '06236',
    'shippingAddress.address1': '서울 강남구 테헤란로 1',
  };
  for (const [name, value] of Object.entries(fields)) await page.fill(`[data-checkout-form] [name="${name}"]`, value);
  await page.check('[name="agree.purchase"]');
  await page.check('[name="agree.privacy"]');
  await Promise.all([page.waitForURL(/\/pay\//), page.locator('[data-checkout-form] button[type=submit]').click()]);
  await Promise.all([page.waitForURL(/\/_preview\//), page.getByRole('button', { name: '결제 승인' }).click()]);
  const orderId = await page.locator('[data-order-complete]').getAttribute('data-order-complete');
  assert.ok(orderId && (await page.locator('[data-order-no]').textContent())?.trim());
  // The browser's own caps: 30 per name per minute, 100 per page in all.
  await page.evaluate(() => {
    for (let i = 0; i < 40; i++) (window as any).svc.track('tap', {});
    for (let i = 0; i < 120; i++) (window as any).svc.track(`name_${i % 60}`, {});
    (window as any).svc.flush();
  });
  await page.waitForTimeout(500);
  const named = async (like: string) =>
    Number(await svc.services.db.$client.prepare('SELECT count(*) FROM analytics_events WHERE store_id = ? AND name LIKE ?').pluck().get(svc.storeId, like));
  assert.is(await named('tap'), 30);
  assert.is((await named('tap')) + (await named('name_%')), 100 - 1, 'the complete page had sent its page view');

  const visitors = Number(
    await svc.services.db.$client
      .prepare("SELECT count(DISTINCT visitor_id) FROM analytics_events WHERE store_id = ? AND name = 'page'")
      .pluck()
      .get(svc.storeId),
  );
  assert.is(visitors, 1, 'one visitor across full page loads (the svc_vid cookie)');
  const order = ok(await api('GET', `/v1/orders/${orderId}`));
  await svc.advance(600);
  const query = { from: day, to: day, includeTest: true };
  const pages = ok(await owner('GET', '/v1/analytics/pages', { query }));
  const paths = pages.rows.map((r: any) => r.path);
  assert.ok(paths.includes(base), `${base} in ${paths}`);
  assert.ok(paths.includes(`${base}moved`), `${base}moved in ${paths}`);
  assert.ok(
    paths.some((p: string) => p.includes('/products/')),
    `a product page in ${paths}`,
  );
  assert.is(pages.rows.find((r: any) => r.path === `${base}moved`).pageViews, 1, 'the hash move is no page view');
  const search = ok(await owner('GET', '/v1/analytics/search', { query }));
  assert.equal(
    search.rows.map((r: any) => [r.term, r.searches, r.purchases]),
    [['analytics mug', 1, 1]],
  );
  const checkout = ok(await owner('GET', '/v1/analytics/checkout', { query }));
  const steps = Object.fromEntries(checkout.rows.map((r: any) => [r.step, r.sessions]));
  assert.equal(steps, { SESSION: 1, PRODUCT_VIEW: 1, CART_ADD: 0, CHECKOUT_START: 1, PURCHASE: 1 });
  const overview = ok(await owner('GET', '/v1/analytics/overview', { query }));
  assert.is(overview.summary.purchases, 1);
  assert.is(overview.summary.purchaseAmount, order.amounts.totalAmount);
  assert.is(overview.summary.engagedSessions, 1);
  const products = ok(await owner('GET', '/v1/analytics/products', { query }));
  const row = products.rows.find((r: any) => r.productId === productId);
  assert.equal([row.productViews, row.purchases, row.purchaseAmount], [1, 1, 12000]);
  assert.ok(row.clickThroughRate > 0);
});

test.run();
