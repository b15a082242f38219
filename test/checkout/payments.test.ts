import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAccessToken, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { RETURN_URL, buyerApi, connectSandbox, createProduct, directSheet, fails, ok, simulate, startGuestPayment } from '../helpers/checkout.js';

let svc: TestService;
let api: Api;
let guest: Api;
let item: { productId: string; optionId: string };

test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  guest = buyerApi(svc, svc.storeId);
  await connectSandbox(api, 'pg_one');
  await connectSandbox(api, 'pg_two');
  const p = await createProduct(api, { name: '결제 시험 상품', salePrice: 20000, stockQuantity: 1000 });
  item = { productId: p.productId, optionId: p.optionId };
});
test.after(async () => {
  await svc.close();
});

const newPayment = async (extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const sheet = await directSheet(guest, item);
  return { sheet, start: ok(await startGuestPayment(guest, sheet, extra, headers), 201) };
};
const attempt = (paymentId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  guest('POST', `/storefront/v1/payments/${paymentId}/attempts`, { body: { returnUrl: RETURN_URL, ...body }, headers });

const storefrontResult = async (paymentId: string) => ok(await guest('GET', `/storefront/v1/payments/${paymentId}/result`));

test('refusal keeps the payment retryable; a new attempt on the other gateway approves; pgOrderId per attempt', async () => {
  const { start } = await newPayment();
  assert.equal(await storefrontResult(start.paymentId), { status: 'PROCESSING', paymentId: start.paymentId });
  const refused = ok(await simulate(guest, start.paymentId, 'REFUSE'));
  assert.equal(
    [refused.result, refused.status, refused.lastFailure.code, refused.storefrontResult.status],
    ['FAILED', 'OPEN', 'REJECT_CARD_PAYMENT', 'FAILED'],
  );
  assert.equal(await storefrontResult(start.paymentId), refused.storefrontResult);
  const second = ok(await attempt(start.paymentId, { option: 'pg_two:CARD' }), 201);
  assert.is(second.option.pg, 'pg_two');
  assert.is.not(second.attemptId, start.attemptId);
  const closed = ok(await simulate(guest, start.paymentId, 'CANCEL'));
  assert.is(closed.storefrontResult.status, 'CANCELED');
  assert.equal(await storefrontResult(start.paymentId), { status: 'CANCELED', paymentId: start.paymentId });
  const third = ok(await attempt(start.paymentId, { option: { pg: 'pg_one', method: 'EASY_PAY' } }), 201);
  const done = ok(await simulate(guest, start.paymentId, 'APPROVE'));
  assert.is(done.result, 'COMPLETED');
  assert.equal(await storefrontResult(start.paymentId), { status: 'COMPLETED', paymentId: start.paymentId, orderId: done.orderId });
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal([order.payment.method, order.payment.approvedMethod, order.payment.pg], ['CARD', 'EASY_PAY', 'pg_one']);
  const record = ok(await api('GET', `/v1/payments/${start.paymentId}`));
  assert.equal(
    record.attempts.map((a: any) => [a.pgOrderId, a.status]),
    [
      [`${order.orderNo}-01`, 'REFUSED'],
      [`${order.orderNo}-02`, 'CANCELED'],
      [`${order.orderNo}-03`, 'APPROVED'],
    ],
  );
  assert.equal([record.pgOrderId, record.provider, record.method, record.status], [`${order.orderNo}-03`, 'pg_one', 'EASY_PAY', 'APPROVED']);
  assert.is(third.attemptId, record.attempts[2].attemptId);
  fails(await attempt(start.paymentId, { option: 'pg_one:CARD' }), 409, 'PAYMENT_IN_PROGRESS');
});

test('gateway return address: a failure code ends the attempt, a success is confirmed into the order', async () => {
  const closed = (await newPayment()).start;
  const back = await fetch(`${svc.url}/pay/${closed.paymentId}/return?attemptId=${closed.attemptId}&code=PAY_PROCESS_CANCELED&message=closed&orderId=x`, {
    redirect: 'manual',
  });
  assert.is(back.status, 303);
  assert.is(new URL(back.headers.get('location')!).searchParams.get('status'), 'CANCELED');
  const { start } = await newPayment();
  const attempt = ok(await api('GET', `/v1/payments/${start.paymentId}`)).attempts[0];
  // The buyer approves in the gateway's window; the gateway then sends them to our return address.
  const { sandboxDecide } = await import('../../src/modules/payments/checkout-api.js');
  const key = (await svc.services.db.$client.prepare('select pg_payment_key as k from payment_attempts where id = ?').get(attempt.attemptId)) as { k: string };
  await sandboxDecide(svc.services, key.k, 'APPROVE');
  const done = await fetch(`${svc.url}/pay/${start.paymentId}/return?attemptId=${start.attemptId}`, { redirect: 'manual' });
  const result = new URL(done.headers.get('location')!);
  assert.equal([done.status, `${result.origin}${result.pathname}`, result.searchParams.get('status')], [303, RETURN_URL, 'COMPLETED']);
  assert.ok(result.searchParams.get('orderId'));
  assert.is((await fetch(`${svc.url}/pay/${start.paymentId}/return?attemptId=att_nope`)).status, 404);
});

test('a new window closes the older open one at the gateway (sandbox gateways allow it)', async () => {
  const { start } = await newPayment();
  const second = ok(await attempt(start.paymentId, { option: 'pg_two:CARD' }), 201);
  const record = ok(await api('GET', `/v1/payments/${start.paymentId}`));
  assert.equal(
    record.attempts.map((a: any) => [a.status, a.failure?.code ?? null]),
    [
      ['CANCELED', 'WINDOW_SUPERSEDED'],
      ['READY', null],
    ],
  );
  // The old window is closed at the gateway itself: its return is refused there, the new one approves.
  const old = await fetch(`${svc.url}/pay/${start.paymentId}/return?attemptId=${start.attemptId}`, { redirect: 'manual' });
  assert.is.not(new URL(old.headers.get('location') ?? `${RETURN_URL}?status=none`).searchParams.get('status'), 'COMPLETED');
  const done = ok(await simulate(guest, start.paymentId, 'APPROVE'));
  assert.equal([done.result, done.storefrontResult.status], ['COMPLETED', 'COMPLETED']);
  const after = ok(await api('GET', `/v1/payments/${start.paymentId}`));
  assert.equal([after.status, after.refunds.length, after.attempts[1].attemptId], ['APPROVED', 0, second.attemptId]);
});

test('window error marks the option unavailable for the storefront', async () => {
  const { start } = await newPayment();
  const res = ok(await simulate(guest, start.paymentId, 'WINDOW_ERROR'));
  assert.is(res.storefrontResult.status, 'FAILED');
  assert.is(res.storefrontResult.optionUnavailable, true);
  assert.is(res.lastFailure.optionUnavailable, true);
});

test('CONFIRMING: result PROCESSING, new attempts 409 PAYMENT_IN_PROGRESS, the job settles it into an order', async () => {
  const { start } = await newPayment();
  const res = ok(await simulate(guest, start.paymentId, 'CONFIRMING'));
  assert.equal([res.result, res.status, res.storefrontResult.status], ['PROCESSING', 'CONFIRMING', 'PROCESSING']);
  fails(await attempt(start.paymentId, { option: 'pg_one:CARD' }), 409, 'PAYMENT_IN_PROGRESS');
  assert.is(ok(await api('GET', `/v1/payments/${start.paymentId}`)).status, 'CONFIRMING');
  await svc.advance(6); // the confirming job asks the gateway again
  const after = ok(await guest('GET', `/storefront/v1/payments/${start.paymentId}`));
  assert.equal([after.result, after.status], ['COMPLETED', 'COMPLETED']);
  assert.ok(after.orderId);
});

test('Idempotency-Key on payment start: replay, reuse with another body, concurrent use', async () => {
  const sheet = await directSheet(guest, item);
  const key = { 'idempotency-key': 'start-1' };
  const first = await startGuestPayment(guest, sheet, {}, key);
  const again = await startGuestPayment(guest, sheet, {}, key);
  assert.is(again.status, 201);
  assert.is(again.data.paymentId, first.data.paymentId);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  fails(await startGuestPayment(guest, sheet, { returnUrl: `${RETURN_URL}?x=1` }, key), 409, 'IDEMPOTENCY_KEY_REUSED');
  const racing = await Promise.all([1, 2, 3].map(() => startGuestPayment(guest, sheet, {}, { 'idempotency-key': 'start-2' })));
  const created = racing.filter((r) => r.status === 201);
  assert.is(created.length, 1, JSON.stringify(racing.map((r) => r.body)));
  for (const r of racing.filter((x) => x.status !== 201)) fails(r, 409, 'IDEMPOTENCY_KEY_IN_USE');
  const later = await startGuestPayment(guest, sheet, {}, { 'idempotency-key': 'start-2' });
  assert.is(later.data.paymentId, created[0].data.paymentId);
  // Errors are remembered too: the same bad request under its key answers the same.
  fails(await startGuestPayment(guest, sheet, { pointAmount: 10 }, { 'idempotency-key': 'start-3' }), 409, 'POINTS_UNAVAILABLE');
  fails(await startGuestPayment(guest, sheet, { pointAmount: 10 }, { 'idempotency-key': 'start-3' }), 409, 'POINTS_UNAVAILABLE');
  // New attempts honour keys as well.
  ok(await simulate(guest, first.data.paymentId, 'REFUSE'));
  const a1 = ok(await attempt(first.data.paymentId, { option: 'pg_one:CARD' }, { 'idempotency-key': 'att-1' }), 201);
  const a2 = await attempt(first.data.paymentId, { option: 'pg_one:CARD' }, { 'idempotency-key': 'att-1' });
  assert.is(a2.data.attemptId, a1.attemptId);
});

test('a second approval for one sheet is canceled automatically and refunded', async () => {
  const sheet = await directSheet(guest, item);
  const one = ok(await startGuestPayment(guest, sheet), 201);
  const two = ok(await startGuestPayment(guest, sheet), 201);
  const first = ok(await simulate(guest, one.paymentId, 'APPROVE'));
  const second = ok(await simulate(guest, two.paymentId, 'APPROVE'));
  assert.is(first.result, 'COMPLETED');
  assert.equal([second.result, second.lastFailure.code, second.orderId], ['FAILED', 'DUPLICATE_APPROVAL', null]);
  const record = ok(await api('GET', `/v1/payments/${two.paymentId}`));
  assert.is(record.status, 'CANCELED');
  assert.equal(
    record.refunds.map((r: any) => [r.amount, r.status, r.reason]),
    [[23000, 'COMPLETED', 'DUPLICATE_APPROVAL']],
  );
  assert.is(record.attempts[0].status, 'AUTO_CANCELED');
  const orders = ok(await api('GET', '/v1/orders', { query: { keyword: sheet.items[0].name, size: 100 } }));
  assert.is(orders.contents.filter((o: any) => o.payment.paymentId === two.paymentId).length, 0);
});

test('an amount differing from the gateway is canceled automatically; a refused payment start leaves no order', async () => {
  const { start } = await newPayment();
  const res = ok(await svc.api('POST', `/_dev/v1/payments/${start.paymentId}/simulate`, { body: { outcome: 'APPROVE', amount: 100 } }));
  assert.equal([res.result, res.lastFailure.code], ['FAILED', 'AMOUNT_MISMATCH']);
  const record = ok(await api('GET', `/v1/payments/${start.paymentId}`));
  assert.equal(
    record.refunds.map((r: any) => [r.amount, r.status]),
    [[100, 'COMPLETED']],
  );
  fails(await attempt(start.paymentId, { option: 'pg_one:CARD' }), 409, 'PAYMENT_ENDED');
});

test('stock gone during approval: canceled automatically, stock never negative', async () => {
  const p = await createProduct(api, { name: '마지막 1개', stockQuantity: 1 });
  const a = await directSheet(guest, { productId: p.productId, optionId: p.optionId });
  const b = await directSheet(guest, { productId: p.productId, optionId: p.optionId });
  const pa = ok(await startGuestPayment(guest, a), 201);
  const pb = ok(await startGuestPayment(guest, b), 201);
  assert.is(ok(await simulate(guest, pa.paymentId, 'APPROVE')).result, 'COMPLETED');
  const lost = ok(await simulate(guest, pb.paymentId, 'APPROVE'));
  assert.equal([lost.result, lost.lastFailure.code, lost.storefrontResult.code], ['FAILED', 'OUT_OF_STOCK', 'OUT_OF_STOCK']);
  const product = ok(await api('GET', `/v1/products/${p.productId}`));
  assert.equal([product.stockQuantity, product.status], [0, 'SOLD_OUT']);
});

test('cash receipts: identity rules, resident numbers refused, methods, issue after approval, masked', async () => {
  const sheet = await directSheet(guest, item);
  const start = (cashReceipt: unknown, option = 'pg_one:BANK_TRANSFER') => startGuestPayment(guest, sheet, { option, cashReceipt });
  const resident = await start({ type: 'INCOME_DEDUCTION', identityNumber: '900101-1234567' });
  fails(resident, 400, 'VALIDATION_FAILED');
  assert.equal(
    resident.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
    [['cashReceipt.identityNumber', 'RESIDENT_NUMBER_NOT_ALLOWED']],
  );
  const wrong = await start({ type: 'EXPENSE_PROOF', identityNumber: '010-1234-5678' });
  assert.is(wrong.body.error.fieldErrors[0].code, 'INVALID_IDENTITY_NUMBER');
  fails(await start({ type: 'INCOME_DEDUCTION', identityNumber: '010-1234-5678' }, 'pg_one:CARD'), 400, 'CASH_RECEIPT_NOT_AVAILABLE');
  ok(await start({ type: 'EXPENSE_PROOF', identityNumber: '123-45-67890' }), 201);
  const res = ok(await start({ type: 'INCOME_DEDUCTION', identityNumber: '010-5555-6666' }), 201);
  const requested = ok(await api('GET', `/v1/payments/${res.paymentId}`)).cashReceipt;
  assert.equal([requested.type, requested.status, requested.identityNumber], ['INCOME_DEDUCTION', 'REQUESTED', '010****6666']);
  const done = ok(await simulate(guest, res.paymentId, 'APPROVE'));
  ok(await api('POST', '/_dev/v1/jobs/run'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  assert.equal([order.payment.approvedMethod, order.payment.cashReceipt.status], ['BANK_TRANSFER', 'ISSUED']);
  assert.ok(!JSON.stringify(order).includes('01055556666'));
  // Reissue (store platform OWNER/ADMIN) from failed: pending again, then issued by the job.
  fails(await api('POST', `/v1/orders/${done.orderId}/cash-receipt/reissue`), 409, 'CASH_RECEIPT_NOT_REISSUABLE');
  await svc.services.db.$client.prepare("update cash_receipts set status = 'ISSUE_FAILED' where payment_id = ?").run(res.paymentId);
  assert.is(ok(await api('POST', `/v1/orders/${done.orderId}/cash-receipt/reissue`)).status, 'ISSUE_PENDING');
  ok(await api('POST', '/_dev/v1/jobs/run'));
  assert.is(ok(await api('GET', `/v1/orders/${done.orderId}`)).payment.cashReceipt.status, 'ISSUED');
  // Asked with easy pay, which ended as easy pay: not applicable.
  const easySheet = await directSheet(guest, item);
  const easy = ok(
    await startGuestPayment(guest, easySheet, { option: 'pg_one:EASY_PAY', cashReceipt: { type: 'EXPENSE_PROOF', identityNumber: '1234567890' } }),
    201,
  );
  const paid = ok(await simulate(guest, easy.paymentId, 'APPROVE'));
  assert.is(ok(await api('GET', `/v1/orders/${paid.orderId}`)).payment.cashReceipt.status, 'NOT_APPLICABLE');
  const access = await createAccessToken(svc, await login(svc), { scopes: ['order:rw'] });
  fails(await api('POST', `/v1/orders/${paid.orderId}/cash-receipt/reissue`, { token: access }), 403, 'INSUFFICIENT_ROLE');
});

test('expiries: payment 10 minutes (PAYMENT_EXPIRED), sheet 30 minutes (CHECKOUT_EXPIRED)', async () => {
  const { sheet, start } = await newPayment();
  await svc.advance(9 * 60);
  ok(await simulate(guest, start.paymentId, 'REFUSE'));
  await svc.advance(61);
  fails(await attempt(start.paymentId, { option: 'pg_one:CARD' }), 409, 'PAYMENT_EXPIRED');
  fails(await simulate(guest, start.paymentId, 'APPROVE'), 409, 'PAYMENT_WINDOW_NOT_OPEN');
  const status = ok(await guest('GET', `/storefront/v1/payments/${start.paymentId}`));
  assert.equal([status.result, status.status], ['EXPIRED', 'EXPIRED']);
  assert.is(ok(await api('GET', `/v1/payments/${start.paymentId}`)).status, 'FAILED');
  // A window left open expires with its payment.
  const open = ok(await startGuestPayment(guest, sheet), 201);
  await svc.advance(10 * 60);
  fails(await simulate(guest, open.paymentId, 'APPROVE'), 409, 'PAYMENT_EXPIRED');
  // A live-style return after the 10 minutes: the gateway approved, the service cancels it automatically.
  const { sandboxDecide } = await import('../../src/modules/payments/checkout-api.js');
  const key = (await svc.services.db.$client.prepare('select pg_payment_key as k from payment_attempts where id = ?').get(open.attemptId)) as { k: string };
  await sandboxDecide(svc.services, key.k, 'APPROVE');
  const late = await fetch(`${svc.url}/pay/${open.paymentId}/return?attemptId=${open.attemptId}`, { redirect: 'manual' });
  assert.is(new URL(late.headers.get('location')!).searchParams.get('code'), 'PAYMENT_EXPIRED');
  assert.equal(
    ok(await svc.api('GET', `/v1/payments/${open.paymentId}`, { token: await login(svc) })).refunds.map((r: any) => r.reason),
    ['PAYMENT_EXPIRED'],
  );
  await svc.advance(10 * 60);
  fails(await guest('GET', `/storefront/v1/checkout/${sheet.checkoutId}`), 409, 'CHECKOUT_EXPIRED');
  fails(await startGuestPayment(guest, sheet), 409, 'CHECKOUT_EXPIRED');
  fails(await guest('POST', `/storefront/v1/checkout/${sheet.checkoutId}/pricing`, { body: {} }), 409, 'CHECKOUT_EXPIRED');
});

test.run();
