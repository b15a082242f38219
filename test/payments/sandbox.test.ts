import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { PG_ONE_TEST, PG_TWO_TEST, ok } from '../helpers/payment-providers.js';

let svc: TestService;
let seller: Awaited<ReturnType<typeof newSellerWithStore>>;
let payments: typeof import('../../src/modules/payments/checkout-api.js');
let seq = 0;

test.before(async () => {
  svc = await startTestService();
  seller = await newSellerWithStore(svc, 'sbx');
  payments = await import('../../src/modules/payments/checkout-api.js');
  ok(await seller.api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_TEST }));
  ok(await seller.api('PUT', '/v1/store/payment-providers/pg_two', { body: PG_TWO_TEST }));
  for (const pg of ['pg_one', 'pg_two']) ok(await seller.api('PATCH', `/v1/store/payment-providers/${pg}`, { body: { enabled: true } }));
});
test.after(async () => {
  await svc.close();
});

async function open(pg: 'pg_one' | 'pg_two', amount = 10000, method: 'CARD' | 'EASY_PAY' = 'CARD') {
  const gw = await payments.gatewayFor(svc.services, seller.storeId, pg);
  const pgOrderId = `2026112100${String(++seq).padStart(4, '0')}-01`;
  const window = await gw.prepareWindow({
    paymentId: `pay_s${seq}`,
    attemptId: `att_s${seq}`,
    pgOrderId,
    amount,
    orderName: '샘플',
    method,
    returnUrl: 'https://localhost/r',
  });
  return {
    gw,
    window,
    key: window.pgPaymentKey!,
    confirm: (extra: Partial<{ amount: number }> = {}) => gw.confirm({ pgPaymentKey: window.pgPaymentKey!, pgOrderId, amount, method, ...extra }),
    pgOrderId,
  };
}

const thrown = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
  } catch (error) {
    return error as any;
  }
  throw new Error('expected a throw');
};

test('the seeded dev store takes sandbox payments out of the box', async () => {
  const store = ok(await svc.api('GET', '/v1/store'));
  assert.equal([store.checkoutAvailable, store.checkoutMode], [true, 'TEST']);
  assert.equal(
    (await payments.paymentOptions(svc.services, svc.storeId)).map((o) => o.key),
    ['pg_one:CARD', 'pg_one:EASY_PAY', 'pg_one:BANK_TRANSFER', 'pg_one:MOBILE'],
  );
});

test('prepareWindow: our own pay page, a sandbox key, the key set used', async () => {
  const { window } = await open('pg_one');
  assert.is(window.sandbox, true);
  assert.is(window.windowUrl, `${svc.url}/pay/pay_s${seq}`);
  assert.match(window.pgPaymentKey!, /^sbx1_/);
  assert.is(window.credentialId, (await payments.gatewayFor(svc.services, seller.storeId, 'pg_one')).credentialId);
});

test('APPROVE then confirm: approved at the gateway amount; confirm is idempotent; the sheet amount can be made to differ', async () => {
  const a = await open('pg_one', 15000, 'EASY_PAY');
  assert.is((await a.confirm()).status, 'REFUSED', 'no confirm before the buyer authenticated');
  const view = await payments.sandboxDecide(svc.services, a.key, 'APPROVE');
  assert.equal([view.status, view.gatewayAmount], ['AUTHORIZED', 15000]);
  const first = await a.confirm();
  assert.equal(first, { status: 'APPROVED', approvedAmount: 15000, approvedMethod: 'EASY_PAY', pgTransactionId: a.key });
  assert.equal(await a.confirm(), first);
  const b = await open('pg_two', 20000);
  await payments.sandboxDecide(svc.services, b.key, 'APPROVE', { amount: 19000 });
  assert.is((await b.confirm()).approvedAmount, 19000);
});

test('REFUSE, CANCEL and WINDOW_ERROR end the window; deciding twice is 409, an unknown key 404', async () => {
  const cases = [
    ['REFUSE', 'REJECT_CARD_PAYMENT', false],
    ['CANCEL', 'PAY_PROCESS_CANCELED', false],
    ['WINDOW_ERROR', 'INVALID_CHANNEL', true],
  ] as const;
  for (const [outcome, code, optionUnavailable] of cases) {
    const w = await open('pg_one');
    await payments.sandboxDecide(svc.services, w.key, outcome);
    const result = await w.confirm();
    assert.equal([result.status, result.failure!.code, result.failure!.optionUnavailable], ['REFUSED', code, optionUnavailable], outcome);
    assert.is((await thrown(() => payments.sandboxDecide(svc.services, w.key, 'APPROVE'))).code, 'SANDBOX_PAYMENT_DECIDED');
    assert.is((await w.gw.lookup({ pgPaymentKey: w.key, pgOrderId: w.pgOrderId })).status, 'REFUSED');
  }
  assert.is((await thrown(() => payments.sandboxDecide(svc.services, 'sbx1_missing', 'APPROVE'))).code, 'SANDBOX_PAYMENT_NOT_FOUND');
});

test('CONFIRMING: the confirm answers late, the look-up then shows the approval', async () => {
  const w = await open('pg_two', 7000);
  await payments.sandboxDecide(svc.services, w.key, 'CONFIRMING');
  assert.is((await w.confirm()).status, 'CONFIRMING');
  const looked = await w.gw.lookup({ pgPaymentKey: w.key, pgOrderId: w.pgOrderId });
  assert.equal([looked.status, looked.approvedAmount, looked.pgTransactionId], ['APPROVED', 7000, w.key]);
});

test('cancel: partial, then the rest; over-cancel and unpaid cancel fail; the live gate notes the sandbox work', async () => {
  const w = await open('pg_one', 30000);
  await payments.sandboxDecide(svc.services, w.key, 'APPROVE');
  const tx = (await w.confirm()).pgTransactionId!;
  assert.equal(await w.gw.cancel({ pgTransactionId: tx, amount: 10000, reason: '부분' }), { status: 'CANCELED', canceledAmount: 10000 });
  assert.is((await w.gw.lookup({ pgPaymentKey: w.key, pgOrderId: w.pgOrderId })).status, 'PARTIALLY_CANCELED');
  const over = await w.gw.cancel({ pgTransactionId: tx, amount: 20001, reason: '초과' });
  assert.equal([over.status, over.failure!.code], ['FAILED', 'NOT_CANCELABLE_AMOUNT']);
  assert.equal(await w.gw.cancel({ pgTransactionId: tx, amount: 20000, reason: '나머지' }), { status: 'CANCELED', canceledAmount: 20000 });
  const looked = await w.gw.lookup({ pgPaymentKey: w.key, pgOrderId: w.pgOrderId });
  assert.equal([looked.status, looked.canceledAmount], ['CANCELED', 30000]);
  assert.is((await w.gw.cancel({ pgTransactionId: tx, amount: 1, reason: '더' })).status, 'FAILED');
  const unpaid = await open('pg_one');
  assert.is((await unpaid.gw.cancel({ pgTransactionId: unpaid.key, amount: 1, reason: 'x' })).status, 'FAILED');
  const settings = ok(await seller.api('GET', '/v1/store/payment-settings'));
  const met = Object.fromEntries(settings.providers[0].liveGate.conditions.map((c: any) => [c.code, c.met]));
  assert.equal([met.SANDBOX_PAYMENT, met.SANDBOX_REFUND], [true, true]);
});

test("tenancy: another store's gateway cannot confirm, cancel or read this store's sandbox payments", async () => {
  const w = await open('pg_one', 5000);
  await payments.sandboxDecide(svc.services, w.key, 'APPROVE');
  const other = await newSellerWithStore(svc, 'sbx2');
  ok(await other.api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_TEST }));
  const theirs = await payments.gatewayFor(svc.services, other.storeId, 'pg_one', {
    credentialId: ok(await other.api('GET', '/v1/store/payment-settings')).providers[0].credentialSets.TEST.credentialId,
  });
  assert.is((await theirs.confirm({ pgPaymentKey: w.key, pgOrderId: w.pgOrderId, amount: 5000, method: 'CARD' })).status, 'REFUSED');
  assert.is((await theirs.lookup({ pgPaymentKey: w.key, pgOrderId: w.pgOrderId })).status, 'NOT_FOUND');
  assert.is((await w.confirm()).status, 'APPROVED');
  assert.is((await theirs.cancel({ pgTransactionId: w.key, amount: 5000, reason: 'x' })).status, 'FAILED');
});

test('findPaymentOption resolves objects and key strings against enabled options only', async () => {
  assert.is((await payments.findPaymentOption(svc.services, seller.storeId, { pg: 'pg_two', method: 'BANK_TRANSFER' }))?.key, 'pg_two:BANK_TRANSFER');
  assert.is((await payments.findPaymentOption(svc.services, seller.storeId, 'pg_one:MOBILE'))?.label, '휴대폰');
  assert.is(await payments.findPaymentOption(svc.services, seller.storeId, 'pg_two:MOBILE'), undefined);
  assert.is(
    await payments.findPaymentOption(svc.services, seller.storeId, { pg: 'pg_one', method: 'EASY_PAY', provider: 'EASYPAY_1' }),
    undefined,
    'no easy-pay providers configured',
  );
  assert.equal(await payments.paymentDomains(svc.services, seller.storeId), []);
});

test.run();
