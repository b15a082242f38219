/**
 * `svc customers`, `svc reviews` and `svc inquiries` with the compiled CLI: tables for people, --json for
 * scripts, a confirmation for withdrawal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { ok } from '../helpers/assert.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct } from '../helpers/checkout.js';
import { pay, sheetOf, simulate } from '../helpers/members.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-buyers-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const svcCli = (args: string[]) => runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId });

test('customers list, get and withdraw; reviews list, reply and hide; inquiries list and answer', async () => {
  const api = svc.api;
  ok(await api('PATCH', '/v1/store', { body: { testOrderReviewsAllowed: true } }));
  const guest = buyerApi(svc, svc.storeId);
  const joined = ok(
    await guest('POST', '/storefront/v1/members', {
      body: { email: 'cli-member@example.com', password: 'secret-pass-1', name: '최고객', phone: '01055556666' },
    }),
    201,
  );
  const id = joined.customer.customerId;
  const member = buyerApi(svc, svc.storeId, joined.accessToken);

  const list = await svcCli(['customers', 'list', '--keyword', '5555']);
  assert.is(list.exitCode, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`${id}\\s+최고객\\s+cli-member@example.com\\s+01055556666\\s+yes`));
  assert.match((await svcCli(['customers', 'get', id])).stdout, /최고객 · cli-member@example.com · 01055556666 · member/);

  const p = await createProduct(api, { name: 'CLI 리뷰 상품' });
  const done = ok(await simulate(member, ok(await pay(member, await sheetOf(member, [p]), {}), 201).paymentId, 'APPROVE'));
  const item = ok(await api('GET', `/v1/orders/${done.orderId}`)).items[0];
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/confirm`));
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: '1' } }));
  ok(await api('POST', `/v1/order-items/${item.orderItemId}/delivered`));
  const review = ok(await member('POST', `/storefront/v1/me/order-items/${item.orderItemId}/reviews`, { body: { rating: 2, text: '포장이 아쉬워요' } }), 201);
  assert.match((await svcCli(['reviews', 'list'])).stdout, new RegExp(`${review.reviewId}\\s+★★☆☆☆\\s+포장이 아쉬워요`));
  assert.equal(
    jsonOf(await svcCli(['reviews', 'reply', review.reviewId, '--text', '다음엔 더 꼼꼼히 포장할게요', '--json'])).reply.text,
    '다음엔 더 꼼꼼히 포장할게요',
  );
  assert.match((await svcCli(['reviews', 'hide', review.reviewId])).stdout, /is hidden from buyers/);

  const asked = ok(await member('POST', '/storefront/v1/me/inquiries', { body: { title: '영수증', text: '세금계산서 되나요?' } }), 201);
  assert.match((await svcCli(['inquiries', 'list', '--unanswered'])).stdout, new RegExp(`${asked.inquiryId}\\s+PERSONAL\\s+영수증\\s+secret\\s+no`));
  assert.match((await svcCli(['inquiries', 'answer', asked.inquiryId, '--text', '네, 가능합니다.'])).stdout, /Answered inq_/);

  const unconfirmed = await svcCli(['customers', 'withdraw', id]);
  assert.is(unconfirmed.exitCode, 2);
  const gone = jsonOf(await svcCli(['customers', 'withdraw', id, '--yes', '--json']));
  assert.equal([gone.customerId, gone.email], [id, null]);
});

test.run();
