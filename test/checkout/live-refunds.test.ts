/**
 * Live refunds the gateway will not make now (spec 01 §2.8 refund `HELD`, §4.3 process, §5.4
 * `heldRefundAmount`): a refusal only the seller can clear holds the refund at once; any other refusal is
 * tried again less and less often, then held; `process` sends a held refund again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, login, newSellerWithStore, type Api, type TestService } from '../helpers/service.js';
import type { FakeGateway } from '../helpers/fake-gateway.js';
import { ok } from '../helpers/checkout.js';
import { PG_ONE_LIVE } from '../helpers/payment-providers.js';
import { buyLive, startLiveStore } from '../helpers/live-checkout.js';

let svc: TestService;
let fake: FakeGateway;
let seller: Awaited<ReturnType<typeof newSellerWithStore>>;
let api: Api;
let guest: Api;
let item: { productId: string; optionId: string };
let close: () => Promise<void>;

test.before(async () => {
  ({ svc, fake, seller, api, guest, item, close } = await startLiveStore('liverefund', { name: '환불 상품', salePrice: 15000 }));
});
test.after(() => close());

/** Login tokens do not outlive the hours the clock moves on here: the seller logs in again. */
const relogin = async () => {
  api = apiClient(svc.url, { token: await login(svc, seller.email, seller.password), storeId: seller.storeId });
};
const cancelCalls = (key: string) => fake.requests.filter((r) => r.path === `/v1/payments/${key}/cancel`).length;
const BALANCE_SHORT = { status: 403, body: { code: 'NOT_CANCELABLE_PAYMENT', message: '가맹점 잔액이 부족해 취소할 수 없습니다.' } };

test('a refusal the seller must clear holds the live refund; the payment list shows heldRefundAmount and the merchant; process sends it', async () => {
  const bought = await buyLive(svc, fake, api, guest, item, { key: 'tpk_held_1' });
  fake.payments.get('tpk_held_1')!.cancelRefusal = BALANCE_SHORT;
  const order = ok(await api('GET', `/v1/orders/${bought.orderId}`));
  const canceled = ok(await api('POST', `/v1/order-items/${order.items[0].orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  assert.is(canceled.refundStatus, 'HELD');
  const record = ok(await api('GET', `/v1/payments/${bought.paymentId}`));
  assert.equal(
    record.refunds.map((r: any) => [r.status, r.heldReason, r.amount]),
    [['HELD', BALANCE_SHORT.body.message, bought.amount]],
  );
  assert.is(record.heldRefundAmount, bought.amount);
  const listed = ok(await api('GET', '/v1/payments', { query: { keyword: bought.paymentId } })).contents[0];
  assert.equal([listed.heldRefundAmount, listed.merchant, listed.environment], [bought.amount, PG_ONE_LIVE.clientKey, 'LIVE']);
  // Held means held: the refunds job leaves it alone.
  await svc.advance(3600);
  assert.is(cancelCalls('tpk_held_1'), 1);
  await relogin();

  // The seller topped up the balance: process sends it again, once.
  delete fake.payments.get('tpk_held_1')!.cancelRefusal;
  const processed = ok(await api('POST', `/v1/payments/refunds/${record.refunds[0].refundId}/process`));
  assert.equal([processed.status, processed.heldReason], ['COMPLETED', null]);
  assert.equal([cancelCalls('tpk_held_1'), fake.payments.get('tpk_held_1')!.canceled], [2, bought.amount]);
  const after = ok(await api('GET', '/v1/payments', { query: { keyword: bought.paymentId } })).contents[0];
  assert.equal([after.heldRefundAmount, after.status], [0, 'CANCELED']);
});

test('any other live refusal is retried less and less often, then held a day later; process tries it once more', async () => {
  const bought = await buyLive(svc, fake, api, guest, item, { key: 'tpk_held_2' });
  fake.payments.get('tpk_held_2')!.cancelRefusal = {
    status: 500,
    body: { code: 'FAILED_REFUND_PROCESS', message: '은행 응답시간 지연이나 일시적인 오류로 환불요청에 실패했습니다.' },
  };
  const order = ok(await api('GET', `/v1/orders/${bought.orderId}`));
  const canceled = ok(await api('POST', `/v1/order-items/${order.items[0].orderItemId}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  assert.is(canceled.refundStatus, 'PROCESSING');
  // Ten minutes of job runs, one a minute: each wait as long as the refund has waited (about 1, 2, 4, 8
  // minutes), so a handful of tries, not one a minute.
  for (let minute = 1; minute <= 10; minute++) await svc.advance(60);
  assert.ok(cancelCalls('tpk_held_2') <= 5, `${cancelCalls('tpk_held_2')} cancels in ten minutes`);
  await relogin();
  let refund = ok(await api('GET', `/v1/payments/${bought.paymentId}`)).refunds[0];
  assert.equal([refund.status, refund.failure.code], ['PROCESSING', 'FAILED_REFUND_PROCESS']);

  await svc.advance(24 * 3600);
  await relogin();
  const record = ok(await api('GET', `/v1/payments/${bought.paymentId}`));
  refund = record.refunds[0];
  assert.equal(
    [refund.status, refund.heldReason, record.heldRefundAmount],
    ['HELD', '은행 응답시간 지연이나 일시적인 오류로 환불요청에 실패했습니다.', bought.amount],
  );
  const calls = cancelCalls('tpk_held_2');
  await svc.advance(3600);
  assert.is(cancelCalls('tpk_held_2'), calls, 'a held refund waits for the seller');

  // Processed while the gateway still refuses: one call, held again.
  await relogin();
  assert.is(ok(await api('POST', `/v1/payments/refunds/${refund.refundId}/process`)).status, 'HELD');
  assert.is(cancelCalls('tpk_held_2'), calls + 1);
});

test.run();
