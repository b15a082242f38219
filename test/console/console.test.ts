/**
 * The console (issue 33) driven in headless Chromium as a seller would: signs in through the service's own
 * OAuth page, sees the seeded store's home, makes a product with an add-on, sees the order `svc checkout try`
 * places appear live, runs the item's flow actions from the buttons, approves an agent's pending request and
 * redelivers a webhook — checking the page and then the API. Every page passes axe-core (no serious or
 * critical violation) at 1280 and 390 px.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchBrowser, type BrowserSession } from '../helpers/browser.js';
import { jsonOf, runCli } from '../helpers/cli.js';
import { openConsolePage, openNewProductForm, registerProduct, seriousViolations, signInToConsole } from '../helpers/console.js';
import { apiClient, createAccessToken, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { eventually, startReceiver } from '../helpers/webhook-receiver.js';
import { addMember } from '../helpers/invitations.js';
import { buyerApi, directSheet, startGuestPayment } from '../helpers/checkout.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';
import { createSite } from '../helpers/site-builds.js';

let svc: TestService;
let browser: BrowserSession;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let refusePaid = true;
/** Reads the store with an access token: the owner's 15-minute login does not outlive the clock's jumps. */
let reader: Api;

test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  // The receiver refuses ORDER.PAID until told otherwise: its delivery fails, so a person can redeliver it.
  receiver = await startReceiver((r) => (refusePaid && r.body.includes('"ORDER.PAID"') ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
  browser = await launchBrowser();
  const scopes = ['webhook:r', 'order:r', 'flow:r', 'product:r', 'settlement:r'];
  reader = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { name: 'reader', scopes }), storeId: svc.storeId });
});
test.after(async () => {
  await browser?.close();
  await receiver?.close();
  await svc?.close();
});

test('the console is served with a strict CSP from /console/, and its first page is small', async () => {
  const res = await fetch(`${svc.url}/console/orders`);
  assert.is(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, "script-src 'self'");
  assert.match(csp, "frame-ancestors 'none'");
  const html = await res.text();
  assert.not.match(html, /<script>(?!<)/, 'no inline script');
  const entry = /src="(\/console\/assets\/main-[^"]+\.js)"/.exec(html)![1];
  const script = await fetch(`${svc.url}${entry}`);
  assert.is(script.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  // The first page's JavaScript: the entry and the chunks it imports statically (pages and the graph come later).
  const source = await script.text();
  const chunks = [...source.matchAll(/import\s*(?:[\w{}$,\s*]+from\s*)?"\.\/(chunk-[\w-]+\.js)"/g)].map((m) => m[1]);
  let gzipped = gzipSync(source).length;
  for (const chunk of new Set(chunks)) gzipped += gzipSync(await (await fetch(`${svc.url}/console/assets/${chunk}`)).text()).length;
  assert.ok(gzipped <= 300 * 1024, `first page JavaScript ${gzipped} bytes gzip`);
  assert.not.match(source, 'react-flow', 'the graph library loads with its page only');
  assert.is((await fetch(`${svc.url}/console/assets/missing.js`)).status, 404);
});

test('svc serve serves the console only when asked, and its OAuth client redirects only to its own origin', async () => {
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const authorize = (origin: string, redirect: string) =>
    fetch(
      `${origin}/auth/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'svc-console', redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`,
    );
  const plain = await startTestService({ mode: 'serve', seed: false });
  const served = await startTestService({ mode: 'serve', seed: false, console: true });
  try {
    assert.is((await fetch(`${plain.url}/console/`)).status, 404);
    assert.is((await fetch(`${served.url}/console/`)).status, 200);
    const page = await (await authorize(served.url, `${served.url}/console/callback`)).text();
    assert.match(page, 'name="password"');
    for (const redirect of [`${plain.url}/console/callback`, `${served.url}/console/other`, 'https://evil.example/console/callback']) {
      assert.match(await (await authorize(served.url, redirect)).text(), '허용되지 않은 redirect_uri', redirect);
    }
  } finally {
    await plain.close();
    await served.close();
  }
});

test('a seller signs in, makes a product with an add-on, sees its order arrive live, moves it through its flow, approves an agent and redelivers a webhook', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 900 });
  await signInToConsole(page, svc.url);

  // Home: the seeded store, checkout open in test mode.
  await page.getByRole('heading', { name: 'Dev Store 홈' }).waitFor();
  assert.match(await page.getByTestId('checkout').innerText(), '결제 가능');

  // An AI agent asks to create a webhook: held for a person (spec 01 §5.6).
  const agent = await createAccessToken(svc, await login(svc), { name: 'console agent', scopes: ['webhook:rw', 'webhook:r'], agent: true });
  const held = await svc.api('POST', '/v1/webhooks', { token: agent, body: { url: receiver.url, eventTypes: ['ORDER.PAID', 'ORDER.FULFILLED'] } });
  assert.is(held.status, 202, JSON.stringify(held.body));
  await openConsolePage(page, '승인 요청');
  const card = page.locator(`[data-approval-id="${held.data.approvalId}"]`);
  await card.waitFor();
  assert.match(await card.innerText(), 'POST /v1/webhooks');
  // The preview's changes as a diff, per field: nothing before (이전 없음), the asked values after (이후 …).
  const diff = card.getByRole('region', { name: '바뀌는 내용' });
  assert.match(await diff.innerText(), '바뀌는 내용 2건');
  const urlLine = await diff.locator('li[data-field="url"]').innerText();
  assert.match(urlLine, /이전\s*없음/);
  assert.match(urlLine, `이후 ${receiver.url}`);
  assert.match(await diff.locator('li[data-field="url"] ins').innerText(), receiver.url);
  assert.match(await diff.locator('li[data-field="eventTypes"] ins').innerText(), '이후 ORDER.PAID, ORDER.FULFILLED');
  await card.getByRole('button', { name: '승인' }).click();
  await page.getByTestId('no-approvals').waitFor();
  const approval = (await svc.api('GET', `/v1/approval-requests/${held.data.approvalId}`)).data;
  assert.is(approval.status, 'SUCCEEDED');
  const [webhook] = (await svc.api('GET', '/v1/webhooks')).data.contents;
  assert.is(webhook.url, receiver.url);

  // A product with an add-on, made on the product form.
  await openNewProductForm(page, '콘솔 머그컵', 15000);
  await page.getByRole('button', { name: '추가 상품 넣기' }).click();
  await page.getByLabel('추가 상품명').fill('선물 포장');
  await page.getByLabel('선택지').fill('리본 포장');
  await page.getByLabel('추가 금액 (원)').fill('2000');
  const productId = await registerProduct(page);
  const product = (await svc.api('GET', `/v1/products/${productId}`)).data;
  assert.is(product.name, '콘솔 머그컵');
  assert.equal(
    product.addons.map((a: any) => [a.name, a.values.map((v: any) => [v.name, v.additionalPrice])]),
    [['선물 포장', [['리본 포장', 2000]]]],
  );

  // The order list is open while `svc checkout try` buys it: the row appears without a reload.
  await openConsolePage(page, '주문');
  const bought = jsonOf(
    await runCli(['checkout', 'try', '--product', productId, '--json'], { SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId }),
  );
  const row = page.locator(`tr[data-order-id="${bought.orderId}"]`);
  await row.waitFor({ timeout: 15_000 });
  assert.match(await row.innerText(), '콘솔 머그컵');

  // The item's flow, drawn and moved by its buttons until the seller has nothing left to do.
  await row.getByRole('link').click();
  await page.locator('.react-flow__node').first().waitFor();
  const item = page.locator('article.item').first();
  for (let step = 0; step < 6; step++) {
    const form = item.locator('.action-form').first();
    if ((await form.count()) === 0) break;
    const before = await item.getByTestId('flow-state').innerText();
    for (const field of await form.locator('input[type="text"], textarea').all()) await field.fill('콘솔에서 처리');
    await form.locator('button.primary').click();
    await eventually(async () => (await item.getByTestId('flow-state').innerText()) !== before, 10_000);
  }
  const shown = await item.getByTestId('flow-state').innerText();
  const itemId = bought.items[0].orderItemId;
  const flow = (await svc.api('GET', `/v1/order-items/${itemId}/flow`)).data;
  assert.is(shown, flow.label);
  assert.ok(['FULFILLED', 'DELIVERED'].includes(flow.coreStatus), `the item reached ${flow.coreStatus}`);
  assert.ok(!flow.actions.some((a: any) => a.actor === 'SELLER' && a.enabled), 'no seller action is left');

  // The webhook the agent asked for: ORDER.PAID failed at every attempt of its schedule (the clock moved
  // through it); the receiver is back, and the seller redelivers it from the page.
  await receiver.waitFor(1, 10_000);
  const paidDelivery = async () =>
    (await reader('GET', `/v1/webhooks/${webhook.webhookId}/deliveries`, { query: { eventType: 'ORDER.PAID' } })).data.contents.at(-1);
  for (const seconds of [60, 300, 1800, 7200]) {
    const attempts = (await paidDelivery()).attemptCount;
    await svc.advance(seconds);
    await eventually(async () => (await paidDelivery()).attemptCount > attempts, 10_000);
  }
  await eventually(async () => (await paidDelivery()).status === 'FAILED', 10_000);
  refusePaid = false;
  await openConsolePage(page, '웹훅');
  const hook = page.locator(`[data-webhook-id="${webhook.webhookId}"]`);
  const delivery = hook.locator('[data-delivery-id]').filter({ hasText: 'ORDER.PAID' }).first();
  await delivery.waitFor();
  const deliveryId = await delivery.getAttribute('data-delivery-id');
  await delivery.getByRole('button').first().click();
  const detail = delivery.getByTestId('delivery-detail');
  assert.match(await detail.innerText(), 'HTTP 500', await hook.innerText());
  assert.match(await detail.innerText(), 'Svc-Signature');
  assert.match(await delivery.getByTestId('delivery-status').innerText(), '실패');
  await detail.getByRole('button', { name: '다시 보내기' }).click();
  let list: any[] = [];
  const redelivered = await eventually(async () => {
    list = (await reader('GET', `/v1/webhooks/${webhook.webhookId}/deliveries`)).data.contents;
    return list.find((d: any) => d.redeliveryOf === deliveryId);
  }, 10_000).catch(async () => assert.unreachable(`no redelivery of ${deliveryId}: ${JSON.stringify(list)}; page: ${await detail.innerText()}`));
  assert.ok(redelivered, 'a redelivery of the delivery');
  await eventually(() => receiver.received.some((r) => r.body.includes('"ORDER.PAID"') && r.headers['svc-event-id'] === redelivered.eventId), 10_000);
  await hook.getByText('재전송').first().waitFor({ timeout: 10_000 });
});

test('the flows page draws a flow, checks its draft and steps through a simulation', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 900 });
  await openConsolePage(page, '주문 흐름');
  await page.locator('.react-flow__node').first().waitFor();
  // A default flow stays as shipped: the seller edits a copy.
  await page.getByRole('button', { name: '복사해서 새 흐름 만들기' }).click();
  await page.getByRole('heading', { name: /사본/ }).waitFor();
  await page.getByRole('button', { name: '검사' }).click();
  await page.getByTestId('check-result').waitFor();
  await page.getByLabel('시뮬레이션 단계 (JSON)').fill('[]');
  await page.getByRole('button', { name: '시뮬레이션' }).click();
  await page.locator('.trace li').first().waitFor();
  assert.match(await page.locator('.trace').innerText(), '시작');
  const copies = (await reader('GET', '/v1/commerce-flows')).data.contents.filter((f: any) => f.name.endsWith('사본'));
  assert.is(copies.length, 1);
});

test('the API log finds a request by its trace id', async () => {
  const { page } = browser;
  const answer = await reader('GET', '/v1/products', { query: { size: 1 } });
  const traceId = answer.headers.get('x-trace-id')!;
  await openConsolePage(page, 'API 로그');
  await page.getByLabel('traceId').fill(traceId);
  await page.getByRole('button', { name: '검색' }).click();
  await eventually(async () => (await page.locator('tbody tr').count()) === 1, 10_000);
  assert.match(await page.locator('tbody tr').innerText(), 'listProducts');
  assert.match(await page.locator('tbody tr').innerText(), traceId);
});

test('the dev tools page decides a sandbox payment the buyer left waiting', async () => {
  const { page } = browser;
  const product = (await reader('GET', '/v1/products', { query: { size: 1 } })).data.contents[0];
  const buyer = buyerApi(svc, svc.storeId);
  const sheet = await directSheet(buyer, { productId: product.productId, optionId: product.variants[0].variantId });
  const started = (await startGuestPayment(buyer, sheet)).data;
  await openConsolePage(page, '개발 도구');
  const row = page
    .locator('li')
    .filter({ hasText: String(started.orderNo ?? '') })
    .filter({ has: page.getByRole('button', { name: '승인' }) });
  await row.getByRole('button', { name: '승인' }).click();
  const payment = await eventually(async () => {
    const p = (await reader('GET', `/v1/payments/${started.paymentId}`)).data;
    return p?.status === 'APPROVED' && p;
  }, 10_000);
  assert.ok(payment.orderId, 'the approved payment made an order');
});

test('a product with a custom input the buyer fills is made on the product form', async () => {
  const { page } = browser;
  await openNewProductForm(page, '각인 텀블러', 22000);
  await page.getByRole('button', { name: '입력 항목 추가' }).click();
  await page.getByLabel('입력 항목명').fill('각인 문구');
  await page.getByLabel('입력 키 (영문)').fill('engraving');
  await page.getByLabel('안내 문구').fill('최대 20자');
  await page.getByLabel('최대 글자 수').fill('20');
  await page.getByLabel('필수 입력').check();
  const productId = await registerProduct(page);
  const product = (await reader('GET', `/v1/products/${productId}`)).data;
  assert.equal(product.customInputs, [
    { label: '각인 문구', placeholder: '최대 20자', maxLength: 20, required: true, key: 'engraving', type: 'TEXT', options: [] },
  ]);
  // The edit form reads it back.
  assert.is(await page.getByLabel('입력 키 (영문)').inputValue(), 'engraving');
});

test("a dated-stock product shows its month as a KST calendar, and a date's stock is changed on it", async () => {
  const { page } = browser;
  const writer = apiClient(svc.url, {
    token: await createAccessToken(svc, await login(svc), { name: 'calendar writer', scopes: ['product:rw', 'product:r'] }),
    storeId: svc.storeId,
  });
  const made = await writer('POST', '/v1/products', { body: { name: '날짜 체험권', salePrice: 30000, inventoryMode: 'DATED' } });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const productId = made.data.productId;
  await openConsolePage(page, '상품');
  await page.getByRole('link', { name: '날짜 체험권' }).click();
  const calendar = page.getByTestId('stock-calendar');
  await calendar.locator('td[data-date]').first().waitFor();
  // The month the page shows (its own KST today): stock for its 15th set through the API appears on the grid.
  const date = (await calendar.locator('td[data-date]').first().getAttribute('data-date'))!.slice(0, 8) + '15';
  const variantIds = made.data.variants.map((v: any) => v.variantId);
  const put = await writer('PUT', `/v1/products/${productId}/calendar`, { body: { variantIds, from: date, to: date, stock: 7 } });
  assert.is(put.status, 200, JSON.stringify(put.body));
  await openConsolePage(page, '상품');
  await page.getByRole('link', { name: '날짜 체험권' }).click();
  const input = page.getByLabel(`${date} 재고`);
  await eventually(async () => (await input.inputValue()) === '7', 10_000);
  await input.fill('4');
  await page.getByRole('button', { name: '날짜별 재고 저장' }).click();
  await page.getByText('날짜별 재고를 저장했습니다.').waitFor();
  const read = (await reader('GET', `/v1/products/${productId}/calendar`, { query: { from: date, to: date } })).data;
  assert.equal(
    read.variants[0].days.map((d: any) => [d.date, d.stock]),
    [[date, 4]],
  );
});

test('a STAFF member sees only what the role allows: no approvals, no API log', async () => {
  const { page } = browser;
  const staff = { email: `staff-${randomUUID().slice(0, 8)}@example.com`, password: 'password-1234' };
  assert.is((await svc.api('POST', '/auth/v1/signup', { token: null, body: { ...staff, name: '직원' } })).status, 201);
  await addMember(svc, { token: await login(svc), storeId: svc.storeId }, staff, 'STAFF');
  await signInToConsole(page, svc.url, '/console/', staff);
  const menu = await page.locator('nav[aria-label="메뉴"]').innerText();
  assert.match(menu, '주문');
  assert.not.match(menu, '승인 요청');
  assert.not.match(menu, 'API 로그');
  assert.match(await page.locator('select[aria-label="상점 선택"]').innerText(), 'STAFF');
  // Back to the owner for the pages below.
  await signInToConsole(page, svc.url);
});

test('the apps and storefront page lists an installed app, calls its tool from the form, and shows the site with its versions, build and domain', async () => {
  const { page } = browser;
  // A fresh login: the earlier tests moved the clock past the first one's 15 minutes.
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const handle = uniqueHandle('console');
  const manifest = {
    handle,
    name: '콘솔 도구 앱',
    scopes: ['store:r'],
    mcp: { tools: { echo: { description: '입력을 돌려줍니다', input: { word: { type: 'string', required: true }, times: { type: 'number' } } } } },
  };
  await deploy(owner, manifest, bundleFor(manifest, 'var __app = { tools: { echo: async (input) => ({ echoed: input.word, times: input.times }) } };'));
  const inst = await installApp(owner, handle);
  const { site, deployment } = await createSite(owner);
  assert.is(deployment.status, 'SUCCEEDED');

  await openConsolePage(page, '앱·스토어프런트');
  const card = page.locator(`[data-installation-id="${inst.installationId}"]`);
  await card.waitFor();
  assert.match(await card.innerText(), '콘솔 도구 앱');
  assert.match(await card.getByTestId('scopes').innerText(), 'store:r');
  const tool = card.locator('[data-tool="echo"]');
  await tool.getByLabel(/^word/).fill('안녕');
  await tool.getByLabel(/^times/).fill('3');
  await tool.getByRole('button', { name: '실행' }).click();
  const result = tool.getByTestId('tool-result');
  await result.waitFor();
  assert.equal(JSON.parse(await result.innerText()), { echoed: '안녕', times: 3 });
  // The run appears in the recent execution log, as the API records it.
  await card.getByTestId('app-runs').waitFor();
  assert.match(await card.getByTestId('app-runs').innerText(), 'echo');
  const activity = (await owner('GET', `/v1/apps/installations/${inst.installationId}/activity`)).data;
  assert.ok(activity.deliveries.some((d: any) => d.kind === 'TOOL' && d.name === 'echo' && d.status === 'SUCCEEDED'));

  // The storefront: its published version, the deployment's build with its log and dependency report, its address.
  const versions = page.getByTestId('site-versions');
  await versions.waitFor();
  assert.match(await versions.innerText(), '게시됨');
  const build = page.locator(`[data-build-id="${deployment.buildId}"]`);
  await build.waitFor();
  assert.match(await build.innerText(), '성공');
  assert.match(await build.innerText(), '의존성 보고서');
  assert.match(await page.getByTestId('site-domains').innerText(), site.slug);
  await page.getByRole('button', { name: '미리보기 링크 만들기' }).click();
  await page.getByText('미리보기 링크 (').waitFor();

  // A new version built from the page, published from its row, then rolled back: each through the API.
  await page.getByRole('button', { name: '현재 파일로 새 버전 빌드' }).click();
  await page.getByRole('button', { name: 'v2 게시' }).waitFor({ timeout: 60_000 });
  const [v2, v1] = (await owner('GET', '/v1/storefront/site/versions')).data.contents;
  assert.is(v2.number, 'v2');
  await page.getByRole('button', { name: 'v2 게시' }).click();
  await eventually(async () => (await owner('GET', '/v1/storefront/site')).data.publishedVersionId === v2.versionId, 10_000);
  await page.getByRole('button', { name: 'v1 게시' }).waitFor();
  await page.getByRole('button', { name: '이전 버전으로 되돌리기' }).click();
  await eventually(async () => (await owner('GET', '/v1/storefront/site')).data.publishedVersionId === v1.versionId, 10_000);
  await page.getByRole('button', { name: 'v2 게시' }).waitFor();
});

test('every page has no serious or critical accessibility violation, at 1280 and 390 px', async () => {
  const { page } = browser;
  const found: string[] = [];
  // An agent's request waits, so the approvals page is checked with its diff shown.
  const agent = await createAccessToken(svc, await login(svc), { name: 'axe agent', scopes: ['webhook:rw', 'webhook:r'], agent: true });
  const held = await svc.api('POST', '/v1/webhooks', { token: agent, body: { url: receiver.url, eventTypes: ['ORDER.PAID'] } });
  assert.is(held.status, 202, JSON.stringify(held.body));
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    for (const label of ['홈', '주문', '상품', '승인 요청', '주문 흐름', '웹훅', '앱·스토어프런트', '분석', 'API 로그', '개발 도구']) {
      await openConsolePage(page, label);
      if (label === '승인 요청') await page.getByRole('region', { name: '바뀌는 내용' }).first().waitFor();
      for (const v of await seriousViolations(page)) found.push(`${width}px ${label}: ${v}`);
    }
    // Pages reached from lists: an order (with its flow graph) and the product form.
    await openConsolePage(page, '주문');
    await page.locator('tbody a').first().click();
    await page.locator('.react-flow__node').first().waitFor();
    for (const v of await seriousViolations(page)) found.push(`${width}px order: ${v}`);
    await openConsolePage(page, '상품');
    await page.getByRole('link', { name: '상품 등록' }).click();
    await page.getByLabel('상품명').waitFor();
    await page.getByRole('button', { name: '입력 항목 추가' }).click();
    await page.getByLabel('입력 형식').selectOption('SELECT');
    for (const v of await seriousViolations(page)) found.push(`${width}px product form: ${v}`);
    // A dated-stock product's calendar.
    await openConsolePage(page, '상품');
    await page.getByRole('link', { name: '날짜 체험권' }).click();
    await page.getByTestId('stock-calendar').locator('td[data-date]').first().waitFor();
    for (const v of await seriousViolations(page)) found.push(`${width}px stock calendar: ${v}`);
  }
  assert.is((await svc.api('POST', `/v1/approval-requests/${held.data.approvalId}/reject`, { token: await login(svc) })).status, 200);
  assert.equal(found, []);
});

test.run();
