/**
 * Whether a store can take payment (spec 02 §7, spec 01 §5.5): a public shop with sandbox-only gateways
 * offers no payment options and refuses payment with 409 PAYMENT_NOT_CONFIGURED (NOT_LIVE) — except in
 * the seller's preview browser, which still pays in the sandbox; the templates say why instead of
 * offering to pay. And a gateway window that cannot be prepared is 503 PAYMENT_PROVIDER_UNAVAILABLE with
 * no switch to another gateway (the sandbox's dev-only "next window fails" switch).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, directSheet, fails, ok, RETURN_URL, startGuestPayment } from '../helpers/checkout.js';
import { longLivedApi } from '../helpers/members.js';
import { localFetch, siteFetch } from '../helpers/sites.js';
import { createSite, synced } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let guest: Api;
let item: { productId: string; optionId: string };

/** Sets the site's visibility (each test starts from where it needs to be, whatever the one before left). */
async function visibility(to: 'PUBLIC' | 'COMING_SOON') {
  const from = ok(await api('GET', '/v1/storefront/site')).visibility;
  if (from !== to) ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: to, expectedVisibility: from } }));
}

test.before(async () => {
  svc = await startTestService();
  // The seeded store comes with pg_one connected in sandbox mode: only sandbox gateways are in use.
  api = await longLivedApi(svc);
  guest = buyerApi(svc, svc.storeId);
  await createSite(api);
  await synced(api);
  const product = await createProduct(api, { name: '공개 머그컵', salePrice: 12000 });
  item = { productId: product.productId, optionId: product.optionId };
});
test.after(async () => {
  await svc.close();
});

test('public with sandbox-only gateways: no options on the sheet, payment start and new attempts 409 PAYMENT_NOT_CONFIGURED (NOT_LIVE)', async () => {
  // A payment opened while the site was still private…
  const early = await directSheet(guest, item);
  const opened = ok(await startGuestPayment(guest, early), 201);
  assert.is(opened.testPayment, true);

  await visibility('PUBLIC');
  const store = ok(await guest('GET', '/storefront/v1/store'));
  assert.equal([store.checkoutAvailable, store.checkoutMode, store.checkoutUnavailableReason], [false, null, 'PAYMENT_NOT_LIVE']);

  const sheet = await directSheet(guest, item);
  assert.equal(sheet.paymentOptions, [], 'the sheet offers nothing to pay with');
  const refused = fails(await startGuestPayment(guest, sheet, { option: { pg: 'pg_one', method: 'CARD' } }), 409, 'PAYMENT_NOT_CONFIGURED');
  assert.is(refused.error.details.reason, 'NOT_LIVE');
  // …cannot open another sandbox window either.
  const retry = fails(
    await guest('POST', `/storefront/v1/payments/${opened.paymentId}/attempts`, { body: { option: { pg: 'pg_one', method: 'CARD' }, returnUrl: RETURN_URL } }),
    409,
    'PAYMENT_NOT_CONFIGURED',
  );
  assert.is(retry.error.details.reason, 'NOT_LIVE');

  // The hosted templates say why instead of offering to pay.
  const page = await siteFetch(svc, 'dev-store', `checkout?id=${sheet.checkoutId}`);
  const html = await page.text();
  assert.is(page.status, 200, html.slice(0, 400));
  assert.match(html, '실제 결제를 받을 준비');
  assert.not.match(html, 'type="submit" class="button wide"', 'no pay button');
  await visibility('COMING_SOON');
});

test("the seller's preview browser still pays in the sandbox while the shop is public", async () => {
  await visibility('PUBLIC');
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const link = ok(await owner('POST', '/v1/storefront/site/preview-link', {}));
  const trust = (await localFetch(link.url)).headers.get('set-cookie')!;
  assert.match(trust, /; Path=\/;/, 'the trust reaches the buyer API on the site origin too');
  const cookie = trust.split(';')[0];
  const preview: Api = (method, path, options = {}) => guest(method, path, { ...options, headers: { ...options.headers, cookie } });

  const store = ok(await preview('GET', '/storefront/v1/store'));
  assert.equal([store.checkoutAvailable, store.checkoutMode, store.checkoutUnavailableReason], [true, 'TEST', null]);
  const sheet = await directSheet(preview, item);
  assert.is(sheet.testPayment, true);
  assert.ok(sheet.paymentOptions.some((o: any) => o.key === 'pg_one:CARD'));
  const start = ok(await startGuestPayment(preview, sheet), 201);
  assert.is(start.testPayment, true);

  // The preview pages render with the same trust; a forged one is a visitor's.
  const page = await siteFetch(svc, 'dev-store', `_preview/checkout?id=${sheet.checkoutId}`, { headers: { cookie } });
  assert.match(await page.text(), '신용·체크카드');
  const forged = `${cookie.slice(0, -3)}abc`;
  const visitor = ok(await guest('GET', '/storefront/v1/store', { headers: { cookie: forged } }));
  assert.is(visitor.checkoutUnavailableReason, 'PAYMENT_NOT_LIVE');
  await visibility('COMING_SOON');
});

test("the seller's editing environment is the seller's too: its pages and buyer API still pay in the sandbox", async () => {
  await visibility('PUBLIC');
  const env = ok(await api('POST', '/v1/storefront/site/editing'));
  const store = await (await localFetch(`${env.url}storefront/v1/store`)).json();
  assert.equal([store.data.checkoutAvailable, store.data.checkoutMode], [true, 'TEST'], JSON.stringify(store));
  const sheet = await (
    await localFetch(`${env.url}storefront/v1/checkout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ directItem: { ...item, quantity: 1 } }),
    })
  ).json();
  assert.ok(
    sheet.data.paymentOptions.some((o: any) => o.key === 'pg_one:CARD'),
    JSON.stringify(sheet),
  );
  assert.match(await (await localFetch(`${env.url}checkout?id=${sheet.data.checkoutId}`)).text(), '신용·체크카드', 'server-rendered pages too');
  await visibility('COMING_SOON');
});

test('a window that cannot be prepared: 503 PAYMENT_PROVIDER_UNAVAILABLE, no switch to the other gateway, the payment stays open', async () => {
  await visibility('COMING_SOON');
  // Payment settings are for people on the store platform.
  await connectSandbox(svc.api, 'pg_two');
  const failNext = (pg: string) => api('POST', '/_dev/v1/payment-settings/sandbox-window-failure', { body: { storeId: svc.storeId, pg } });
  ok(await failNext('pg_one'));
  fails(await api('POST', '/_dev/v1/payment-settings/sandbox-window-failure', { body: { storeId: 'st_nope', pg: 'pg_one' } }), 404, 'NOT_FOUND');

  const sheet = await directSheet(guest, item);
  assert.ok(
    sheet.paymentOptions.some((o: any) => o.pg === 'pg_two'),
    'another gateway is in use',
  );
  const res = await startGuestPayment(guest, sheet, { option: { pg: 'pg_one', method: 'CARD' } });
  const body = fails(res, 503, 'PAYMENT_PROVIDER_UNAVAILABLE');
  assert.is(body.error.details.optionUnavailable, true);
  const paymentId = body.error.details.paymentId;
  const status = ok(await guest('GET', `/storefront/v1/payments/${paymentId}`));
  assert.equal([status.status, status.result], ['OPEN', 'FAILED'], 'this window failed; the payment stays open for another');
  assert.is(status.lastFailure.optionUnavailable, true);
  const detail = ok(await api('GET', `/v1/payments/${paymentId}`));
  assert.equal(
    detail.attempts.map((a: any) => [a.provider, a.status]),
    [['pg_one', 'WINDOW_ERROR']],
    'no automatic attempt at pg_two',
  );

  // The switch fails one window: the buyer may try again.
  const again = ok(
    await guest('POST', `/storefront/v1/payments/${paymentId}/attempts`, { body: { option: { pg: 'pg_one', method: 'CARD' }, returnUrl: RETURN_URL } }),
    201,
  );
  assert.ok(again.payUrl);
});

test.run();
