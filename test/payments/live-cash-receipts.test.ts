/**
 * The live adapters' cash receipt calls (spec 01 §3.4) against the fake gateway: pg_two as PortOne V2
 * (`POST /cash-receipts` under our id, a lost answer read back after CASH_RECEIPT_ALREADY_ISSUED, cancel by
 * that id); a live refusal of a cancel that needs the seller is HELD on both gateways. (pg_one's cash
 * receipts run end to end in test/checkout/live-cash-receipts.test.ts.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { startFakeGateway, type FakeGateway } from '../helpers/fake-gateway.js';
import { PG_ONE_LIVE, PG_TWO_LIVE, ok, providerOf } from '../helpers/payment-providers.js';

let svc: TestService;
let fake: FakeGateway;
let storeId: string;
let api: Api;
let payments: typeof import('../../src/modules/payments/checkout-api.js');

test.before(async () => {
  fake = await startFakeGateway(PG_ONE_LIVE.secretKey, PG_TWO_LIVE.apiSecret);
  process.env.SVC_PG_ONE_API_URL = fake.url;
  process.env.SVC_PG_TWO_API_URL = fake.url;
  svc = await startTestService();
  const seller = await newSellerWithStore(svc, 'livecr');
  api = seller.api;
  storeId = seller.storeId;
  payments = await import('../../src/modules/payments/checkout-api.js');
  // Live keys are stored without a pre-check while the store is not live; the gateway of that key set is used directly.
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_LIVE }));
  ok(await api('PUT', '/v1/store/payment-providers/pg_two', { body: PG_TWO_LIVE }));
});
test.after(async () => {
  await svc.close();
  await fake.close();
});

const liveGateway = async (pg: 'pg_one' | 'pg_two') => {
  const credentialId = providerOf(ok(await api('GET', '/v1/store/payment-settings')), pg).credentialSets.LIVE.credentialId;
  return payments.gatewayFor(svc.services, storeId, pg, { credentialId });
};

test('pg_two: a receipt under our id on the bank-transfer channel; a lost answer is read back, not issued twice; cancel', async () => {
  const gw = await liveGateway('pg_two');
  const input = { receiptId: '20261128000001-01-R1', orderName: '상품', amount: 12000, type: 'EXPENSE_PROOF' as const, identityNumber: '1234567890' };
  const issued = await gw.issueCashReceipt!(input);
  const receipt = fake.cashReceipts.get(input.receiptId)!;
  assert.equal(issued, { status: 'ISSUED', receiptKey: input.receiptId, issueNumber: receipt.issueNumber });
  assert.equal(fake.requests.at(-1)!.body, {
    storeId: PG_TWO_LIVE.storeId,
    paymentId: input.receiptId,
    channelKey: 'channel-key-transfer-0002',
    type: 'CORPORATE',
    orderName: '상품',
    currency: 'KRW',
    amount: { total: 12000 },
    customer: { identityNumber: '1234567890' },
  });
  // Asked again (the first answer never arrived): the gateway says it exists, and the adapter reads it back.
  assert.equal(await gw.issueCashReceipt!(input), issued);
  assert.is(fake.cashReceipts.size, 1);
  assert.equal(await gw.cancelCashReceipt!({ receiptKey: input.receiptId }), { status: 'CANCELED' });
  assert.is(receipt.status, 'CANCELED');
  fake.script.set('/cash-receipts', { status: 500, body: { type: 'PG_PROVIDER', message: 'temporarily unavailable' } });
  assert.is((await gw.issueCashReceipt!({ ...input, receiptId: '20261128000001-01-R2' })).status, 'PENDING');
});

test('a cancel refusal only the seller can clear is HELD (pg_one NOT_CANCELABLE_PAYMENT, pg_two PG_PROVIDER); others FAILED', async () => {
  fake.payments.set('tpk_hold', { key: 'tpk_hold', orderId: 'o-hold', amount: 5000, status: 'DONE', method: '카드', canceled: 0 });
  const one = await liveGateway('pg_one');
  fake.script.set('/v1/payments/tpk_hold/cancel', { status: 403, body: { code: 'NOT_CANCELABLE_PAYMENT', message: '잔액 부족' } });
  const held = await one.cancel({ pgTransactionId: 'tpk_hold', amount: 5000, reason: '환불' });
  assert.equal([held.status, held.failure!.code, held.failure!.message], ['HELD', 'NOT_CANCELABLE_PAYMENT', '잔액 부족']);
  fake.script.set('/v1/payments/tpk_hold/cancel', { status: 500, body: { code: 'FAILED_REFUND_PROCESS', message: '은행 응답 지연' } });
  const later = await one.cancel({ pgTransactionId: 'tpk_hold', amount: 5000, reason: '환불' });
  assert.equal([later.status, later.failure!.code], ['FAILED', 'FAILED_REFUND_PROCESS']);

  fake.payments.set('pay-hold', { key: 'pay-hold', orderId: 'pay-hold', amount: 5000, status: 'PAID', method: 'PaymentMethodTransfer', canceled: 0 });
  const two = await liveGateway('pg_two');
  fake.script.set('/payments/pay-hold/cancel', {
    status: 400,
    body: { type: 'PG_PROVIDER', message: 'PG error', pgCode: 'F113', pgMessage: '가맹점 잔액 부족' },
  });
  const heldTwo = await two.cancel({ pgTransactionId: 'pay-hold', amount: 5000, reason: '환불' });
  assert.equal([heldTwo.status, heldTwo.failure!.message], ['HELD', '가맹점 잔액 부족']);
});

test.run();
