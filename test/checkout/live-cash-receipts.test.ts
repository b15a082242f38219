/**
 * Live cash receipts (spec 01 §3.4) through the gateways' cash receipt APIs, stood in by the fake gateway:
 * issued once the order is placed, reissued for what is left after a partial refund, canceled by a full
 * one; a refusal ends ISSUE_FAILED and reissue issues it; a silent gateway leaves it pending, tried again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, createAccessToken, login, type Api, type TestService } from '../helpers/service.js';
import type { FakeGateway } from '../helpers/fake-gateway.js';
import { fails, ok } from '../helpers/checkout.js';
import { buyLive, startLiveStore } from '../helpers/live-checkout.js';

let svc: TestService;
let fake: FakeGateway;
let api: Api;
let guest: Api;
let item: { productId: string; optionId: string };
let close: () => Promise<void>;
let seller: { email: string; password: string; storeId: string };

test.before(async () => {
  ({ svc, fake, api, guest, item, close, seller } = await startLiveStore('livereceipt', { name: '현금영수증 상품', salePrice: 15000 }));
});
test.after(() => close());

const INCOME = { type: 'INCOME_DEDUCTION', identityNumber: '010-5555-6666' };
const buyByTransfer = (key: string, quantity = 1) =>
  buyLive(svc, fake, api, guest, { ...item, quantity }, { key, option: 'pg_one:BANK_TRANSFER', gatewayMethod: '계좌이체', cashReceipt: INCOME });
const receiptOf = async (orderId: string) => ok(await api('GET', `/v1/orders/${orderId}`)).payment.cashReceipt;
const runJobs = async () => ok(await api('POST', '/_dev/v1/jobs/run'));
const issueCalls = () => fake.requests.filter((r) => r.path === '/v1/cash-receipts');

test('issued at the gateway; a partial refund cancels it and issues one for the rest; a full refund cancels it', async () => {
  const bought = await buyByTransfer('tpk_receipt_1', 2);
  await runJobs();
  const issued = await receiptOf(bought.orderId);
  assert.is(issued.status, 'ISSUED');
  const first = fake.cashReceipts.get(`rk_${bought.pgOrderId}-R1`)!;
  assert.equal([issued.status, issued.receiptNo, issued.amount], ['ISSUED', first.issueNumber, bought.amount]);
  assert.equal([first.amount, first.type, first.identityNumber], [bought.amount, '소득공제', '01055556666']);
  assert.equal(issueCalls()[0].body.orderId, `${bought.pgOrderId}-R1`);

  const order = ok(await api('GET', `/v1/orders/${bought.orderId}`));
  const id = order.items[0].orderItemId;
  const part = ok(await api('POST', `/v1/order-items/${id}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  assert.is(part.refundStatus, 'COMPLETED');
  await runJobs();
  const reissued = await receiptOf(bought.orderId);
  const second = fake.cashReceipts.get(`rk_${bought.pgOrderId}-R2`)!;
  assert.equal([first.status, second.status, second.amount], ['CANCELED', 'ISSUED', bought.amount - part.amounts.cashRefundAmount]);
  assert.equal([reissued.status, reissued.receiptNo, reissued.amount], ['ISSUED', second.issueNumber, second.amount]);

  ok(await api('POST', `/v1/order-items/${id}/cancel`, { body: { quantity: 1, reason: 'OUT_OF_STOCK' } }));
  await runJobs();
  assert.is((await receiptOf(bought.orderId)).status, 'ISSUE_CANCELED');
  assert.is(second.status, 'CANCELED');
  assert.is(fake.cashReceipts.size, 2, 'no receipt was issued twice');
});

test('a refusal ends ISSUE_FAILED; reissue issues it through the gateway; silence is tried again, never issued twice', async () => {
  const refused = await buyByTransfer('tpk_receipt_2');
  fake.script.set('/v1/cash-receipts', { status: 400, body: { code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' } });
  await runJobs();
  assert.is((await receiptOf(refused.orderId)).status, 'ISSUE_FAILED');
  assert.is(ok(await api('POST', `/v1/orders/${refused.orderId}/cash-receipt/reissue`)).status, 'ISSUE_PENDING');
  await runJobs();
  const reissued = await receiptOf(refused.orderId);
  assert.equal([reissued.status, reissued.receiptNo], ['ISSUED', fake.cashReceipts.get(`rk_${refused.pgOrderId}-R1`)!.issueNumber]);

  // The gateway fails inside (5xx): pending, then tried again later under the same receipt id.
  const silent = await buyByTransfer('tpk_receipt_3');
  fake.script.set('/v1/cash-receipts', { status: 500, body: { code: 'FAILED_INTERNAL_SYSTEM_PROCESSING', message: '내부 시스템 처리 작업이 실패했습니다.' } });
  await runJobs();
  assert.is((await receiptOf(silent.orderId)).status, 'ISSUE_PENDING');
  await svc.advance(10 * 60);
  const later = await receiptOf(silent.orderId);
  assert.equal([later.status, later.amount], ['ISSUED', silent.amount]);
  assert.equal(
    issueCalls()
      .filter((r) => r.body.orderId === `${silent.pgOrderId}-R1`)
      .map((r) => r.body.amount),
    [silent.amount, silent.amount],
  );
});

test("an AI agent's reissue is held for approval (spec 01 §5.6), and runs once an OWNER approves it", async () => {
  const refused = await buyByTransfer('tpk_receipt_agent');
  fake.script.set('/v1/cash-receipts', { status: 400, body: { code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' } });
  await runJobs();
  fake.script.delete('/v1/cash-receipts');
  assert.is((await receiptOf(refused.orderId)).status, 'ISSUE_FAILED');

  const owner = await login(svc, seller.email, seller.password);
  const reissue = (token: string) => apiClient(svc.url, { token, storeId: seller.storeId })('POST', `/v1/orders/${refused.orderId}/cash-receipt/reissue`);
  // An ordinary access token is not the store platform: still refused.
  fails(await reissue(await createAccessToken(svc, owner, { scopes: ['order:rw'] })), 403, 'INSUFFICIENT_ROLE');

  const held = await reissue(await createAccessToken(svc, owner, { scopes: ['order:rw'], agent: true }));
  assert.equal([held.status, held.body.meta.code, held.data.status, held.data.operationId], [202, 'APPROVAL_REQUIRED', 'PENDING', 'reissueCashReceipt']);
  assert.is((await receiptOf(refused.orderId)).status, 'ISSUE_FAILED', 'nothing runs before the approval');

  const approved = ok(await apiClient(svc.url, { token: owner, storeId: seller.storeId })('POST', `/v1/approval-requests/${held.data.approvalId}/approve`));
  assert.equal([approved.status, approved.result.statusCode, approved.result.data.status], ['SUCCEEDED', 200, 'ISSUE_PENDING']);
  await runJobs();
  assert.is((await receiptOf(refused.orderId)).status, 'ISSUED');
});

test.run();
