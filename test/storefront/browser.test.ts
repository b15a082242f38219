/**
 * A real browser on the published `basic` site: headless Chromium from the npm package
 * @sparticuz/chromium (no browser download), driven by playwright-core. A buyer opens the shop, picks a
 * product option, buys as a guest, approves in the sandbox pay page and lands on the order-complete page;
 * the seller then finds the order in GET /v1/orders.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { launchBrowser, type BrowserSession } from '../helpers/browser.js';
import { siteUrlOf } from '../helpers/sites.js';
import { apiClient, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { longLivedToken } from '../helpers/members.js';
import { createSite, synced } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let browser: BrowserSession;

test.before(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchBrowser()]);
  await connectSandbox(svc.api);
  api = apiClient(svc.url, { token: await longLivedToken(svc), storeId: svc.storeId });
  await createProduct(api, {
    name: '브라우저 머그컵',
    salePrice: 15000,
    stockQuantity: undefined,
    options: [{ name: '색상', values: ['화이트', '네이비'] }],
    variants: [
      { optionValues: ['화이트'], stockQuantity: 5 },
      { optionValues: ['네이비'], stockQuantity: 7, additionalAmount: 2000 },
    ],
  });
  await createSite(api);
  await synced(api);
});
test.after(async () => {
  await browser?.close();
  await svc?.close();
});

test('a buyer picks an option, pays in the sandbox pay page and lands on the order-complete page', async () => {
  // The seller tries the published version through a preview link: sandbox payments work while the shop is private.
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const link = ok(await owner('POST', '/v1/storefront/site/preview-link', {}));
  const { page } = browser;
  page.setDefaultTimeout(15_000);
  await page.goto(link.url);
  assert.is(page.url(), `${siteUrlOf(svc, 'dev-store')}_preview/`, 'the site on an origin of its own (http://dev-store.localhost:{port})');
  await page.getByText('브라우저 머그컵').first().click();
  await page.waitForSelector('[data-product-form]');
  // Each value names the price of the combination it makes, not a `+2,000원` that reads as if values added up.
  assert.equal(await page.locator('select[data-axis="0"] option').allTextContents(), ['화이트 · 15,000원', '네이비 · 17,000원']);
  await page.selectOption('select[data-axis="0"]', '네이비');
  await page.waitForFunction(() => document.querySelector('[data-stock]')?.textContent?.includes('네이비'));
  await page.getByRole('button', { name: '바로 구매' }).click();
  await page.waitForSelector('[data-checkout-form]');
  const fields: Record<string, string> = {
    'guest.name': '김구매',
    'guest.phone': '01012345678',
    'guest.email': 'buyer@example.com',
    'guest.orderPassword': 'pass-1234',
    'shippingAddress.receiverName': '김수령',
    'shippingAddress.phone': '01098765432',
  };
  for (const [name, value] of Object.entries(fields)) await page.fill(`[data-checkout-form] [name="${name}"]`, value);
  // The address comes from the address search (svc dev's offline stand-in of the postcode service).
  await page.getByRole('button', { name: '주소 검색' }).click();
  await page.fill('[name="postcode-query"]', '테헤란로 152');
  await page.press('[name="postcode-query"]', 'Enter');
  await page.locator('[data-postcode-results] button').first().click();
  assert.is(await page.inputValue('[name="shippingAddress.zipCode"]'), '06236');
  assert.is(await page.inputValue('[name="shippingAddress.address1"]'), '서울 강남구 테헤란로 152 (강남파이낸스센터)');
  await page.fill('[name="shippingAddress.address2"]', '12층');
  // The shop shows the seller's business information (the seeded store's sample) in its footer.
  const footer = await page.locator('[data-business-info]').innerText();
  for (const shown of ['데브스토어(예시)', '홍길동', '123-45-67890', '제2026-서울강남-0000호', '02-000-0000'])
    assert.ok(footer.includes(shown), `${shown} in ${footer}`);
  // No payment before the buyer agrees to the purchase and to the guest's privacy terms.
  await page.locator('[data-checkout-form] button[type=submit]').click();
  await page.waitForFunction(() => document.querySelector('[data-error-for="agree.purchase"]')?.textContent);
  assert.is(await page.locator('[data-error-for="agree.privacy"]').textContent(), '동의해 주셔야 주문할 수 있습니다.');
  assert.ok(page.url().includes('/checkout'), 'still on the checkout page');
  await page.check('[name="agree.purchase"]');
  await page.check('[name="agree.privacy"]');
  await Promise.all([page.waitForURL(/\/pay\//), page.locator('[data-checkout-form] button[type=submit]').click()]);
  await Promise.all([page.waitForURL(`${siteUrlOf(svc, 'dev-store')}_preview/**`), page.getByRole('button', { name: '결제 승인' }).click()]);
  const orderNumber = (await page.locator('[data-order-no]').textContent({ timeout: 15_000 }))?.trim();
  assert.match(orderNumber ?? '', /^\d{8}-\d{6}$/, 'the order-complete page shows the order number a buyer quotes');

  const orders = ok(await api('GET', '/v1/orders'));
  const order = orders.contents.find((o: any) => o.orderNo === Number(orderNumber!.replace('-', '')));
  assert.ok(order, `order ${orderNumber} in ${JSON.stringify(orders.contents.map((o: any) => o.orderNo))}`);
  assert.equal([order.testPayment, order.buyer.name, order.items[0].productName, order.items[0].optionValues], [true, '김구매', '브라우저 머그컵', ['네이비']]);
  assert.equal(
    [order.shippingAddress.zipCode, order.shippingAddress.address1, order.shippingAddress.address2],
    ['06236', '서울 강남구 테헤란로 152 (강남파이낸스센터)', '12층'],
  );
});

test.run();
