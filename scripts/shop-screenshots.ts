/**
 * `npm run shots:shop`: the hosted shop as a buyer sees it, at 1280 and 390 px wide — home, product,
 * checkout (agreements, address search, business information), the sandbox pay page and the order's
 * thank-you page — written to docs/screenshots/shop-*.png from a fresh svc dev with the `basic` template.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser } from '../test/helpers/browser.js';
import { connectSandbox } from '../test/helpers/checkout.js';
import { apiClient, login, startTestService } from '../test/helpers/service.js';
import { createSite, synced } from '../test/helpers/site-builds.js';
import { longLivedToken } from '../test/helpers/members.js';

const out = join(import.meta.dirname, '..', 'docs', 'screenshots');
mkdirSync(out, { recursive: true });

const svc = await startTestService();
const browser = await launchBrowser();
try {
  await connectSandbox(svc.api);
  const api = apiClient(svc.url, { token: await longLivedToken(svc), storeId: svc.storeId });
  await createSite(api);
  await synced(api);
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const { page } = browser;
  page.setDefaultTimeout(20_000);

  for (const width of [1280, 390]) {
    const shot = async (name: string) => {
      // From the top: sticky parts (header, order summary) are drawn where the page is scrolled to.
      await page.evaluate(async () => {
        window.scrollTo(0, 0);
        await document.fonts.ready;
      });
      await page.screenshot({ path: join(out, `shop-${name}-${width}.png`), fullPage: true });
      console.log(`docs/screenshots/shop-${name}-${width}.png`);
    };
    await page.setViewportSize({ width, height: width > 600 ? 800 : 844 });
    // The seller's preview link: sandbox payments work while the shop is still private.
    const link = (await owner('POST', '/v1/storefront/site/preview-link', {})).data;
    await page.goto(link.url);
    await shot('home');
    await page.getByText('베이직 코튼 티셔츠').first().click();
    await page.waitForSelector('[data-product-form]');
    await page.selectOption('select[data-axis="1"]', 'L');
    await shot('product');
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
    await page.getByRole('button', { name: '주소 검색' }).click();
    await page.fill('[name="postcode-query"]', '테헤란로');
    await page.press('[name="postcode-query"]', 'Enter');
    await shot('address-search');
    await page.locator('[data-postcode-results] button').first().click();
    await page.fill('[name="shippingAddress.address2"]', '12층');
    await page.check('[name="agree.purchase"]');
    await page.check('[name="agree.privacy"]');
    await shot('checkout');
    await Promise.all([page.waitForURL(/\/pay\//), page.locator('[data-checkout-form] button[type=submit]').click()]);
    await shot('pay');
    await Promise.all([page.waitForURL(/\/_preview\//), page.getByRole('button', { name: '결제 승인' }).click()]);
    await page.waitForSelector('[data-order-no]');
    await shot('complete');
  }
} finally {
  await browser.close();
  await svc.close();
}
