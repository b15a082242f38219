/**
 * The `basic` template's product page with add-on groups and custom inputs (issue 30): the server-rendered
 * form shows them, and "바로 구매" without the browser script sends them with the direct item.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { siteFetch, localFetch } from '../helpers/sites.js';
import { apiClient, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { createProduct } from '../helpers/checkout.js';
import { longLivedToken } from '../helpers/members.js';
import { createSite, synced } from '../helpers/site-builds.js';
import { launchBrowser, type BrowserSession } from '../helpers/browser.js';

let svc: TestService;
let api: Api;
let cookie: string;
let browser: BrowserSession;

test.before(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchBrowser()]);
  api = apiClient(svc.url, { token: await longLivedToken(svc), storeId: svc.storeId });
  await createSite(api);
  await synced(api);
  // The seller's preview of the published version: the shop stays private, so sandbox checkout works.
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const link = ok(await owner('POST', '/v1/storefront/site/preview-link', {}));
  cookie = (await localFetch(link.url)).headers.get('set-cookie')!.split(';')[0];
});
test.after(async () => {
  await browser?.close();
  await svc?.close();
});

test('the product page renders add-ons and inputs, and a direct purchase carries them to the sheet', async () => {
  const { productId, optionId } = await createProduct(api, {
    name: '각인 텀블러',
    salePrice: 25000,
    stockQuantity: 5,
    addons: [{ name: '선물 포장', required: false, values: [{ name: '포장함', additionalPrice: 3000 }] }],
    customInputs: [{ key: 'engraving', label: '각인 문구', placeholder: '최대 10자', maxLength: 10, required: true, type: 'TEXT', options: [] }],
  });
  const page = await siteFetch(svc, 'dev-store', `_preview/products/${productId}`, { headers: { cookie } });
  assert.is(page.status, 200);
  const html = await page.text();
  assert.match(html, 'name="addon.선물 포장"');
  assert.match(html, '포장함 (+3,000원)');
  assert.match(html, /<input type="text" name="input.engraving" value="" maxlength="10" placeholder="최대 10자" required>/);

  const form = new URLSearchParams({ productId, quantity: '1', intent: 'buy', 'addon.선물 포장': '포장함', 'input.engraving': '사랑해' });
  const bought = await siteFetch(svc, 'dev-store', `_preview/products/${productId}`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  assert.is(bought.status, 303, await bought.text());
  const checkoutId = new URL(bought.headers.get('location')!).searchParams.get('id')!;
  const sheet = ok(await apiClient(svc.url, { storeId: svc.storeId })('GET', `/storefront/v1/checkout/${checkoutId}`));
  assert.equal([sheet.items[0].optionId, sheet.items[0].unitPrice], [optionId, 28000]);
  assert.equal(sheet.items[0].customInputs, [{ key: 'engraving', label: '각인 문구', value: '사랑해' }]);

  const checkout = await siteFetch(svc, 'dev-store', `_preview/checkout?id=${checkoutId}`, { headers: { cookie } });
  assert.match(await checkout.text(), '선물 포장: 포장함 · 각인 문구: 사랑해');
});

test('in the browser, picked add-ons raise the shown price and reach the cart with the typed text', async () => {
  const { productId } = await createProduct(api, {
    name: '각인 머그',
    salePrice: 12000,
    stockQuantity: 5,
    addons: [{ name: '쇼핑백', required: true, values: [{ name: '있음', additionalPrice: 500 }] }],
    customInputs: [{ key: 'engraving', label: '각인 문구', placeholder: null, maxLength: 10, required: false, type: 'TEXT', options: [] }],
  });
  const { page } = browser;
  page.setDefaultTimeout(15_000);
  // A preview link opens once: the browser gets one of its own.
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  await page.goto(ok(await owner('POST', '/v1/storefront/site/preview-link', {})).url);
  const home = page.url();
  await page.goto(`${home}products/${productId}`);
  await page.waitForSelector('[data-product-form]');
  await page.selectOption('select[name="addon.쇼핑백"]', '있음');
  await page.waitForFunction(() => document.querySelector('[data-price]')?.textContent?.includes('12,500원'));
  await page.fill('input[name="input.engraving"]', '축하해');
  await page.getByRole('button', { name: '장바구니 담기' }).click();
  await page.waitForFunction(() => document.querySelector('[data-message]')?.textContent?.includes('장바구니에 담았습니다'));
  await page.goto(`${home}cart`);
  await page.waitForSelector('[data-item]');
  const line = await page.locator('[data-item]').first().textContent();
  assert.match(line ?? '', '쇼핑백: 있음 · 각인 문구: 축하해');
  assert.match(line ?? '', '12,500원');
});

test.run();
