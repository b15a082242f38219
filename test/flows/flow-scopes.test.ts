/**
 * Scopes of the flow operations (spec 02 §4.4: `flow:r`, `flow:rw`): a `flow:rw` token runs item and order
 * actions, direct moves and store events; `order:rw`, which these operations took before, still does.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, createAccessToken, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, fails, guestOrder, ok } from '../helpers/flows.js';

let svc: TestService;
let api: Api;
test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

const tokenWith = async (scopes: string[]) => apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes }), storeId: svc.storeId });

test('a flow:rw token runs item and order actions, moves and store events', async () => {
  const flowWriter = await tokenWith(['flow:rw']);
  const { item, order } = await guestOrder(svc, api);
  const id = item.orderItemId;
  assert.is(ok(await flowWriter('GET', `/v1/order-items/${id}/flow`)).state, 'PAID');
  assert.is(ok(await flowWriter('POST', `/v1/order-items/${id}/actions/CONFIRM`, { body: {} })).state, 'CONFIRMED');
  assert.is(ok(await flowWriter('POST', `/v1/order-items/${id}/dispatch`, { body: { carrier: 'CJ', trackingNo: '1' } })).state, 'DISPATCHED');
  assert.is(ok(await flowWriter('POST', `/v1/order-items/${id}/flow/move`, { body: { to: 'CONFIRMED', reason: '송장 오류' } })).state, 'CONFIRMED');
  fails(await flowWriter('POST', `/v1/order-items/${id}/events/custom.checked`, { body: {} }), 409, 'FLOW_EVENT_NOT_ACCEPTED');
  const second = await guestOrder(svc, api);
  assert.equal(
    ok(await flowWriter('POST', `/v1/orders/${second.order.orderId}/actions/CONFIRM`, { body: {} })).items.map((i: any) => i.state),
    ['CONFIRMED'],
  );
  assert.ok(order.orderId);
});

test('order:rw still runs actions (tokens rely on it); flow:r alone or order:r cannot', async () => {
  const orderWriter = await tokenWith(['order:rw']);
  const { item } = await guestOrder(svc, api);
  assert.is(ok(await orderWriter('POST', `/v1/order-items/${item.orderItemId}/actions/CONFIRM`, { body: {} })).state, 'CONFIRMED');
  const reader = await tokenWith(['flow:r', 'order:r']);
  fails(
    await reader('POST', `/v1/order-items/${item.orderItemId}/actions/DISPATCH`, { body: { input: { carrier: 'CJ', trackingNo: '1' } } }),
    403,
    'INSUFFICIENT_ROLE',
  );
  fails(await reader('POST', `/v1/order-items/${item.orderItemId}/flow/move`, { body: { to: 'PAID', reason: '되돌림' } }), 403, 'INSUFFICIENT_ROLE');
});

test('the OpenAPI document names flow:rw and the order:rw it also accepts', async () => {
  const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
  for (const [path, method] of [
    ['/v1/order-items/{orderItemId}/actions/{key}', 'post'],
    ['/v1/orders/{orderId}/actions/{key}', 'post'],
    ['/v1/order-items/{orderItemId}/flow/move', 'post'],
    ['/v1/order-items/{orderItemId}/events/{name}', 'post'],
    ['/v1/order-items/{orderItemId}/confirm', 'post'],
  ]) {
    const op = doc.paths[path][method];
    assert.equal([op['x-svc-scope'], op['x-svc-also-scope']], ['flow:rw', 'order:rw'], path);
    assert.match(op.description, /`flow:rw`.*`order:rw`/, path);
  }
  assert.is(doc.paths['/v1/order-items/{orderItemId}/flow'].get['x-svc-scope'], 'flow:r');
});

test.run();
