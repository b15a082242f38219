/**
 * The sales report over HTTP against a hand-computed fixture that spans midnight in Korea: approvals on
 * their Korean date, a full refund on the date it completed, groupings, test payments left out by default,
 * the period rules, the scope, and the deprecated settlements.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { longLivedApi, member, pay, sheetOf, simulate } from '../helpers/members.js';

let svc: TestService;
let api: Api;
test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
  api = await longLivedApi(svc);
});
test.after(async () => {
  await svc.close();
});

const kstDate = (ms: number) => new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);
const clock = async () => Date.parse(ok(await api('GET', '/_dev/v1/clock')).now);

test('a fixture across midnight KST: payments on their approval date, the refund on its completion date, by day and by method', async () => {
  // One minute before midnight in Korea.
  const now = await clock();
  const nextMidnight = Math.ceil((now + 9 * 3_600_000) / 86_400_000) * 86_400_000 - 9 * 3_600_000;
  await svc.advance(Math.floor((nextMidnight - now) / 1000) - 60);
  const day1 = kstDate(await clock());
  const m = await member(svc, api, 'reporter');
  const mug = await createProduct(api, { name: '리포트 머그', salePrice: 15000 });
  const cup = await createProduct(api, { name: '리포트 컵', salePrice: 10000 });
  const a = ok(await simulate(m.buyer, ok(await pay(m.buyer, await sheetOf(m.buyer, [mug]), {}), 201).paymentId, 'APPROVE'));
  const b = ok(await simulate(m.buyer, ok(await pay(m.buyer, await sheetOf(m.buyer, [cup]), {}), 201).paymentId, 'APPROVE'));

  await svc.advance(120);
  const day2 = kstDate(await clock());
  assert.is.not(day1, day2);
  const bItem = ok(await api('GET', `/v1/orders/${b.orderId}`)).items[0];
  ok(await api('POST', `/v1/order-items/${bItem.orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  const easySheet = await sheetOf(m.buyer, [await createProduct(api, { name: '리포트 접시', salePrice: 20000 })]);
  const easy = ok(
    await m.buyer('POST', `/storefront/v1/checkout/${easySheet.checkoutId}/payment`, {
      body: {
        option: 'pg_one:EASY_PAY',
        returnUrl: 'http://localhost:5173/done',
        shippingAddress: { receiverName: '회원', phone: '01012345678', zipCode: '06236', address1: '서울' },
      },
    }),
    201,
  );
  ok(await simulate(m.buyer, easy.paymentId, 'APPROVE'));
  assert.ok(a.orderId);

  const byDay = ok(await api('GET', '/v1/sales-report', { query: { from: day1, to: day2, includeTest: 'true' } }));
  const fig = (r: any) => [r.date, r.paymentCount, r.paymentAmount, r.refundCount, r.refundAmount, r.netAmount, r.pgFeeAmount];
  assert.equal(byDay.rows.map(fig), [
    [day1, 2, 31000, 0, 0, 31000, null],
    [day2, 1, 23000, 1, 13000, 10000, null],
  ]);
  assert.equal(
    [byDay.summary.paymentAmount, byDay.summary.refundAmount, byDay.summary.netAmount, byDay.timezone, byDay.currency, byDay.groupBy],
    [54000, 13000, 41000, 'Asia/Seoul', 'KRW', 'DAY'],
  );
  const byMethod = ok(await api('GET', '/v1/sales-report', { query: { from: day1, to: day2, includeTest: 'true', groupBy: 'METHOD' } }));
  assert.equal(
    byMethod.rows.map((r: any) => [r.date, r.provider, r.method, r.paymentCount, r.refundAmount]),
    [
      [null, null, 'CARD', 2, 13000],
      [null, null, 'EASY_PAY', 1, 0],
    ],
  );
  const byBoth = ok(await api('GET', '/v1/sales-report', { query: { from: day2, to: day2, includeTest: 'true', groupBy: 'PROVIDER_METHOD', method: 'CARD' } }));
  assert.equal(
    byBoth.rows.map((r: any) => [r.provider, r.method, r.paymentCount, r.refundCount]),
    [['pg_one', 'CARD', 0, 1]],
  );
  const real = ok(await api('GET', '/v1/sales-report', { query: { from: day1, to: day2 } }));
  assert.equal([real.rows, real.summary.paymentCount, real.includeTest], [[], 0, false]);
});

test('periods: at most 92 days, real dates, to after from; settlement:r only; settlements are deprecated', async () => {
  fails(await api('GET', '/v1/sales-report', { query: { from: '2026-01-01', to: '2026-06-30' } }), 400, 'RANGE_TOO_WIDE');
  fails(await api('GET', '/v1/sales-report', { query: { from: '2026-03-02', to: '2026-03-01' } }), 400, 'INVALID_PARAMETER');
  const bad = await api('GET', '/v1/sales-report', { query: { from: '2026-02-30', to: '2026-03-01' } });
  assert.ok(bad.status === 400 && ['INVALID_PARAMETER', 'VALIDATION_FAILED'].includes(bad.body.error.code), JSON.stringify(bad.body));
  fails(await api('GET', '/v1/sales-report', { query: { groupBy: 'WEEK' } }), 400, 'VALIDATION_FAILED');
  const orders = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['order:r'] }), storeId: svc.storeId });
  fails(await orders('GET', '/v1/sales-report'), 403, 'INSUFFICIENT_ROLE');
  const list = await api('GET', '/v1/settlements');
  assert.equal(
    [list.status, list.data.contents, list.headers.get('deprecation'), list.headers.get('link')],
    [200, [], 'true', '</v1/sales-report>; rel=successor-version'],
  );
  const one = await api('GET', '/v1/settlements/stl_old');
  fails(one, 404, 'SETTLEMENT_NOT_FOUND');
  assert.is(one.headers.get('deprecation'), 'true');
});

test.run();
