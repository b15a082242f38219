/**
 * A live purchase end to end against the local fake of the gateways' server APIs (part A's
 * test/helpers/fake-gateway.ts): the store passes the live gate through checkout itself, then a buyer
 * pays live — the window through the gateway SDK page, the return through /pay/{id}/return.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { siteUrlOf } from '../helpers/sites.js';
import { startFakeGateway, type FakeGateway } from '../helpers/fake-gateway.js';
import { storeStillPrivate } from '../../src/modules/stores/usage.js';
import { ADDRESS, GUEST, PG_ONE_TEST, buyerApi, createProduct, directSheet, fails, ok, simulate, startGuestPayment } from '../helpers/checkout.js';

const PG_ONE_LIVE = { environment: 'LIVE', clientKey: 'live_ck_D5GePWvyJnrK0W0k6q8gLzN97Eoq', secretKey: 'live_sk_zXLkKEypNArWmo50nX3lmeaxYG5R' };
const SHOP_RETURN = 'https://shop.example.com/checkout/done';

let svc: TestService;
let fake: FakeGateway;
let api: Api;
let guest: Api;
let storeId: string;
let item: { productId: string; optionId: string };

test.before(async () => {
  fake = await startFakeGateway(PG_ONE_LIVE.secretKey, 'portone-live-secret-0123456789abcdef');
  process.env.SVC_PG_ONE_API_URL = fake.url;
  svc = await startTestService();
  const seller = await newSellerWithStore(svc, 'livebuy');
  api = seller.api;
  storeId = seller.storeId;
  guest = buyerApi(svc, storeId);
  const p = await createProduct(api, { name: '라이브 상품', salePrice: 15000 });
  item = { productId: p.productId, optionId: p.optionId };
});
test.after(async () => {
  await svc.close();
  await fake.close();
});

test('the live gate opens through sandbox checkout: a sandbox payment, then an automatic cancel as the refund', async () => {
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_TEST }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: true } }));
  ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: {} }));
  const paid = ok(await startGuestPayment(guest, await directSheet(guest, item)), 201);
  ok(await simulate(guest, paid.paymentId, 'APPROVE'));
  const mismatch = ok(await startGuestPayment(guest, await directSheet(guest, item)), 201);
  ok(await svc.api('POST', `/_dev/v1/payments/${mismatch.paymentId}/simulate`, { body: { outcome: 'APPROVE', amount: 100 } }));
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_LIVE }));
  ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: { environment: 'LIVE' } }));
  ok(await api('POST', '/_dev/v1/payment-settings/platform-live', { body: { storeId, enabled: true } }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { sandboxMode: false } }));
  const store = ok(await guest('GET', '/storefront/v1/store'));
  assert.equal([store.checkoutAvailable, store.checkoutMode], [true, 'LIVE']);
});

test('a live purchase: https return only, SDK window page, gateway return confirms into a real order', async () => {
  assert.is(await storeStillPrivate(svc.services.db, storeId), true, 'sandbox orders do not end the exemption');
  const sheet = await directSheet(guest, item);
  assert.is(sheet.testPayment, false);
  fails(await startGuestPayment(guest, sheet, { returnUrl: 'http://localhost:5173/done' }), 400, 'RETURN_URL_NOT_ALLOWED');
  const start = ok(await startGuestPayment(guest, sheet, { returnUrl: SHOP_RETURN }), 201);
  assert.equal([start.testPayment, start.payUrl], [false, `${svc.url}/pay/${start.paymentId}`]);
  const record = ok(await api('GET', `/v1/payments/${start.paymentId}`));
  const pgOrderId = record.attempts[0].pgOrderId;

  const page = await (await fetch(start.payUrl)).text();
  assert.match(page, 'https://js.tosspayments.com/v2/standard');
  assert.match(page, pgOrderId);
  assert.match(page, `/pay/${start.paymentId}/return?attemptId=${start.attemptId}`);
  assert.ok(!page.includes(PG_ONE_LIVE.secretKey));
  // The sandbox buttons do not exist for live windows.
  fails(await simulate(guest, start.paymentId, 'APPROVE'), 409, 'PAYMENT_WINDOW_NOT_OPEN');

  // The buyer approves in the gateway window; the gateway sends them to our return address with its key.
  fake.payments.set('tpk_checkout_1', {
    key: 'tpk_checkout_1',
    orderId: pgOrderId,
    amount: start.amounts.totalAmount,
    status: 'IN_PROGRESS',
    method: '카드',
    canceled: 0,
  });
  const back = await fetch(
    `${svc.url}/pay/${start.paymentId}/return?attemptId=${start.attemptId}&paymentKey=tpk_checkout_1&orderId=${pgOrderId}&amount=${start.amounts.totalAmount}`,
    { redirect: 'manual' },
  );
  const to = new URL(back.headers.get('location')!);
  assert.equal([back.status, `${to.origin}${to.pathname}`, to.searchParams.get('status')], [303, SHOP_RETURN, 'COMPLETED']);
  const confirm = fake.requests.find((r) => r.path === '/v1/payments/confirm');
  assert.equal(confirm?.body, { paymentKey: 'tpk_checkout_1', orderId: pgOrderId, amount: start.amounts.totalAmount });
  const order = ok(await api('GET', `/v1/orders/${to.searchParams.get('orderId')}`));
  assert.equal([order.testPayment, order.payment.approvedMethod, order.payment.amount], [false, 'CARD', start.amounts.totalAmount]);
  assert.is(ok(await api('GET', '/v1/payments')).totalElements, 1);
  // The first live order ends the store's agent-approval exemptions (spec 01 §5.6).
  assert.is(await storeStillPrivate(svc.services.db, storeId), false);
});

test('a refusal at the live gateway keeps the payment retryable; a second try is approved', async () => {
  const sheet = await directSheet(guest, item);
  const start = ok(await startGuestPayment(guest, sheet, { returnUrl: SHOP_RETURN, shippingAddress: ADDRESS, guest: GUEST }), 201);
  const pgOrderId = ok(await api('GET', `/v1/payments/${start.paymentId}`)).attempts[0].pgOrderId;
  fake.payments.set('tpk_checkout_2', {
    key: 'tpk_checkout_2',
    orderId: pgOrderId,
    amount: start.amounts.totalAmount,
    status: 'REJECT',
    method: '카드',
    canceled: 0,
  });
  const refused = new URL(
    (await fetch(`${svc.url}/pay/${start.paymentId}/return?attemptId=${start.attemptId}&paymentKey=tpk_checkout_2`, { redirect: 'manual' })).headers.get(
      'location',
    )!,
  );
  assert.equal([refused.searchParams.get('status'), refused.searchParams.get('code')], ['FAILED', 'REJECT_CARD_PAYMENT']);
  const again = ok(
    await guest('POST', `/storefront/v1/payments/${start.paymentId}/attempts`, { body: { option: 'pg_one:CARD', returnUrl: SHOP_RETURN } }),
    201,
  );
  const pgOrderId2 = ok(await api('GET', `/v1/payments/${start.paymentId}`)).attempts[1].pgOrderId;
  assert.is(pgOrderId2, pgOrderId.replace(/-01$/, '-02'));
  fake.payments.set('tpk_checkout_3', {
    key: 'tpk_checkout_3',
    orderId: pgOrderId2,
    amount: start.amounts.totalAmount,
    status: 'IN_PROGRESS',
    method: '카드',
    canceled: 0,
  });
  const done = new URL(
    (await fetch(`${svc.url}/pay/${start.paymentId}/return?attemptId=${again.attemptId}&paymentKey=tpk_checkout_3`, { redirect: 'manual' })).headers.get(
      'location',
    )!,
  );
  assert.is(done.searchParams.get('status'), 'COMPLETED');
});

test('two live windows both approved: the order stands, the second is canceled, and the payment stays APPROVED', async () => {
  const sheet = await directSheet(guest, item);
  const first = ok(await startGuestPayment(guest, sheet, { returnUrl: SHOP_RETURN, shippingAddress: ADDRESS, guest: GUEST }), 201);
  // The buyer opens a second window; pg_one has no API to close the first, so both stay approvable.
  const second = ok(
    await guest('POST', `/storefront/v1/payments/${first.paymentId}/attempts`, { body: { option: 'pg_one:CARD', returnUrl: SHOP_RETURN } }),
    201,
  );
  const [a1, a2] = ok(await api('GET', `/v1/payments/${first.paymentId}`)).attempts;
  assert.equal([a1.status, a2.status], ['READY', 'READY']);
  fake.payments.set('tpk_two_1', {
    key: 'tpk_two_1',
    orderId: a1.pgOrderId,
    amount: first.amounts.totalAmount,
    status: 'IN_PROGRESS',
    method: '카드',
    canceled: 0,
  });
  fake.payments.set('tpk_two_2', {
    key: 'tpk_two_2',
    orderId: a2.pgOrderId,
    amount: first.amounts.totalAmount,
    status: 'IN_PROGRESS',
    method: '카드',
    canceled: 0,
  });
  const one = new URL(
    (await fetch(`${svc.url}/pay/${first.paymentId}/return?attemptId=${first.attemptId}&paymentKey=tpk_two_1`, { redirect: 'manual' })).headers.get(
      'location',
    )!,
  );
  assert.is(one.searchParams.get('status'), 'COMPLETED');
  await fetch(`${svc.url}/pay/${first.paymentId}/return?attemptId=${second.attemptId}&paymentKey=tpk_two_2`, { redirect: 'manual' });

  const record = ok(await api('GET', `/v1/payments/${first.paymentId}`));
  assert.is(record.status, 'APPROVED', "the duplicate approval's cancel does not touch the payment");
  assert.equal(
    record.attempts.map((a: any) => a.status),
    ['APPROVED', 'AUTO_CANCELED'],
  );
  assert.equal(
    record.refunds.map((r: any) => [r.attemptId, r.reason, r.status, r.amount]),
    [[second.attemptId, 'DUPLICATE_APPROVAL', 'COMPLETED', first.amounts.totalAmount]],
  );
  assert.is(fake.payments.get('tpk_two_2')!.canceled, first.amounts.totalAmount, 'the second approval was given back at the gateway');
  const listed = ok(await api('GET', '/v1/payments', { query: { keyword: first.paymentId } })).contents[0];
  assert.is(listed.status, 'APPROVED');
  const order = ok(await api('GET', `/v1/orders/${one.searchParams.get('orderId')}`));
  assert.is(order.status, 'PAID');
});

test('a seller cancel of a live order refunds through the gateway: a partial cancel, then the rest, each sent once', async () => {
  const sheet = await directSheet(guest, { ...item, quantity: 2 });
  const start = ok(await startGuestPayment(guest, sheet, { returnUrl: SHOP_RETURN, shippingAddress: ADDRESS, guest: GUEST }), 201);
  const pgOrderId = ok(await api('GET', `/v1/payments/${start.paymentId}`)).attempts[0].pgOrderId;
  fake.payments.set('tpk_cancel_1', {
    key: 'tpk_cancel_1',
    orderId: pgOrderId,
    amount: start.amounts.totalAmount,
    status: 'IN_PROGRESS',
    method: '카드',
    canceled: 0,
  });
  const done = new URL(
    (await fetch(`${svc.url}/pay/${start.paymentId}/return?attemptId=${start.attemptId}&paymentKey=tpk_cancel_1`, { redirect: 'manual' })).headers.get(
      'location',
    )!,
  );
  const order = ok(await api('GET', `/v1/orders/${done.searchParams.get('orderId')}`));
  const id = order.items[0].orderItemId;
  const first = ok(await api('POST', `/v1/order-items/${id}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  assert.equal([first.refundStatus, first.amounts.cashRefundAmount], ['COMPLETED', 15000]);
  assert.equal([fake.payments.get('tpk_cancel_1')!.canceled, fake.payments.get('tpk_cancel_1')!.status], [15000, 'PARTIAL_CANCELED']);
  const rest = ok(await api('POST', `/v1/order-items/${id}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  assert.is(rest.amounts.cashRefundAmount, start.amounts.totalAmount - 15000);
  assert.equal([fake.payments.get('tpk_cancel_1')!.canceled, fake.payments.get('tpk_cancel_1')!.status], [start.amounts.totalAmount, 'CANCELED']);
  const cancels = fake.requests.filter((r) => r.path === '/v1/payments/tpk_cancel_1/cancel');
  assert.equal(
    cancels.map((r) => r.body.cancelAmount),
    [15000, start.amounts.totalAmount - 15000],
  );
  assert.is(ok(await api('GET', `/v1/payments/${start.paymentId}`)).status, 'CANCELED');
});

test("a hosted-site preview cannot be a live payment's return address (RETURN_URL_NOT_ALLOWED)", async () => {
  ok(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'live-shop' } }), 201);
  const sheet = await directSheet(guest, item);
  const refused = await startGuestPayment(guest, sheet, { returnUrl: `${siteUrlOf(svc, 'live-shop')}_preview/checkout/done` });
  fails(refused, 400, 'RETURN_URL_NOT_ALLOWED');
  assert.is(refused.body.error.details.reason, 'PREVIEW');
});

test.run();
