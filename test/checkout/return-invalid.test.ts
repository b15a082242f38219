/**
 * The gateway's return without payment information (spec 02 "payment result seen by storefronts"): the
 * buyer still goes back to the storefront's return address, with `status=INVALID`, and the payment is
 * left as it was (retryable, or approvable through a proper return).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Api, TestService } from '../helpers/service.js';
import type { FakeGateway } from '../helpers/fake-gateway.js';
import { ADDRESS, GUEST, directSheet, ok, startGuestPayment } from '../helpers/checkout.js';
import { SHOP_RETURN, startLiveStore } from '../helpers/live-checkout.js';

let svc: TestService;
let fake: FakeGateway;
let api: Api;
let guest: Api;
let item: { productId: string; optionId: string };
let close: () => Promise<void>;

test.before(async () => {
  ({ svc, fake, api, guest, item, close } = await startLiveStore('returninvalid', { name: '반환 상품', salePrice: 12000 }));
});
test.after(() => close());

const startLive = async () =>
  ok(await startGuestPayment(guest, await directSheet(guest, item), { returnUrl: SHOP_RETURN, shippingAddress: ADDRESS, guest: GUEST }), 201);
const back = async (path: string) => {
  const res = await fetch(`${svc.url}${path}`, { redirect: 'manual' });
  return { status: res.status, to: res.headers.get('location') ? new URL(res.headers.get('location')!) : null };
};

test('a return with neither the gateway key nor a failure goes back to the storefront as INVALID; the window stays usable', async () => {
  const start = await startLive();
  const { status, to } = await back(`/pay/${start.paymentId}/return?attemptId=${start.attemptId}`);
  assert.equal([status, `${to!.origin}${to!.pathname}`], [303, SHOP_RETURN]);
  assert.equal([to!.searchParams.get('status'), to!.searchParams.get('paymentId')], ['INVALID', start.paymentId]);
  const record = ok(await api('GET', `/v1/payments/${start.paymentId}`));
  assert.equal([record.attempts.length, record.attempts[0].status], [1, 'READY']);

  // The gateway's proper return afterwards still completes the payment.
  const pgOrderId = record.attempts[0].pgOrderId;
  fake.payments.set('tpk_invalid_1', {
    key: 'tpk_invalid_1',
    orderId: pgOrderId,
    amount: start.amounts.totalAmount,
    status: 'IN_PROGRESS',
    method: '카드',
    canceled: 0,
  });
  const done = await back(`/pay/${start.paymentId}/return?attemptId=${start.attemptId}&paymentKey=tpk_invalid_1`);
  assert.is(done.to!.searchParams.get('status'), 'COMPLETED');
});

test('a return that does not name its attempt is INVALID too; an unknown payment has no return address (404)', async () => {
  const start = await startLive();
  const { status, to } = await back(`/pay/${start.paymentId}/return`);
  assert.equal([status, to!.searchParams.get('status'), to!.searchParams.get('paymentId')], [303, 'INVALID', start.paymentId]);
  assert.is((await back('/pay/pay_nope/return')).status, 404);
});

test.run();
