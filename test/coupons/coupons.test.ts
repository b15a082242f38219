/**
 * Coupons over HTTP: the admin rules and their refusals, grants with partial success, downloads (members
 * only, windows, per-buyer limit, sold out under a race), and coupons at checkout — priced, refused by
 * field with the reason, held by the payment (one of two concurrent payments wins), given back when the
 * payment ends unpaid, and on the order per item.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct } from '../helpers/checkout.js';
import { createCoupon, fieldCodes, longLivedApi, member, pay, price, sheetOf, signIn, simulate } from '../helpers/members.js';

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
/** The owner's login as of now (logins last 15 minutes; tests move the clock by days). */
const freshLogin = () => login(svc);
const iso = (ms: number) => new Date(ms).toISOString();
const now = async () => Date.parse(ok(await api('GET', '/_dev/v1/clock')).now);

test('admin: rules are checked field by field; get, list, rule change, suspend and resume; another store sees nothing', async () => {
  const p = await createProduct(api, { name: '쿠폰 대상', salePrice: 20000 });
  const cases: [Record<string, unknown>, string, string][] = [
    [{ issueType: 'MANUAL', benefit: { method: 'PERCENT', value: 150 } }, 'benefit.value', 'OUT_OF_RANGE'],
    [{ issueType: 'MANUAL', benefit: { method: 'AMOUNT', value: 1000, maxDiscountAmount: 500 } }, 'benefit.maxDiscountAmount', 'NOT_APPLICABLE'],
    [{ issueType: 'CODE' }, 'code', 'REQUIRED'],
    [{ issueType: 'MANUAL', code: 'WELCOME' }, 'code', 'NOT_APPLICABLE'],
    [{ issueType: 'MANUAL', downloadStart: iso(Date.now()) }, 'downloadStart', 'NOT_APPLICABLE'],
    [{ issueType: 'MANUAL', useDays: 3, useEnd: iso(Date.now() + 1e9) }, 'useEnd', 'CONFLICT'],
    [{ issueType: 'MANUAL', target: { kind: 'PRODUCTS', ids: ['prd_nope'] } }, 'target.ids.0', 'NOT_FOUND'],
    [{ issueType: 'MANUAL', target: { kind: 'CATEGORIES', ids: [] } }, 'target.ids', 'REQUIRED'],
  ];
  for (const [body, field, code] of cases) {
    const res = await api('POST', '/v1/coupons', { body: { name: '틀린 쿠폰', benefit: { method: 'AMOUNT', value: 1000 }, ...body } });
    fails(res, 400, 'VALIDATION_FAILED');
    assert.equal(fieldCodes(res), [[field, code]], JSON.stringify(body));
  }
  const coded = await createCoupon(api, {
    issueType: 'CODE',
    code: 'SPRING-10',
    benefit: { method: 'PERCENT', value: 10, maxDiscountAmount: 3000 },
    target: { kind: 'PRODUCTS', ids: [p.productId] },
  });
  assert.equal(
    [coded.code, coded.status, coded.issuedCount, coded.usedCount, coded.perCustomerLimit, coded.stackable],
    ['SPRING-10', 'ACTIVE', 0, 0, 1, false],
  );
  assert.equal(
    fieldCodes(
      await api('POST', '/v1/coupons', { body: { name: '같은 코드', issueType: 'CODE', code: 'SPRING-10', benefit: { method: 'AMOUNT', value: 1 } } }),
    ),
    [['code', 'TAKEN']],
  );
  assert.equal(ok(await api('GET', `/v1/coupons/${coded.couponId}`)), coded);
  assert.ok(ok(await api('GET', '/v1/coupons', { query: { issueType: 'CODE' } })).contents.some((c: any) => c.couponId === coded.couponId));

  const changed = ok(await api('PATCH', `/v1/coupons/${coded.couponId}`, { body: { name: '봄 할인', stackable: true } }));
  assert.equal([changed.name, changed.stackable, changed.code], ['봄 할인', true, 'SPRING-10']);
  fails(await api('PATCH', `/v1/coupons/${coded.couponId}`, { body: { issueType: 'MANUAL' } }), 400, 'VALIDATION_FAILED');
  fails(await api('POST', `/v1/coupons/${coded.couponId}/resume`), 409, 'COUPON_STATUS_CONFLICT');
  assert.is(ok(await api('POST', `/v1/coupons/${coded.couponId}/suspend`)).status, 'SUSPENDED');
  fails(await api('POST', `/v1/coupons/${coded.couponId}/suspend`), 409, 'COUPON_STATUS_CONFLICT');
  assert.is(ok(await api('POST', `/v1/coupons/${coded.couponId}/resume`)).status, 'ACTIVE');

  const other = await newSellerWithStore(svc, 'cpn');
  const peek = await other.api('GET', `/v1/coupons/${coded.couponId}`);
  assert.ok([403, 404].includes(peek.status));
  assert.ok(!ok(await other.api('GET', '/v1/coupons')).contents.some((c: any) => c.couponId === coded.couponId));
  const poke = await other.api('POST', `/v1/coupons/${coded.couponId}/suspend`);
  assert.ok([403, 404].includes(poke.status));
  assert.is(ok(await api('GET', `/v1/coupons/${coded.couponId}`)).status, 'ACTIVE');
});

test('agents: create, rule change, grant and resume wait for approval; suspend runs directly; promotion:r cannot write', async () => {
  const owner = await freshLogin();
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['promotion:rw'], agent: true }), storeId: svc.storeId });
  const coupon = await createCoupon(api, { issueType: 'MANUAL' });
  const pending = (res: any) => assert.equal([res.status, res.body.meta.code], [202, 'APPROVAL_REQUIRED']);
  pending(await agent('POST', '/v1/coupons', { body: { name: '에이전트 쿠폰', issueType: 'MANUAL', benefit: { method: 'AMOUNT', value: 500 } } }));
  pending(await agent('PATCH', `/v1/coupons/${coupon.couponId}`, { body: { name: '바꿈' } }));
  pending(await agent('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: ['cus_x'] } }));
  assert.is(ok(await agent('POST', `/v1/coupons/${coupon.couponId}/suspend`)).status, 'SUSPENDED');
  pending(await agent('POST', `/v1/coupons/${coupon.couponId}/resume`));
  const reader = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['promotion:r'] }), storeId: svc.storeId });
  assert.is(ok(await reader('GET', `/v1/coupons/${coupon.couponId}`)).status, 'SUSPENDED');
  fails(await reader('POST', `/v1/coupons/${coupon.couponId}/resume`), 403, 'INSUFFICIENT_ROLE');
});

test('grants: up to 100 buyers, each succeeding or failing on its own; only MANUAL coupons, only while active', async () => {
  const a = await member(svc, api, 'grant-a');
  const b = await member(svc, api, 'grant-b');
  const coupon = await createCoupon(api, { issueType: 'MANUAL', totalQuantity: 2, useDays: 7 });
  const first = ok(await api('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: [a.customerId, 'cus_unknown'] } }));
  assert.equal(
    first.granted.map((g: any) => [g.customerId, g.couponItem.source, g.couponItem.usedAt]),
    [[a.customerId, 'MANUAL', null]],
  );
  assert.equal(
    first.failed.map((f: any) => [f.customerId, f.code]),
    [['cus_unknown', 'CUSTOMER_NOT_FOUND']],
  );
  assert.ok(Math.abs(Date.parse(first.granted[0].couponItem.expiresAt) - (await now()) - 7 * DAY * 1000) < 60_000);
  const second = ok(await api('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: [a.customerId, b.customerId] } }));
  assert.equal([second.granted.map((g: any) => g.customerId), second.failed.map((f: any) => f.code)], [[b.customerId], ['COUPON_LIMIT_REACHED']]);
  const c = await member(svc, api, 'grant-c');
  assert.equal(
    ok(await api('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: [c.customerId] } })).failed.map((f: any) => f.code),
    ['COUPON_SOLD_OUT'],
  );
  fails(
    await api('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: Array.from({ length: 101 }, (_, i) => `cus_${i}`) } }),
    400,
    'VALIDATION_FAILED',
  );
  const download = await createCoupon(api, { issueType: 'DOWNLOAD' });
  fails(await api('POST', `/v1/coupons/${download.couponId}/grants`, { body: { customerIds: [a.customerId] } }), 409, 'COUPON_NOT_GRANTABLE');
  const mine = ok(await a.buyer('GET', '/storefront/v1/me/coupons')).contents;
  assert.equal(
    mine.map((i: any) => [i.couponId, i.source, i.coupon.name]),
    [[coupon.couponId, 'MANUAL', '테스트 쿠폰']],
  );
});

test('downloads: members only, within the window, once per buyer, and never past the quantity — 30 buyers racing for the last 10', async () => {
  const p = await createProduct(api, { name: '다운로드 대상' });
  const t = await now();
  const later = await createCoupon(api, { issueType: 'DOWNLOAD', downloadStart: iso(t + DAY * 1000) });
  const open = await createCoupon(api, {
    issueType: 'DOWNLOAD',
    downloadEnd: iso(t + DAY * 1000),
    target: { kind: 'PRODUCTS', ids: [p.productId] },
    useDays: 30,
  });
  const m = await member(svc, api, 'downloader');
  const guest = buyerApi(svc, svc.storeId);
  fails(await guest('POST', `/storefront/v1/coupons/${open.couponId}/download`), 401, 'COUPON_MEMBERS_ONLY');
  fails(await m.buyer('POST', `/storefront/v1/coupons/${later.couponId}/download`), 409, 'COUPON_NOT_STARTED');
  const listed = ok(await m.buyer('GET', '/storefront/v1/coupons', { query: { productId: p.productId } })).contents.find(
    (c: any) => c.couponId === open.couponId,
  );
  assert.equal([listed.downloaded, listed.downloadable], [false, true]);
  assert.equal(
    ok(await guest('GET', '/storefront/v1/coupons', { query: { productId: p.productId } })).contents.find((c: any) => c.couponId === open.couponId).downloaded,
    undefined,
  );
  const item = ok(await m.buyer('POST', `/storefront/v1/coupons/${open.couponId}/download`), 201);
  assert.equal([item.source, item.usedAt, item.orderId], ['DOWNLOAD', null, null]);
  assert.match(item.code, /^CP-[A-Z2-9]{5}-[A-Z2-9]{5}$/);
  fails(await m.buyer('POST', `/storefront/v1/coupons/${open.couponId}/download`), 409, 'COUPON_ALREADY_DOWNLOADED');
  const after = ok(await m.buyer('GET', '/storefront/v1/coupons', { query: { productId: p.productId } })).contents.find(
    (c: any) => c.couponId === open.couponId,
  );
  assert.equal([after.downloaded, after.downloadable], [true, false]);
  fails(await m.buyer('POST', '/storefront/v1/coupons/cpn_nope/download'), 404, 'COUPON_NOT_FOUND');
  const manual = await createCoupon(api, { issueType: 'MANUAL' });
  fails(await m.buyer('POST', `/storefront/v1/coupons/${manual.couponId}/download`), 409, 'COUPON_NOT_DOWNLOADABLE');
  await svc.advance(DAY + 1);
  const late = await member(svc, api, 'late');
  fails(await late.buyer('POST', `/storefront/v1/coupons/${open.couponId}/download`), 409, 'COUPON_DOWNLOAD_ENDED');

  const scarce = await createCoupon(api, { issueType: 'DOWNLOAD', totalQuantity: 10 });
  const buyers = await Promise.all(Array.from({ length: 30 }, (_, i) => member(svc, api, `racer${i}`)));
  const answers = await Promise.all(buyers.map((b) => b.buyer('POST', `/storefront/v1/coupons/${scarce.couponId}/download`)));
  assert.is(answers.filter((r) => r.status === 201).length, 10);
  assert.equal([...new Set(answers.filter((r) => r.status !== 201).map((r) => r.body.error.code))], ['COUPON_SOLD_OUT']);
  assert.is(ok(await api('GET', `/v1/coupons/${scarce.couponId}`)).issuedCount, 10);
});

test('checkout: two stackable coupons priced and held, the discount spread over the items it targets; refused codes say why', async () => {
  const shirt = await createProduct(api, { name: '셔츠', salePrice: 30000 });
  const socks = await createProduct(api, { name: '양말', salePrice: 10000 });
  const m = await member(svc, api, 'shopper');
  const percent = await createCoupon(api, {
    issueType: 'MANUAL',
    benefit: { method: 'PERCENT', value: 20, maxDiscountAmount: 5000 },
    target: { kind: 'PRODUCTS', ids: [shirt.productId] },
    stackable: true,
  });
  const amount = await createCoupon(api, { issueType: 'MANUAL', benefit: { method: 'AMOUNT', value: 2000 }, minOrderAmount: 35000, stackable: true });
  const solo = await createCoupon(api, { issueType: 'MANUAL', benefit: { method: 'AMOUNT', value: 500 } });
  const grant = async (c: any) =>
    ok(await api('POST', `/v1/coupons/${c.couponId}/grants`, { body: { customerIds: [m.customerId] } })).granted[0].couponItem.code as string;
  const [p20, a2000, s500] = [await grant(percent), await grant(amount), await grant(solo)];

  const sheet = await sheetOf(m.buyer, [shirt, socks]);
  assert.equal(sheet.amounts.itemsAmount, 40000);
  const preview = ok(await price(m.buyer, sheet, { coupons: [{ code: p20 }, { code: a2000 }] }));
  // 20% of the shirt (6,000) capped at 5,000; then 2,000 over what is left of both items.
  assert.equal([preview.amounts.couponDiscountAmount, preview.amounts.totalAmount], [7000, 40000 + 3000 - 7000]);

  const refused = await price(m.buyer, sheet, { coupons: [{ code: 'NOPE' }, { code: p20 }, { code: p20 }, { code: s500 }] });
  fails(refused, 400, 'VALIDATION_FAILED');
  assert.equal(fieldCodes(refused), [
    ['coupons.0.code', 'COUPON_NOT_FOUND'],
    ['coupons.2.code', 'COUPON_DUPLICATE'],
    ['coupons.3.code', 'COUPON_NOT_STACKABLE'],
  ]);
  const socksOnly = await sheetOf(m.buyer, [socks]);
  assert.equal(fieldCodes(await price(m.buyer, socksOnly, { coupons: [{ code: p20 }] })), [['coupons.0.code', 'COUPON_NOT_APPLICABLE']]);
  assert.equal(fieldCodes(await price(m.buyer, socksOnly, { coupons: [{ code: a2000 }] })), [['coupons.0.code', 'COUPON_MIN_ORDER_AMOUNT']]);
  const stranger = await member(svc, api, 'stranger');
  assert.equal(fieldCodes(await price(stranger.buyer, await sheetOf(stranger.buyer, [shirt]), { coupons: [{ code: p20 }] })), [
    ['coupons.0.code', 'COUPON_NOT_OWNED'],
  ]);

  const start = ok(await pay(m.buyer, sheet, { coupons: [{ code: p20 }, { code: a2000 }] }), 201);
  assert.is(start.amounts.couponDiscountAmount, 7000);
  assert.equal(fieldCodes(await price(m.buyer, socksOnly, { coupons: [{ code: s500 }, { code: a2000 }] })), [['coupons.1.code', 'COUPON_ALREADY_USED']]);
  const done = ok(await simulate(m.buyer, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal([order.amounts.couponDiscountAmount, order.amounts.totalAmount, order.payment.amount], [7000, 36000, 36000]);
  // Shirt: 5,000 + 1,500 (2,000 × 25,000/35,000 rounded down); socks: the rest of the 2,000.
  assert.equal(
    order.items.map((i: any) => [i.productName, i.couponDiscountAmount]),
    [
      ['셔츠', 6428],
      ['양말', 572],
    ],
  );
  const held = ok(await m.buyer('GET', '/storefront/v1/me/coupons')).contents.filter((i: any) => i.orderId === done.orderId);
  assert.equal(held.map((i: any) => i.couponId).sort(), [percent.couponId, amount.couponId].sort());
  assert.is(ok(await api('GET', `/v1/coupons/${percent.couponId}`)).usedCount, 1);
});

test('price preview: read from remembered sheets, coupons and settings, it shows the next change of each', async () => {
  const tee = await createProduct(api, { name: '티셔츠', salePrice: 20000 });
  const m = await member(svc, api, 'previewer');
  const coupon = await createCoupon(api, { issueType: 'MANUAL', benefit: { method: 'AMOUNT', value: 1000 } });
  const code = ok(await api('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: [m.customerId] } })).granted[0].couponItem.code;
  const sheet = await sheetOf(m.buyer, [tee]);
  const discount = async () => ok(await price(m.buyer, sheet, { coupons: [{ code }] })).amounts.couponDiscountAmount;
  assert.is(await discount(), 1000);
  assert.is(await discount(), 1000, 'again, from what the first preview read');

  ok(await api('POST', `/v1/coupons/${coupon.couponId}/suspend`));
  assert.equal(fieldCodes(await price(m.buyer, sheet, { coupons: [{ code }] })), [['coupons.0.code', 'COUPON_NOT_ACTIVE']]);
  ok(await api('POST', `/v1/coupons/${coupon.couponId}/resume`));
  assert.is(await discount(), 1000);

  // Points: off by default, then on as soon as the policy says so, within the balance the member has.
  fails(await price(m.buyer, sheet, { pointAmount: 1000 }), 409, 'POINTS_UNAVAILABLE');
  ok(
    await api('PUT', '/v1/point-policy', {
      body: { earnEnabled: false, defaultEarnRateBp: 100, validityDays: 30, useEnabled: true, minUseAmount: 0, maxUseRateBp: 10_000 },
    }),
  );
  assert.equal(fieldCodes(await price(m.buyer, sheet, { pointAmount: 1000 })), [['pointAmount', 'POINT_BALANCE_INSUFFICIENT']]);
  ok(await api('POST', `/v1/customers/${m.customerId}/points`, { body: { amount: 1000, reason: '미리보기' } }), 201);
  assert.is(ok(await price(m.buyer, sheet, { coupons: [{ code }], pointAmount: 1000 })).amounts.totalAmount, 20000 + 3000 - 1000 - 1000);
  ok(
    await api('PUT', '/v1/point-policy', {
      body: { earnEnabled: false, defaultEarnRateBp: 100, validityDays: 30, useEnabled: false, minUseAmount: 0, maxUseRateBp: 10_000 },
    }),
  );
  fails(await price(m.buyer, sheet, { pointAmount: 1000 }), 409, 'POINTS_UNAVAILABLE');
});

test('one coupon in two concurrent payments: one wins; a payment that ends unpaid gives its coupon back; a CODE coupon is typed by guests', async () => {
  const p = await createProduct(api, { name: '경쟁 상품', salePrice: 15000 });
  const m = await member(svc, api, 'racer');
  const coupon = await createCoupon(api, { issueType: 'MANUAL', useDays: 30 });
  const code = ok(await api('POST', `/v1/coupons/${coupon.couponId}/grants`, { body: { customerIds: [m.customerId] } })).granted[0].couponItem.code;
  const [s1, s2] = [await sheetOf(m.buyer, [p]), await sheetOf(m.buyer, [p])];
  const [r1, r2] = await Promise.all([pay(m.buyer, s1, { coupons: [{ code }] }), pay(m.buyer, s2, { coupons: [{ code }] })]);
  const statuses = [r1.status, r2.status].sort();
  assert.equal(statuses, [201, 400]);
  const loser = r1.status === 400 ? r1 : r2;
  assert.equal(fieldCodes(loser), [['coupons.0.code', 'COUPON_ALREADY_USED']]);
  const winner = r1.status === 201 ? r1 : r2;

  // The buyer closes the window and never pays: after the payment's 10 minutes the coupon is free again.
  ok(await simulate(m.buyer, winner.data.paymentId, 'CANCEL'));
  assert.equal(fieldCodes(await price(m.buyer, await sheetOf(m.buyer, [p]), { coupons: [{ code }] })), [['coupons.0.code', 'COUPON_ALREADY_USED']]);
  await svc.advance(11 * 60);
  const again = await sheetOf(m.buyer, [p]);
  assert.is(ok(await price(m.buyer, again, { coupons: [{ code }] })).amounts.couponDiscountAmount, 1000);
  assert.is(ok(await api('GET', `/v1/coupons/${coupon.couponId}`)).usedCount, 0);

  // Guests type a CODE coupon; its quantity counts the payments using it.
  const typed = await createCoupon(api, { issueType: 'CODE', code: 'GUEST-500', benefit: { method: 'AMOUNT', value: 500 }, totalQuantity: 1 });
  const guest = buyerApi(svc, svc.storeId);
  const gs = ok(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId: p.productId, optionId: p.optionId, quantity: 1 } } }), 201);
  const body = (extra: Record<string, unknown>) => ({
    option: 'pg_one:CARD',
    returnUrl: 'http://localhost:5173/done',
    guest: { name: '손님', phone: '01011112222', email: 'g@example.com', orderPassword: 'pass-1234' },
    shippingAddress: { receiverName: '손님', phone: '01011112222', zipCode: '06236', address1: '서울' },
    ...extra,
  });
  const gStart = ok(await guest('POST', `/storefront/v1/checkout/${gs.checkoutId}/payment`, { body: body({ coupons: [{ code: 'GUEST-500' }] }) }), 201);
  assert.is(gStart.amounts.couponDiscountAmount, 500);
  assert.is(ok(await api('GET', `/v1/coupons/${typed.couponId}`)).issuedCount, 1);
  const gs2 = ok(await guest('POST', '/storefront/v1/checkout', { body: { directItem: { productId: p.productId, optionId: p.optionId, quantity: 1 } } }), 201);
  assert.equal(
    fieldCodes(await guest('POST', `/storefront/v1/checkout/${gs2.checkoutId}/pricing`, { body: { coupons: [{ code: 'GUEST-500' }], pointAmount: 0 } })),
    [['coupons.0.code', 'COUPON_SOLD_OUT']],
  );

  // Expired and suspended coupons are refused at checkout.
  const short = await createCoupon(api, { issueType: 'MANUAL', useDays: 1 });
  const shortCode = ok(await api('POST', `/v1/coupons/${short.couponId}/grants`, { body: { customerIds: [m.customerId] } })).granted[0].couponItem.code;
  const paused = await createCoupon(api, { issueType: 'MANUAL' });
  const pausedCode = ok(await api('POST', `/v1/coupons/${paused.couponId}/grants`, { body: { customerIds: [m.customerId] } })).granted[0].couponItem.code;
  ok(await api('POST', `/v1/coupons/${paused.couponId}/suspend`));
  await svc.advance(DAY + 1);
  const back = await signIn(svc, api, m.uid);
  const late = await sheetOf(back.buyer, [p]);
  assert.equal(fieldCodes(await price(back.buyer, late, { coupons: [{ code: shortCode }] })), [['coupons.0.code', 'COUPON_EXPIRED']]);
  assert.equal(fieldCodes(await price(back.buyer, late, { coupons: [{ code: pausedCode }] })), [['coupons.0.code', 'COUPON_NOT_ACTIVE']]);
});

test.run();
