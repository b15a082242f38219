/**
 * Points over HTTP: the policy and its expiry rule (at execution, dry run and approval creation), grants
 * and deductions on the append-only ledger, the sheet's `points`, point use at checkout within the policy,
 * a purchase paid wholly in points (`completed`, POINT, no retry, no cash receipt), a balance raced by two
 * payments (never negative), points given back when a payment ends unpaid, earning on purchase decision
 * by clock advance, and expiry by the job runner.
 */
import { makeStoreWentPublic } from '../helpers/storefront.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok, rejects } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct, directSheet, startGuestPayment } from '../helpers/checkout.js';
import { fieldCodes, longLivedApi, member, pay, price, sheetOf, signIn, simulate } from '../helpers/members.js';

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

const DAY = 86_400;
const POLICY = { earnEnabled: true, defaultEarnRateBp: 500, validityDays: 365, useEnabled: true, minUseAmount: 1000, maxUseRateBp: 5000 };
const ledger = async (customerId: string) => ok(await api('GET', `/v1/customers/${customerId}/points`));
const grant = async (customerId: string, amount: number, extra: Record<string, unknown> = {}) =>
  ok(await api('POST', `/v1/customers/${customerId}/points`, { body: { amount, reason: '이벤트', ...extra } }), 201);

test('policy: off by default; earning without validity is POINT_EXPIRY_REQUIRED at execution, dry run and approval creation', async () => {
  const fresh = await newSellerWithStore(svc, 'pts');
  assert.equal(ok(await fresh.api('GET', '/v1/point-policy')), {
    earnEnabled: false,
    defaultEarnRateBp: 100,
    validityDays: null,
    useEnabled: false,
    minUseAmount: 0,
    maxUseRateBp: 10000,
  });
  const noValidity = { ...POLICY, validityDays: null };
  fails(await fresh.api('PUT', '/v1/point-policy', { body: noValidity }), 400, 'POINT_EXPIRY_REQUIRED');
  fails(await fresh.api('PUT', '/v1/point-policy', { body: noValidity, headers: { 'x-svc-dry-run': '1' } }), 400, 'POINT_EXPIRY_REQUIRED');
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, fresh.token, { scopes: ['promotion:rw'], agent: true }), storeId: fresh.storeId });
  fails(await agent('PUT', '/v1/point-policy', { body: noValidity }), 400, 'POINT_EXPIRY_REQUIRED');
  assert.equal(ok(await fresh.api('GET', '/v1/approval-requests')).contents, []);
  // A store that never went public lets agents set the policy directly (spec 01 §5.6 exemption).
  assert.equal(ok(await agent('PUT', '/v1/point-policy', { body: POLICY })), POLICY);
  assert.equal(ok(await buyerApi(svc, fresh.storeId)('GET', '/storefront/v1/point-policy')), POLICY);
  fails(await fresh.api('PUT', '/v1/point-policy', { body: { ...POLICY, maxUseRateBp: 0 } }), 400, 'VALIDATION_FAILED');

  ok(await api('PUT', '/v1/point-policy', { body: POLICY }));
});

test('ledger: grants need an expiry, deductions a balance (also at dry run); entries are signed with the balance after; another store sees nothing', async () => {
  const fresh = await newSellerWithStore(svc, 'ledger');
  const buyer = ok(await fresh.api('POST', '/v1/customers/delegations', { body: { uid: 'l1', email: 'l1@example.com' } }), 201).customer.customerId;
  fails(await fresh.api('POST', `/v1/customers/${buyer}/points`, { body: { amount: 1000, reason: '가입' } }), 400, 'POINT_EXPIRY_REQUIRED');
  fails(
    await fresh.api('POST', `/v1/customers/${buyer}/points`, { body: { amount: 1000, reason: '가입' }, headers: { 'x-svc-dry-run': '1' } }),
    400,
    'POINT_EXPIRY_REQUIRED',
  );
  const expiresAt = new Date(svc.services.clock.now() + 30 * DAY * 1000).toISOString();
  const granted = ok(await fresh.api('POST', `/v1/customers/${buyer}/points`, { body: { amount: 3000, reason: '가입 축하', expiresAt } }), 201);
  assert.equal([granted.entry.kind, granted.entry.amount, granted.entry.balanceAfter, granted.balance], ['GRANT', 3000, 3000, 3000]);
  fails(await fresh.api('POST', `/v1/customers/${buyer}/points`, { body: { amount: -5000, reason: '회수' } }), 409, 'POINT_BALANCE_INSUFFICIENT');
  fails(
    await fresh.api('POST', `/v1/customers/${buyer}/points`, { body: { amount: -5000, reason: '회수' }, headers: { 'x-svc-dry-run': '1' } }),
    409,
    'POINT_BALANCE_INSUFFICIENT',
  );
  fails(await fresh.api('POST', `/v1/customers/${buyer}/points`, { body: { amount: 0, reason: '0' } }), 400, 'VALIDATION_FAILED');
  assert.is(ok(await fresh.api('POST', `/v1/customers/${buyer}/points`, { body: { amount: -1200, reason: '회수' } }), 201).balance, 1800);
  const read = ok(await fresh.api('GET', `/v1/customers/${buyer}/points`));
  assert.equal(
    [read.balance, read.totalElements, read.contents.map((e: any) => [e.kind, e.amount, e.balanceAfter])],
    [
      1800,
      2,
      [
        ['DEDUCT', -1200, 1800],
        ['GRANT', 3000, 3000],
      ],
    ],
  );
  const peek = await api('GET', `/v1/customers/${buyer}/points`);
  assert.ok([403, 404].includes(peek.status));
  const poke = await api('POST', `/v1/customers/${buyer}/points`, { body: { amount: 100, reason: 'x', expiresAt } });
  assert.ok([403, 404].includes(poke.status));
  assert.is(ok(await fresh.api('GET', `/v1/customers/${buyer}/points`)).balance, 1800);
  // Append-only down to the database: no write path can rewrite an entry.
  await rejects(() => svc.services.db.$client.prepare('update point_entries set amount = 0 where customer_id = ?').run(buyer), /append-only/);
  await rejects(() => svc.services.db.$client.prepare('delete from point_entries where customer_id = ?').run(buyer), /append-only/);
});

test('checkout: the sheet shows what points can do; pointAmount is checked against the policy and balance; guests cannot use points', async () => {
  const p = await createProduct(api, { name: '적립 상품', salePrice: 20000 });
  const m = await member(svc, api, 'saver');
  await grant(m.customerId, 15000);
  const sheet = await sheetOf(m.buyer, [p]);
  // Half of 23,000 (items and shipping) may be points; the balance allows 15,000.
  assert.equal(sheet.points, { useAvailable: true, balance: 15000, usableAmount: 11500 });
  const preview = ok(await price(m.buyer, sheet, { pointAmount: 5000 }));
  assert.equal([preview.amounts.pointAmount, preview.amounts.totalAmount, preview.paymentRequired], [5000, 18000, true]);
  assert.equal(fieldCodes(await price(m.buyer, sheet, { pointAmount: 500 })), [['pointAmount', 'POINT_BELOW_MINIMUM']]);
  assert.equal(fieldCodes(await price(m.buyer, sheet, { pointAmount: 12000 })), [['pointAmount', 'POINT_OVER_LIMIT']]);
  const poor = await member(svc, api, 'poor');
  await grant(poor.customerId, 2000);
  assert.equal(fieldCodes(await price(poor.buyer, await sheetOf(poor.buyer, [p]), { pointAmount: 3000 })), [['pointAmount', 'POINT_BALANCE_INSUFFICIENT']]);
  const guest = buyerApi(svc, svc.storeId);
  const guestSheet = await directSheet(guest, { productId: p.productId, optionId: p.optionId });
  assert.equal(guestSheet.points, { useAvailable: false, balance: 0, usableAmount: 0 });
  fails(await startGuestPayment(guest, guestSheet, { pointAmount: 1000 }), 409, 'POINTS_UNAVAILABLE');

  const start = ok(await pay(m.buyer, sheet, { pointAmount: 5000 }), 201);
  assert.is(start.amounts.totalAmount, 18000);
  assert.is((await ledger(m.customerId)).balance, 10000);
  const done = ok(await simulate(m.buyer, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal([order.payment.pointAmount, order.payment.amount, order.items[0].pointAllocation], [5000, 18000, 5000]);
  assert.equal((await ledger(m.customerId)).contents[0], { ...(await ledger(m.customerId)).contents[0], kind: 'USE', amount: -5000, orderId: done.orderId });
});

test('a purchase paid wholly in points: completed without a window, POINT, ALREADY_PROCESSED on retry, no cash receipt; allocation over the items', async () => {
  ok(await api('PUT', '/v1/point-policy', { body: { ...POLICY, minUseAmount: 0, maxUseRateBp: 10000 } }));
  const a = await createProduct(api, { name: '전자책 A', salePrice: 3000, fulfillment: { type: 'MANUAL' } });
  const b = await createProduct(api, { name: '전자책 B', salePrice: 6000, fulfillment: { type: 'MANUAL' } });
  const m = await member(svc, api, 'all-points');
  await grant(m.customerId, 20000);
  const sheet = await sheetOf(m.buyer, [a, b]);
  assert.equal([sheet.amounts.totalAmount, sheet.points.usableAmount], [9000, 9000]);
  assert.is(ok(await price(m.buyer, sheet, { pointAmount: 9000 })).paymentRequired, false);
  fails(
    await m.buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, {
      body: { pointAmount: 9000, cashReceipt: { type: 'INCOME_DEDUCTION', identityNumber: '01012345678' } },
    }),
    400,
    'CASH_RECEIPT_NOT_AVAILABLE',
  );
  const res = ok(await pay(m.buyer, sheet, { pointAmount: 9000 }, false), 201);
  assert.equal([res.status, res.payUrl, res.attemptId, res.option, res.amounts.totalAmount], ['completed', null, null, null, 0]);
  const order = ok(await api('GET', `/v1/orders/${res.orderId}`));
  assert.equal(
    [order.payment.method, order.payment.approvedMethod, order.payment.pg, order.amounts.totalAmount, order.payment.pointAmount],
    ['POINT', 'POINT', null, 0, 9000],
  );
  assert.equal(
    order.items.map((i: any) => [i.productName, i.pointAllocation]),
    [
      ['전자책 A', 3000],
      ['전자책 B', 6000],
    ],
  );
  fails(
    await m.buyer('POST', `/storefront/v1/payments/${res.paymentId}/attempts`, { body: { option: 'pg_one:CARD', returnUrl: 'http://localhost:5173/done' } }),
    409,
    'ALREADY_PROCESSED',
  );
  assert.is((await ledger(m.customerId)).balance, 11000);
  ok(await api('PUT', '/v1/point-policy', { body: POLICY }));
});

test('two payments racing for one balance: one wins and the balance never goes below zero; an unpaid payment gives its points back', async () => {
  const p = await createProduct(api, { name: '경쟁 적립', salePrice: 30000 });
  const m = await member(svc, api, 'racer');
  await grant(m.customerId, 10000);
  const [s1, s2] = [await sheetOf(m.buyer, [p]), await sheetOf(m.buyer, [p])];
  const [r1, r2] = await Promise.all([pay(m.buyer, s1, { pointAmount: 8000 }), pay(m.buyer, s2, { pointAmount: 8000 })]);
  assert.equal([r1.status, r2.status].sort(), [201, 400]);
  assert.equal(fieldCodes(r1.status === 400 ? r1 : r2), [['pointAmount', 'POINT_BALANCE_INSUFFICIENT']]);
  const held = await ledger(m.customerId);
  assert.is(held.balance, 2000);
  assert.ok(held.contents.every((e: any) => e.balanceAfter >= 0));

  // The window is refused and the buyer walks away: after the payment's 10 minutes the points come back.
  const winner = (r1.status === 201 ? r1 : r2).data;
  ok(await simulate(m.buyer, winner.paymentId, 'REFUSE'));
  await svc.advance(11 * 60);
  const back = await ledger(m.customerId);
  assert.equal([back.balance, back.contents[0].kind, back.contents[0].amount], [10000, 'RETURN', 8000]);
});

test('earning on purchase decision (the 8-day timer after delivery) at the item rate or the policy default; expiry by the job runner', async () => {
  const own = await createProduct(api, { name: '자체 적립률', salePrice: 10000, pointEarnRateBp: 1000 });
  const plain = await createProduct(api, { name: '기본 적립률', salePrice: 20000 });
  let m = await member(svc, api, 'earner');
  const clock = async () => Date.parse(ok(await api('GET', '/_dev/v1/clock')).now);
  await grant(m.customerId, 2000, { expiresAt: new Date((await clock()) + 20 * DAY * 1000).toISOString() });
  const sheet = await sheetOf(m.buyer, [own, plain]);
  const start = ok(await pay(m.buyer, sheet, { pointAmount: 0 }), 201);
  const done = ok(await simulate(m.buyer, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  for (const item of order.items) {
    ok(await api('POST', `/v1/order-items/${item.orderItemId}/confirm`));
    ok(await api('POST', `/v1/order-items/${item.orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: `T${item.orderItemNo}` } }));
    ok(await api('POST', `/v1/order-items/${item.orderItemId}/delivered`));
  }
  assert.is((await ledger(m.customerId)).balance, 2000);
  await svc.advance(8 * DAY + 60);
  const earned = (await ledger(m.customerId)).contents.filter((e: any) => e.kind === 'EARN');
  // 10% of 10,000 and the policy's 5% of 20,000, each valid for the policy's 365 days.
  const byName = Object.fromEntries(order.items.map((i: any) => [i.productName, i.orderItemId]));
  assert.equal(
    earned.map((e: any) => [e.orderItemId, e.amount]).sort(),
    [
      [byName['자체 적립률'], 1000],
      [byName['기본 적립률'], 1000],
    ].sort(),
  );
  assert.is((await ledger(m.customerId)).balance, 4000);

  // The 2,000 granted lapse after their 20 days; the earned ones stay for the policy's 365.
  const grantExpiry = Date.parse((await ledger(m.customerId)).contents.find((e: any) => e.kind === 'GRANT').expiresAt);
  await svc.advance(Math.ceil((grantExpiry - (await clock())) / 1000) + 1);
  m = await signIn(svc, api, m.uid);
  const lapsed = await ledger(m.customerId);
  assert.equal([lapsed.balance, lapsed.contents[0].kind, lapsed.contents[0].amount], [2000, 'EXPIRE', -2000]);
  assert.equal(ok(await m.buyer('GET', '/storefront/v1/point-policy')), POLICY);
});

test('scopes: promotion:r reads the ledger but cannot grant; an agent grants directly while the store never went public', async () => {
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['promotion:rw'], agent: true }), storeId: svc.storeId });
  const reader = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['promotion:r'] }), storeId: svc.storeId });
  const m = await member(svc, api, 'read-only');
  assert.is(ok(await reader('GET', `/v1/customers/${m.customerId}/points`)).balance, 0);
  fails(await reader('POST', `/v1/customers/${m.customerId}/points`, { body: { amount: 100, reason: 'x' } }), 403, 'INSUFFICIENT_ROLE');
  assert.is(ok(await agent('POST', `/v1/customers/${m.customerId}/points`, { body: { amount: 100, reason: '에이전트 지급' } }), 201).balance, 100);
});

test("once the store went public: an agent's point writes need approval, and the expiry and balance rules refuse before any request is made", async () => {
  const fresh = await newSellerWithStore(svc, 'ptspub');
  const buyer = ok(await fresh.api('POST', '/v1/customers/delegations', { body: { uid: 'p1', email: 'p1@example.com' } }), 201).customer.customerId;
  await makeStoreWentPublic(svc, fresh);
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, fresh.token, { scopes: ['promotion:rw'], agent: true }), storeId: fresh.storeId });
  const points = (body: unknown, headers?: Record<string, string>) => agent('POST', `/v1/customers/${buyer}/points`, { body, headers });
  const dry = { 'x-svc-dry-run': '1' };
  fails(await agent('PUT', '/v1/point-policy', { body: { ...POLICY, validityDays: null } }), 400, 'POINT_EXPIRY_REQUIRED');
  fails(await points({ amount: 1000, reason: '가입' }), 400, 'POINT_EXPIRY_REQUIRED');
  fails(await points({ amount: 1000, reason: '가입' }, dry), 400, 'POINT_EXPIRY_REQUIRED');
  fails(await points({ amount: -1000, reason: '회수' }), 409, 'POINT_BALANCE_INSUFFICIENT');
  fails(await points({ amount: -1000, reason: '회수' }, dry), 409, 'POINT_BALANCE_INSUFFICIENT');
  assert.equal(ok(await fresh.api('GET', '/v1/approval-requests')).contents, []);

  const expiresAt = new Date(svc.services.clock.now() + 30 * DAY * 1000).toISOString();
  assert.is(ok(await points({ amount: 700, reason: '보상', expiresAt }, dry)).decision, 'APPROVAL_REQUIRED');
  const pending = await points({ amount: 700, reason: '보상', expiresAt });
  assert.equal([pending.status, pending.body.meta.code], [202, 'APPROVAL_REQUIRED']);
  assert.is(ok(await fresh.api('GET', `/v1/customers/${buyer}/points`)).balance, 0);
  ok(await fresh.api('POST', `/v1/approval-requests/${pending.data.approvalId}/approve`));
  assert.is(ok(await fresh.api('GET', `/v1/customers/${buyer}/points`)).balance, 700);
  assert.is((await agent('PUT', '/v1/point-policy', { body: POLICY })).status, 202);
});

test('a member deciding the purchase earns at once, on what was paid beyond points, and only once', async () => {
  const p = await createProduct(api, { name: '구매 확정 적립', salePrice: 20000 });
  const m = await member(svc, api, 'decider');
  await grant(m.customerId, 5000);
  const start = ok(await pay(m.buyer, await sheetOf(m.buyer, [p]), { pointAmount: 5000 }), 201);
  const done = ok(await simulate(m.buyer, start.paymentId, 'APPROVE'));
  const item = ok(await api('GET', `/v1/orders/${done.orderId}`)).items[0];
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/confirm`));
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: 'D1' } }));
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/delivered`));
  const decide = () => m.buyer('POST', `/storefront/v1/me/order-items/${item.orderItemId}/actions/DECIDE_PURCHASE`, { body: {} });
  assert.is(ok(await decide()).coreStatus, 'PURCHASE_DECIDED');
  fails(await decide(), 409, 'ACTION_NOT_AVAILABLE');
  // The policy's 5% of the 15,000 paid beyond the 5,000 in points.
  const after = await ledger(m.customerId);
  assert.equal(
    after.contents.filter((e: any) => e.kind === 'EARN').map((e: any) => [e.amount, e.orderId, e.orderItemId]),
    [[750, done.orderId, item.orderItemId]],
  );
  assert.is(after.balance, 750);
});

test('units the seller canceled before the decision earn nothing; the kept ones earn on their share', async () => {
  const p = await createProduct(api, { name: '일부 취소 적립', salePrice: 10000 });
  const m = await member(svc, api, 'partial');
  const sheet = ok(
    await m.buyer('POST', '/storefront/v1/checkout', { body: { directItem: { quantity: 2, productId: p.productId, optionId: p.optionId } } }),
    201,
  );
  const done = ok(await simulate(m.buyer, ok(await pay(m.buyer, sheet, {}), 201).paymentId, 'APPROVE'));
  const item = ok(await api('GET', `/v1/orders/${done.orderId}`)).items[0];
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/confirm`));
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: 'P1' } }));
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/delivered`));
  ok(await m.buyer('POST', `/storefront/v1/me/order-items/${item.orderItemId}/actions/DECIDE_PURCHASE`, { body: {} }));
  // The policy's 5% of the one 10,000 unit kept.
  assert.equal(
    (await ledger(m.customerId)).contents.map((e: any) => [e.kind, e.amount]),
    [['EARN', 500]],
  );
});

test('a withdrawn buyer gets no new points: grants are refused and a later purchase decision earns nothing', async () => {
  const p = await createProduct(api, { name: '탈퇴 후 확정', salePrice: 10000 });
  const m = await member(svc, api, 'leaver');
  await grant(m.customerId, 3000);
  const done = ok(await simulate(m.buyer, ok(await pay(m.buyer, await sheetOf(m.buyer, [p]), {}), 201).paymentId, 'APPROVE'));
  const item = ok(await api('GET', `/v1/orders/${done.orderId}`)).items[0];
  ok(await api('POST', `/v1/customers/${m.customerId}/withdraw`));
  fails(await api('POST', `/v1/customers/${m.customerId}/points`, { body: { amount: 100, reason: '보상' } }), 409, 'CUSTOMER_ALREADY_WITHDRAWN');
  fails(
    await api('POST', `/v1/customers/${m.customerId}/points`, { body: { amount: 100, reason: '보상' }, headers: { 'x-svc-dry-run': '1' } }),
    409,
    'CUSTOMER_ALREADY_WITHDRAWN',
  );
  assert.is(ok(await api('POST', `/v1/customers/${m.customerId}/points`, { body: { amount: -3000, reason: '탈퇴 정리' } }), 201).balance, 0);
  assert.is(
    ok(await api('POST', `/v1/order-items/${item.orderItemId}/flow/move`, { body: { to: 'PURCHASE_DECIDED', reason: '탈퇴 회원 정리' } })).coreStatus,
    'PURCHASE_DECIDED',
  );
  assert.equal(
    (await ledger(m.customerId)).contents.map((e: any) => e.kind),
    ['DEDUCT', 'GRANT'],
  );
});

test.run();
