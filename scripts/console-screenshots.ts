/**
 * `npm run console:shots`: every page of the console (issue 33) at 1280 and 390 px wide, written to
 * docs/screenshots/console/ from a fresh svc dev: a product with an add-on, two sandbox orders (one moved
 * along its flow), a webhook with a failed delivery, an agent's request waiting for approval, an installed app
 * with a tool, and the hosted site from its template.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { bundleFor, deploy, installApp } from '../test/helpers/apps.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { buy, connectSandbox } from '../test/helpers/checkout.js';
import { openConsolePage, signInToConsole } from '../test/helpers/console.js';
import { createAccessToken, login, startTestService } from '../test/helpers/service.js';
import { createSite } from '../test/helpers/site-builds.js';
import { startReceiver } from '../test/helpers/webhook-receiver.js';

const out = join(import.meta.dirname, '..', 'docs', 'screenshots', 'console');
mkdirSync(out, { recursive: true });

const svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
const receiver = await startReceiver((r) => (r.body.includes('"ORDER.PAID"') ? { status: 500, body: 'temporarily down' } : { status: 200, body: 'ok' }));
const browser = await launchBrowser();
try {
  const { api } = svc;
  await connectSandbox(api);
  await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.PAID', 'ORDER.FULFILLED'] } });
  const product = (
    await api('POST', '/v1/products', {
      body: {
        name: '콘솔 머그컵',
        salePrice: 15000,
        stockQuantity: 40,
        addons: [{ name: '선물 포장', required: false, values: [{ name: '리본 포장', additionalPrice: 2000 }] }],
        customInputs: [{ label: '각인 문구', placeholder: '최대 20자', maxLength: 20, required: false, key: 'engraving', type: 'TEXT', options: [] }],
      },
    })
  ).data;
  const dated = (await api('POST', '/v1/products', { body: { name: '날짜 체험권', salePrice: 30000, inventoryMode: 'DATED' } })).data;
  const first = await buy(svc, svc.storeId, { productId: product.productId, optionId: product.variants[0].variantId });
  await buy(svc, svc.storeId, { productId: product.productId, optionId: product.variants[0].variantId, quantity: 2 });
  const [item] = (await api('GET', `/v1/orders/${first.done.orderId}`)).data.items;
  await api('POST', `/v1/order-items/${item.orderItemId}/actions/FULFILL`, {
    body: { input: { note: '매장에서 수령' } },
    headers: { 'idempotency-key': 'shots-1' },
  });
  const agent = await createAccessToken(svc, await login(svc), { name: '재고 도우미', scopes: ['webhook:rw', 'webhook:r'], agent: true });
  await api('POST', '/v1/webhooks', { token: agent, body: { url: `${receiver.url}?agent=1`, eventTypes: ['PRODUCT.OUT_OF_STOCK'] } });

  const app = {
    handle: 'gift-message',
    name: '선물 메시지',
    scopes: ['store:r', 'order:r'],
    mcp: {
      tools: { preview: { description: '선물 메시지 카드를 미리 봅니다', input: { message: { type: 'string', required: true }, lines: { type: 'number' } } } },
    },
  };
  await deploy(api, app, bundleFor(app, 'var __app = { tools: { preview: async (input) => ({ card: input.message, lines: input.lines ?? 1 }) } };'));
  const installed = await installApp(api, app.handle);
  await api('POST', `/v1/apps/installations/${installed.installationId}/tools/preview`, { body: { input: { message: '생일 축하해요' } } });
  await createSite(api);

  const { page } = browser;
  page.setDefaultTimeout(20_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await signInToConsole(page, svc.url);
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width > 600 ? 800 : 844 });
    const shot = async (name: string) => {
      await page.evaluate(async () => {
        window.scrollTo(0, 0);
        await document.fonts.ready;
      });
      await page.screenshot({ path: join(out, `${name}-${width}.png`), fullPage: true });
      console.log(`docs/screenshots/console/${name}-${width}.png`);
    };
    await openConsolePage(page, '홈');
    await shot('home');
    await openConsolePage(page, '주문');
    await shot('orders');
    await page.locator(`tr[data-order-id="${first.done.orderId}"] a`).click();
    await page.locator('.react-flow__node').first().waitFor();
    await page.waitForTimeout(300);
    await shot('order');
    await openConsolePage(page, '상품');
    await shot('products');
    await page.getByRole('link', { name: '콘솔 머그컵' }).click();
    await page.getByTestId('addon').waitFor();
    await shot('product');
    await openConsolePage(page, '상품');
    await page.getByRole('link', { name: dated.name }).click();
    await page.getByTestId('stock-calendar').locator('td[data-date]').first().waitFor();
    await shot('product-calendar');
    await openConsolePage(page, '승인 요청');
    await shot('approvals');
    await openConsolePage(page, '주문 흐름');
    await page.locator('.react-flow__node').first().waitFor();
    await page.waitForTimeout(300);
    await shot('flows');
    await openConsolePage(page, '분석');
    await page.locator('.chart canvas').waitFor();
    await shot('analytics');
    await openConsolePage(page, 'API 로그');
    await shot('api-logs');
    await openConsolePage(page, '웹훅');
    await page.locator('[data-delivery-id] button').first().click();
    await page.getByTestId('delivery-detail').waitFor();
    await shot('webhooks');
    await openConsolePage(page, '앱·스토어프런트');
    await page.getByTestId('site-versions').waitFor();
    await shot('apps');
    await openConsolePage(page, '개발 도구');
    await shot('dev-tools');
  }
} finally {
  await browser.close();
  await receiver.close();
  await svc.close();
}
