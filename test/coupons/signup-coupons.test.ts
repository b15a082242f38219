/**
 * Sign-up coupons over HTTP: a new member (POST /storefront/v1/members) holds every active SIGNUP coupon of
 * the store, with its use window, and sees them again after logging in; suspended and sold-out ones are
 * skipped without failing the sign-up, other issue types are never handed out, and SIGNUP coupons cannot be
 * downloaded; another store's SIGNUP coupons never reach this store's members.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi } from '../helpers/checkout.js';
import { createCoupon } from '../helpers/members.js';

let svc: TestService;
let api: Api;
let guest: Api;
test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  guest = buyerApi(svc, svc.storeId);
});
test.after(async () => {
  await svc.close();
});

let n = 0;
async function signUp() {
  const email = `signup${n++}-${Date.now().toString(36)}@example.com`;
  const password = 'secret-pass-1';
  const joined = ok(await guest('POST', '/storefront/v1/members', { body: { email, password, name: '김가입', phone: '010-2345-6789' } }), 201);
  const login = ok(await guest('POST', '/storefront/v1/members/login', { body: { email, password } }));
  return { customerId: joined.customer.customerId as string, member: buyerApi(svc, svc.storeId, login.accessToken) };
}
const held = async (member: Api) => ok(await member('GET', '/storefront/v1/me/coupons')).contents as any[];
const DAY = 86_400_000;

test('a new member holds each active SIGNUP coupon once, expiring by useDays or useEnd; suspended, sold-out and other types are skipped', async () => {
  const useEnd = new Date(svc.services.clock.now() + 30 * DAY).toISOString().replace(/\.\d+Z$/, '.000Z');
  const byDays = await createCoupon(api, { name: '가입 2주', issueType: 'SIGNUP', useDays: 14 });
  const byEnd = await createCoupon(api, { name: '가입 월말', issueType: 'SIGNUP', useEnd });
  const scarce = await createCoupon(api, { name: '선착순 1명', issueType: 'SIGNUP', totalQuantity: 1, useDays: 7 });
  const paused = await createCoupon(api, { name: '중지됨', issueType: 'SIGNUP', useDays: 7 });
  ok(await api('POST', `/v1/coupons/${paused.couponId}/suspend`));
  const download = await createCoupon(api, { name: '다운로드', issueType: 'DOWNLOAD', useDays: 7 });

  const first = await signUp();
  const items = await held(first.member);
  const ids = items.map((i) => i.couponId).sort();
  assert.equal(ids, [byDays.couponId, byEnd.couponId, scarce.couponId].sort());
  assert.ok(items.every((i) => i.source === 'SIGNUP' && i.usedAt === null && i.orderId === null));
  const days = items.find((i) => i.couponId === byDays.couponId);
  assert.ok(Math.abs(Date.parse(days.expiresAt) - (svc.services.clock.now() + 14 * DAY)) < 5 * 60_000, days.expiresAt);
  assert.is(Date.parse(items.find((i) => i.couponId === byEnd.couponId).expiresAt), Date.parse(useEnd));
  assert.not.ok(ids.includes(download.couponId));

  // The last of a limited coupon went to the first member; the next one still signs up.
  const second = await signUp();
  assert.equal((await held(second.member)).map((i) => i.couponId).sort(), [byDays.couponId, byEnd.couponId].sort());
  const counts = ok(await api('GET', `/v1/coupons/${scarce.couponId}`));
  assert.equal([counts.issuedCount, counts.totalQuantity], [1, 1]);

  // Resumed, the paused coupon reaches members who join afterwards only.
  ok(await api('POST', `/v1/coupons/${paused.couponId}/resume`));
  const third = await signUp();
  assert.ok((await held(third.member)).some((i) => i.couponId === paused.couponId));
  assert.not.ok((await held(second.member)).some((i) => i.couponId === paused.couponId));
});

test('SIGNUP coupons are not downloadable, even by members who lack them', async () => {
  const welcome = await createCoupon(api, { name: '가입 축하', issueType: 'SIGNUP', useDays: 7 });
  const { member } = await signUp();
  fails(await member('POST', `/storefront/v1/coupons/${welcome.couponId}/download`), 409, 'COUPON_NOT_DOWNLOADABLE');
  const listed = ok(await member('GET', '/storefront/v1/coupons')).contents as any[];
  assert.not.ok(listed.some((c) => c.couponId === welcome.couponId && c.downloadable));
});

test("another store's SIGNUP coupons never reach this store's new members", async () => {
  const other = await newSellerWithStore(svc, 'signup');
  const theirs = await createCoupon(other.api, { name: '남의 가입 쿠폰', issueType: 'SIGNUP', useDays: 7 });
  const ours = await createCoupon(api, { name: '우리 가입 쿠폰', issueType: 'SIGNUP', useDays: 7 });
  const { member } = await signUp();
  const ids = (await held(member)).map((i) => i.couponId);
  assert.ok(ids.includes(ours.couponId));
  assert.not.ok(ids.includes(theirs.couponId));
  assert.is(ok(await other.api('GET', `/v1/coupons/${theirs.couponId}`)).issuedCount, 0);
});

test('a buyer created by delegation holds the SIGNUP coupons too; delegating to it again hands out none', async () => {
  const seller = await newSellerWithStore(svc, 'delegated-signup');
  const welcome = await createCoupon(seller.api, { name: '위임 가입 쿠폰', issueType: 'SIGNUP', useDays: 7 });
  const delegate = () => seller.api('POST', '/v1/customers/delegations', { body: { uid: 'site-member-1', name: '위임 회원' } });
  const first = ok(await delegate(), 201);
  const member = buyerApi(svc, seller.storeId, first.accessToken);
  assert.equal(
    (await held(member)).map((i) => [i.couponId, i.source]),
    [[welcome.couponId, 'SIGNUP']],
  );
  const again = ok(await delegate());
  assert.is(again.created, false);
  assert.is((await held(buyerApi(svc, seller.storeId, again.accessToken))).length, 1);
  assert.is(ok(await seller.api('GET', `/v1/coupons/${welcome.couponId}`)).issuedCount, 1);
});

test.run();
