import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { startFakeGateway, type FakeGateway } from '../helpers/fake-gateway.js';
import { PG_ONE_LIVE, PG_ONE_TEST, PG_TWO_LIVE, PG_TWO_TEST, availability, fails, ok, providerOf, rejects } from '../helpers/payment-providers.js';

let svc: TestService;
let fake: FakeGateway;
let seller: Awaited<ReturnType<typeof newSellerWithStore>>;
let api: Api;
let payments: typeof import('../../src/modules/payments/checkout-api.js');

test.before(async () => {
  fake = await startFakeGateway(PG_ONE_LIVE.secretKey, PG_TWO_LIVE.apiSecret);
  process.env.SVC_PG_ONE_API_URL = fake.url;
  process.env.SVC_PG_TWO_API_URL = fake.url;
  svc = await startTestService();
  seller = await newSellerWithStore(svc, 'live');
  api = seller.api;
  payments = await import('../../src/modules/payments/checkout-api.js');
});
test.after(async () => {
  await svc.close();
  await fake.close();
});

const settings = async () => ok(await api('GET', '/v1/store/payment-settings'));
const gate = async (pg = 'pg_one') => Object.fromEntries(providerOf(await settings(), pg).liveGate.conditions.map((c: any) => [c.code, c.met]));
const platformLive = (enabled: boolean) => api('POST', '/_dev/v1/payment-settings/platform-live', { body: { storeId: seller.storeId, enabled } });

test('the live gate opens condition by condition; sandbox work never reaches the gateway', async () => {
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_TEST }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: true } }));
  assert.equal(await gate(), { TEST_CONNECTION: false, SANDBOX_PAYMENT: false, SANDBOX_REFUND: false, LIVE_CONNECTION: false, PLATFORM_LIVE_ENABLED: false });
  const locked = await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { sandboxMode: false } });
  fails(locked, 409, 'LIVE_GATE_NOT_MET');
  assert.equal(
    locked.body.error.details.conditions.map((c: any) => c.code),
    ['TEST_CONNECTION', 'SANDBOX_PAYMENT', 'SANDBOX_REFUND', 'LIVE_CONNECTION', 'PLATFORM_LIVE_ENABLED'],
  );
  assert.ok(locked.body.error.details.conditions.every((c: any) => c.met === false && typeof c.message === 'string'));

  assert.is(ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: {} })).result.status, 'PASSED');
  // A sandbox payment and a partial refund, through the gateway interface checkout uses.
  const gw = await payments.gatewayFor(svc.services, seller.storeId, 'pg_one');
  assert.is(gw.sandbox, true);
  const window = await gw.prepareWindow({
    paymentId: 'pay_gate',
    attemptId: 'att_1',
    pgOrderId: '20261121000001-01',
    amount: 12000,
    orderName: '테스트 상품',
    method: 'CARD',
    returnUrl: 'https://localhost/return',
  });
  await payments.sandboxDecide(svc.services, window.pgPaymentKey!, 'APPROVE');
  const confirmed = await gw.confirm({ pgPaymentKey: window.pgPaymentKey!, pgOrderId: '20261121000001-01', amount: 12000, method: 'CARD' });
  assert.is(confirmed.status, 'APPROVED');
  assert.equal(await gate(), { TEST_CONNECTION: true, SANDBOX_PAYMENT: true, SANDBOX_REFUND: false, LIVE_CONNECTION: false, PLATFORM_LIVE_ENABLED: false });
  assert.is((await gw.cancel({ pgTransactionId: confirmed.pgTransactionId!, amount: 2000, reason: '부분 환불' })).status, 'CANCELED');
  assert.is((await gate()).SANDBOX_REFUND, true);
  assert.is(fake.requests.length, 0, 'sandbox mode never calls the live API');
});

test('live keys: a failed connection test is a result, not an error; the gate needs LIVE_CONNECTION', async () => {
  // Not live yet, so saving live keys runs no pre-check: a wrong secret is stored and fails its test.
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { ...PG_ONE_LIVE, secretKey: 'live_sk_WrongSecret0000000' } }));
  assert.is(fake.requests.length, 0);
  const failed = ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: { environment: 'LIVE' } }));
  assert.equal(failed.result, { status: 'FAILED', code: 'UNAUTHORIZED_KEY', message: '인증되지 않은 시크릿 키 혹은 클라이언트 키 입니다.' });
  assert.is(fake.requests[0].authorization, `Basic ${Buffer.from('live_sk_WrongSecret0000000:').toString('base64')}`);
  assert.is(fake.requests[0].path, '/v1/payments/orders/svc-connection-check');
  assert.is((await gate()).LIVE_CONNECTION, false);
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'LIVE', secretKey: PG_ONE_LIVE.secretKey } }));
  assert.is(ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: { environment: 'LIVE' } })).result.status, 'PASSED');
  assert.is((await gate()).LIVE_CONNECTION, true);
});

test('only the platform permission missing: LIVE_PAYMENTS_DISABLED; granted, the switch goes live', async () => {
  const res = await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { sandboxMode: false } });
  fails(res, 409, 'LIVE_PAYMENTS_DISABLED');
  fails(await api('POST', '/_dev/v1/payment-settings/platform-live', { body: { storeId: seller.storeId, enabled: 'yes' } }), 400, 'VALIDATION_FAILED');
  fails(await api('POST', '/_dev/v1/payment-settings/platform-live', { body: { storeId: 'st_missing', enabled: true } }), 404, 'NOT_FOUND');
  assert.equal(
    res.body.error.details.conditions.filter((c: any) => !c.met).map((c: any) => c.code),
    ['PLATFORM_LIVE_ENABLED'],
  );
  ok(await platformLive(true));
  const p = ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { sandboxMode: false } }));
  assert.is(p.environment, 'LIVE');
  assert.is(p.liveGate.status, 'OPEN');
  assert.ok(p.liveGate.openedAt);
  // sandboxMode true is always allowed (and back again needs the gate, still open).
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { sandboxMode: true } }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { sandboxMode: false } }));
  assert.equal(await availability(api, seller.storeId), [true, 'LIVE', null]);
});

test('a live store excludes sandbox providers; without the platform permission live ones are PLATFORM_BLOCKED', async () => {
  ok(await api('PUT', '/v1/store/payment-providers/pg_two', { body: PG_TWO_TEST }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_two', { body: { enabled: true } }));
  let s = await settings();
  assert.equal(s.candidates, ['pg_one']);
  assert.is(s.environment, 'LIVE');
  assert.is(providerOf(s, 'pg_two').routingExclusion, 'SANDBOX_IN_LIVE_STORE');
  assert.is(providerOf(s, 'pg_two').status, 'EXCLUDED');
  assert.equal(
    (await payments.paymentOptions(svc.services, seller.storeId)).map((o) => o.pg),
    ['pg_one', 'pg_one', 'pg_one', 'pg_one'],
  );
  ok(await platformLive(false));
  s = await settings();
  assert.is(providerOf(s, 'pg_one').routingExclusion, 'PLATFORM_BLOCKED');
  assert.equal(s.candidates, ['pg_two']);
  assert.equal(await payments.checkoutMode(svc.services, seller.storeId), { mode: 'TEST', reason: null });
  ok(await platformLive(true));
  // The key set in use cannot be deleted; the sandbox provider's test keys disabled… are CREDENTIAL_MISSING once gone.
  fails(await api('DELETE', '/v1/store/payment-providers/pg_one/credentials/LIVE'), 409, 'PAYMENT_CREDENTIAL_ACTIVE');
  ok(await api('PATCH', '/v1/store/payment-providers/pg_two', { body: { enabled: false } }));
  ok(await api('DELETE', '/v1/store/payment-providers/pg_two/credentials/TEST'));
  ok(await api('PUT', '/v1/store/payment-providers/pg_two', { body: PG_TWO_LIVE }));
  s = await settings();
  assert.is(providerOf(s, 'pg_two').routingExclusion, 'DISABLED');
});

test('while live, saving a live key tests it first: failure is 409 PAYMENT_PROVIDER_VERIFICATION_FAILED and saves nothing', async () => {
  const before = providerOf(await settings(), 'pg_one').credentialSets.LIVE;
  const res = await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'LIVE', secretKey: 'live_sk_Revoked000000000' } });
  fails(res, 409, 'PAYMENT_PROVIDER_VERIFICATION_FAILED');
  assert.is(res.body.error.details.gatewayCode, 'UNAUTHORIZED_KEY');
  const after = providerOf(await settings(), 'pg_one').credentialSets.LIVE;
  assert.equal(after, before);
  // A good key passes the pre-check and keeps that result.
  const saved = ok(
    await api('PUT', '/v1/store/payment-providers/pg_one', {
      body: { environment: 'LIVE', secretKey: PG_ONE_LIVE.secretKey, webhookSecret: 'live-webhook-secret' },
    }),
  );
  assert.is(saved.credentialSets.LIVE.verification.status, 'PASSED');
  assert.is(saved.credentialSets.LIVE.version, before.version + 1);
});

test('concurrent change during a gateway call: PAYMENT_PROVIDER_CHANGED and PAYMENT_CREDENTIAL_CHANGED', async () => {
  // The pre-check of a live key save is slow; meanwhile the provider is patched.
  fake.script.set('/v1/payments/orders/', { delayMs: 300 });
  const slowSave = api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'LIVE', webhookSecret: 'another-webhook-secret' } });
  await new Promise((r) => setTimeout(r, 50));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { easyPayProviders: ['EASYPAY_4'] } }));
  fails(await slowSave, 409, 'PAYMENT_PROVIDER_CHANGED');

  // A slow verify; meanwhile the key set is edited.
  fake.script.set('/v1/payments/orders/', { delayMs: 300 });
  const slowVerify = api('POST', '/v1/store/payment-providers/pg_one/verify', { body: { environment: 'LIVE' } });
  await new Promise((r) => setTimeout(r, 50));
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'LIVE', webhookSecret: null } }));
  fails(await slowVerify, 409, 'PAYMENT_CREDENTIAL_CHANGED');
});

test('pg_one live adapter: Toss-style confirm, retried confirm, partial and over-cancel, look-up, unknown results', async () => {
  const gw = await payments.gatewayFor(svc.services, seller.storeId, 'pg_one');
  assert.is(gw.sandbox, false);
  const window = await gw.prepareWindow({
    paymentId: 'pay_l1',
    attemptId: 'att_l1',
    pgOrderId: '20261121000002-01',
    amount: 15000,
    orderName: '라이브 상품',
    method: 'EASY_PAY',
    provider: 'EASYPAY_1',
    returnUrl: 'https://shop.example/return',
  });
  assert.is(window.windowUrl, undefined);
  assert.is(window.pgPaymentKey, undefined);
  assert.equal(window.client, {
    clientKey: PG_ONE_LIVE.clientKey,
    method: 'CARD',
    easyPay: 'EASYPAY_1',
    orderId: '20261121000002-01',
    orderName: '라이브 상품',
    amount: '15000',
    successUrl: 'https://shop.example/return',
    failUrl: 'https://shop.example/return',
  });
  fake.payments.set('tpk_live_1', { key: 'tpk_live_1', orderId: '20261121000002-01', amount: 15000, status: 'IN_PROGRESS', method: '간편결제', canceled: 0 });
  const input = { pgPaymentKey: 'tpk_live_1', pgOrderId: '20261121000002-01', amount: 15000, method: 'EASY_PAY' as const };
  const seen = fake.requests.length;
  const confirmed = await gw.confirm(input);
  assert.equal(confirmed, { status: 'APPROVED', approvedAmount: 15000, approvedMethod: 'EASY_PAY', pgTransactionId: 'tpk_live_1' });
  assert.equal(fake.requests[seen], {
    method: 'POST',
    path: '/v1/payments/confirm',
    authorization: `Basic ${Buffer.from(`${PG_ONE_LIVE.secretKey}:`).toString('base64')}`,
    body: { paymentKey: 'tpk_live_1', orderId: '20261121000002-01', amount: 15000 },
  });
  // A retried confirm finds the payment already processed and reads it back.
  assert.is((await gw.confirm(input)).status, 'APPROVED');
  assert.equal(await gw.cancel({ pgTransactionId: 'tpk_live_1', amount: 5000, reason: '부분 취소' }), { status: 'CANCELED', canceledAmount: 5000 });
  assert.equal(fake.requests.at(-1)!.body, { cancelReason: '부분 취소', cancelAmount: 5000 });
  const over = await gw.cancel({ pgTransactionId: 'tpk_live_1', amount: 20000, reason: '초과' });
  assert.is(over.status, 'FAILED');
  assert.is(over.failure!.code, 'NOT_CANCELABLE_AMOUNT');
  const looked = await gw.lookup({ pgPaymentKey: 'tpk_live_1', pgOrderId: '20261121000002-01' });
  assert.equal([looked.status, looked.approvedAmount, looked.canceledAmount], ['PARTIALLY_CANCELED', 15000, 5000]);
  assert.is((await gw.lookup({ pgPaymentKey: 'nope', pgOrderId: 'x' })).status, 'NOT_FOUND');

  fake.payments.set('tpk_live_2', { key: 'tpk_live_2', orderId: '20261121000003-01', amount: 8000, status: 'IN_PROGRESS', method: '카드', canceled: 0 });
  const second = { pgPaymentKey: 'tpk_live_2', pgOrderId: '20261121000003-01', amount: 8000, method: 'CARD' as const };
  fake.script.set('/v1/payments/confirm', {
    status: 500,
    body: { code: 'FAILED_INTERNAL_SYSTEM_PROCESSING', message: '내부 시스템 처리 작업이 실패했습니다.' },
  });
  assert.is((await gw.confirm(second)).status, 'CONFIRMING');
  fake.script.set('/v1/payments/confirm', 'reset');
  assert.is((await gw.confirm(second)).status, 'CONFIRMING');
  fake.payments.get('tpk_live_2')!.status = 'REJECT';
  const refused = await gw.confirm(second);
  assert.equal([refused.status, refused.failure!.code, refused.failure!.optionUnavailable], ['REFUSED', 'REJECT_CARD_PAYMENT', false]);
});

test('configuration faults count toward warnings[]: 3 in 24 hours, owner mailed once, cleared 24 hours later', async () => {
  // pg_two live keys whose channels take no MOBILE: every MOBILE window is a configuration failure.
  const credentialId = providerOf(await settings(), 'pg_two').credentialSets.LIVE.credentialId;
  const gw = await payments.gatewayFor(svc.services, seller.storeId, 'pg_two', { credentialId });
  for (let i = 1; i <= 3; i++) {
    const error = await gw
      .prepareWindow({
        paymentId: `pay_m${i}`,
        attemptId: 'a',
        pgOrderId: `2026112100001${i}-01`,
        amount: 1000,
        orderName: 'x',
        method: 'MOBILE',
        returnUrl: 'https://shop.example/r',
      })
      .catch((e) => e);
    assert.is(error.code, 'PAYMENT_PROVIDER_UNAVAILABLE');
    assert.is(error.status, 503);
    assert.is(error.details.optionUnavailable, true);
    assert.is((await settings()).warnings.length, i === 3 ? 1 : 0);
  }
  const [warning] = (await settings()).warnings;
  assert.equal(
    [warning.provider, warning.method, warning.easyPayProvider, warning.code, warning.count],
    ['pg_two', 'MOBILE', null, 'NO_CHANNEL_FOR_METHOD', 3],
  );
  const mails = async () => ok(await api('GET', '/_dev/v1/mail')).contents.filter((m: any) => m.to === seller.email && m.subject.includes('결제 설정'));
  assert.is((await mails()).length, 1);
  await gw
    .prepareWindow({
      paymentId: 'pay_m4',
      attemptId: 'a',
      pgOrderId: '20261121000014-01',
      amount: 1000,
      orderName: 'x',
      method: 'MOBILE',
      returnUrl: 'https://shop.example/r',
    })
    .catch(() => null);
  assert.is((await settings()).warnings[0].count, 4);
  assert.is((await mails()).length, 1, 'at most one mail a day');
  await svc.advance(24 * 3600 + 60);
  // A day later the login token has long expired: log in again.
  api = apiClient(svc.url, { token: await login(svc, seller.email, seller.password), storeId: seller.storeId });
  assert.equal((await settings()).warnings, []);
});

test('pg_two live adapter: PortOne-style read-back confirm, gateway amount, channel choice, cancel; archived keys still refund', async () => {
  const credentialId = providerOf(await settings(), 'pg_two').credentialSets.LIVE.credentialId;
  const gw = await payments.gatewayFor(svc.services, seller.storeId, 'pg_two', { credentialId });
  const window = await gw.prepareWindow({
    paymentId: 'pay_p1',
    attemptId: 'a',
    pgOrderId: '20261121000020-01',
    amount: 20000,
    orderName: '상품',
    method: 'BANK_TRANSFER',
    returnUrl: 'https://shop.example/r',
  });
  assert.is(window.pgPaymentKey, '20261121000020-01');
  assert.is(window.client!.channelKey, 'channel-key-transfer-0002');
  assert.is(window.client!.storeId, PG_TWO_LIVE.storeId);
  // The buyer paid 19,000 (tampered window): the confirm reports the gateway's amount for checkout to compare.
  fake.payments.set('20261121000020-01', {
    key: '20261121000020-01',
    orderId: '20261121000020-01',
    amount: 19000,
    status: 'PAID',
    method: 'PaymentMethodTransfer',
    canceled: 0,
  });
  const seen = fake.requests.length;
  const confirmed = await gw.confirm({ pgPaymentKey: '20261121000020-01', pgOrderId: '20261121000020-01', amount: 20000, method: 'BANK_TRANSFER' });
  assert.equal(confirmed, { status: 'APPROVED', approvedAmount: 19000, approvedMethod: 'BANK_TRANSFER', pgTransactionId: '20261121000020-01' });
  assert.equal(fake.requests[seen], {
    method: 'GET',
    path: `/payments/20261121000020-01?storeId=${PG_TWO_LIVE.storeId}`,
    authorization: `PortOne ${PG_TWO_LIVE.apiSecret}`,
    body: null,
  });

  fake.payments.set('20261121000021-01', {
    key: '20261121000021-01',
    orderId: '20261121000021-01',
    amount: 5000,
    status: 'FAILED',
    method: 'PaymentMethodCard',
    canceled: 0,
  });
  assert.is((await gw.confirm({ pgPaymentKey: '20261121000021-01', pgOrderId: '20261121000021-01', amount: 5000, method: 'CARD' })).status, 'REFUSED');
  fake.payments.set('20261121000022-01', {
    key: '20261121000022-01',
    orderId: '20261121000022-01',
    amount: 5000,
    status: 'PENDING',
    method: 'PaymentMethodCard',
    canceled: 0,
  });
  assert.is((await gw.confirm({ pgPaymentKey: '20261121000022-01', pgOrderId: '20261121000022-01', amount: 5000, method: 'CARD' })).status, 'CONFIRMING');

  // Disconnecting archives the keys; the payment made with them can still be refunded.
  ok(await api('DELETE', '/v1/store/payment-providers/pg_two'));
  const archived = await payments.gatewayFor(svc.services, seller.storeId, 'pg_two', { credentialId });
  assert.equal(await archived.cancel({ pgTransactionId: '20261121000020-01', amount: 9000, reason: '환불' }), { status: 'CANCELED', canceledAmount: 9000 });
  assert.equal(fake.requests.at(-1)!.body, { storeId: PG_TWO_LIVE.storeId, amount: 9000, reason: '환불' });
  assert.equal((await archived.lookup({ pgPaymentKey: '20261121000020-01', pgOrderId: '20261121000020-01' })).status, 'PARTIALLY_CANCELED');
  const noWindow = await archived
    .prepareWindow({
      paymentId: 'pay_p9',
      attemptId: 'a',
      pgOrderId: '20261121000029-01',
      amount: 1000,
      orderName: 'x',
      method: 'CARD',
      returnUrl: 'https://shop.example/r',
    })
    .catch((e) => e);
  assert.equal([noWindow.code, noWindow.details.reason], ['PAYMENT_PROVIDER_UNAVAILABLE', 'CREDENTIAL_ARCHIVED']);
  // New payments cannot use a disconnected provider.
  await rejects(
    () => payments.gatewayFor(svc.services, seller.storeId, 'pg_two'),
    (e: any) => e.code === 'PAYMENT_PROVIDER_UNAVAILABLE',
  );
});

test.run();
