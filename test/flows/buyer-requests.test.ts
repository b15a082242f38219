/**
 * What buyers send into a flow besides plain actions, over HTTP: order-input pictures (the upload endpoint,
 * image inputs checked against the store's real uploads), the e-mail notification channel, and address
 * change requests before dispatch (ORDER.ADDRESS_CHANGE_REQUESTED only with a listener).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { ADDRESS } from '../helpers/checkout.js';
import { buyerApi, connectSandbox, createProduct, fails, GUEST, guestOrder, memberOrder, ok } from '../helpers/flows.js';

let svc: TestService;
let api: Api;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  api = svc.api;
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001', 'hex');
const png = () => new File([PNG], '시안.png', { type: 'image/png' });

async function post(path: string, fields: Record<string, string | Blob>, headers: Record<string, string>) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v as never);
  const res = await fetch(`${svc.url}${path}`, { method: 'POST', body: form, headers });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}
/** A buyer's order-input upload: a guest by store id alone, a member with their token. */
const uploadInput = (fields: Record<string, string | Blob>, storeId = svc.storeId, token?: string) =>
  post('/storefront/v1/uploads/order-inputs', fields, { 'x-store-id': storeId, ...(token ? { authorization: `Bearer ${token}` } : {}) });
const sellerUpload = (purpose: string, seller = { token: svc.ownerToken, storeId: svc.storeId }) =>
  post('/v1/uploads', { file: png(), purpose }, { authorization: `Bearer ${seller.token}`, 'x-store-id': seller.storeId });

/** The buyer sends a photo; the seller finishes with a picture of the result; entering REVIEWING mails the buyer. */
const photoFlow = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID' },
    REVIEWING: { label: '사진 검토', coreStatus: 'CONFIRMED', notify: [{ channel: 'email', params: { subject: '"사진 접수: " + item.productName' } }] },
    DONE: { label: '완성', coreStatus: 'DELIVERED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'REVIEWING', on: { action: 'SEND_PHOTO' } },
    { from: 'REVIEWING', to: 'DONE', on: { action: 'FINISH' } },
  ],
  actions: {
    SEND_PHOTO: { label: '사진 보내기', actor: 'BUYER', scope: 'ITEM', inputs: [{ key: 'photo', kind: 'image', label: '인쇄할 사진', required: true }] },
    FINISH: { label: '완성', actor: 'SELLER', scope: 'ITEM', inputs: [{ key: 'result', kind: 'image', label: '완성 사진' }] },
  },
};

test('order-input uploads: a guest or member sends a picture; bad forms are 400 by field, and the budget per client is 429', async () => {
  const guest = await uploadInput({ file: png() });
  assert.is(guest.status, 201, JSON.stringify(guest.body));
  assert.equal([guest.body.data.purpose, guest.body.data.contentType, guest.body.data.filename], ['order-input', 'image/png', '시안.png']);
  assert.equal(Buffer.from(await (await fetch(guest.body.data.url)).arrayBuffer()), PNG);
  const { token } = await memberOrder(svc, api, 'photographer', [await createProduct(api, {})]);
  assert.is((await uploadInput({ file: png() }, svc.storeId, token)).status, 201);

  const cases: [Record<string, string | Blob>, string, string][] = [
    [{}, 'file', 'REQUIRED'],
    [{ file: png(), purpose: 'product-image' }, 'purpose', 'UNKNOWN_FIELD'],
    [{ file: new File(['%PDF-1.7'], 'a.pdf', { type: 'application/pdf' }) }, 'file', 'UNSUPPORTED_TYPE'],
    [{ file: new File([PNG], 'a.jpg', { type: 'image/jpeg' }) }, 'file', 'CONTENT_TYPE_MISMATCH'],
    [{ file: new File([], 'empty.png', { type: 'image/png' }) }, 'file', 'EMPTY'],
  ];
  for (const [fields, field, code] of cases) {
    const res = await uploadInput(fields);
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.equal(
      res.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
      [[field, code]],
    );
  }
  const noStore = await post('/storefront/v1/uploads/order-inputs', { file: png() }, {});
  assert.is(noStore.status, 400);

  // An anonymous client gets 60 pictures an hour per store; the 61st waits.
  const other = await newSellerWithStore(svc, 'budget');
  const results = [];
  for (let i = 0; i < 61; i++) results.push(await uploadInput({ file: png() }, other.storeId));
  assert.equal(
    results.slice(0, 60).every((r) => r.status === 201),
    true,
  );
  assert.is(results[60].status, 429);
  assert.is(results[60].body.error.code, 'UPLOAD_THROTTLED');
  assert.ok(Number(results[60].headers.get('retry-after')) > 0);
});

test('image inputs must name pictures of this store: missing, other-store and product-image uploads are UPLOAD_NOT_FOUND; the e-mail channel mails the buyer', async () => {
  const flow = ok(await api('POST', '/v1/commerce-flows', { body: { name: '사진 인화', kind: 'SHIPPING', definition: photoFlow } }), 201);
  assert.equal(ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`)), { errors: [], warnings: [] });
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  const { order, item } = await guestOrder(svc, api, { flowId: flow.flowId, name: '사진 액자' });
  const act = (key: string, input: Record<string, unknown>) =>
    buyerApi(svc, svc.storeId)('POST', `/storefront/v1/guest/orders/${order.orderId}/items/${item.orderItemId}/actions/${key}`, {
      body: { orderPassword: GUEST.orderPassword, input },
    });

  const other = await newSellerWithStore(svc, 'photo');
  const foreign = (await uploadInput({ file: png() }, other.storeId)).body.data.uploadId;
  const productImage = (await sellerUpload('product-image')).body.data.uploadId;
  for (const photo of ['upl_0000000000000000', foreign, productImage]) {
    const refused = await act('SEND_PHOTO', { photo });
    fails(refused, 400, 'FLOW_ACTION_INPUT_INVALID');
    assert.equal(
      refused.body.error.details.issues.map((i: any) => [i.key, i.code]),
      [['photo', 'UPLOAD_NOT_FOUND']],
    );
  }
  fails(await act('SEND_PHOTO', { photo: 'not-an-id' }), 400, 'FLOW_ACTION_INPUT_INVALID');
  assert.is(ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow`)).state, 'PAID');

  const photo = (await uploadInput({ file: png() })).body.data.uploadId;
  assert.is(ok(await act('SEND_PHOTO', { photo })).state, 'REVIEWING');
  const runs = ok(await api('GET', `/v1/order-items/${item.orderItemId}/flow/runs`)).contents;
  assert.equal(runs.at(-1).input, { photo });
  assert.equal(runs.at(-1).notifications, [{ channel: 'email', params: { subject: '사진 접수: 사진 액자' }, sent: true }]);
  const mail = ok(await api('GET', '/_dev/v1/mail')).contents.find((m: any) => m.subject === '사진 접수: 사진 액자');
  assert.equal([mail.to, mail.body.includes(String(order.orderNo)), mail.body.includes('사진 검토')], [GUEST.email, true, true]);

  // A seller may attach its own flow attachments (or a buyer's picture); a buyer never a seller's file.
  const attachment = (await sellerUpload('flow-attachment')).body.data.uploadId;
  assert.is(ok(await api('POST', `/v1/order-items/${item.orderItemId}/actions/FINISH`, { body: { input: { result: attachment } } })).state, 'DONE');
});

test('address change: only with a listener and before dispatch; the event per item to ship, the seller applies or dismisses it', async () => {
  const product = await createProduct(api, {});
  const { order, buyer } = await memberOrder(svc, api, 'mover', [product, await createProduct(api, {})]);
  const newAddress = { ...ADDRESS, receiverName: '이사간', zipCode: '63100', address1: '제주 제주시 1', address2: '2층', deliveryMemo: '문 앞' };
  const request = () => buyer('POST', `/storefront/v1/me/orders/${order.orderId}/address-change-request`, { body: { shippingAddress: newAddress } });
  const notListened = await request();
  fails(notListened, 409, 'ADDRESS_CHANGE_NOT_AVAILABLE');
  assert.equal(notListened.body.error.details, { reason: 'NOT_SUBSCRIBED' });

  const receiver = await startReceiver();
  ok(await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['ORDER.ADDRESS_CHANGE_REQUESTED'] } }), 201);
  fails(
    await buyer('POST', `/storefront/v1/me/orders/${order.orderId}/address-change-request`, { body: { shippingAddress: { ...newAddress, zipCode: '1' } } }),
    400,
    'VALIDATION_FAILED',
  );
  const stranger = await memberOrder(svc, api, 'stranger-mover', [await createProduct(api, {})]);
  fails(
    await stranger.buyer('POST', `/storefront/v1/me/orders/${order.orderId}/address-change-request`, { body: { shippingAddress: newAddress } }),
    404,
    'ORDER_NOT_FOUND',
  );

  const asked = await request();
  assert.is(asked.status, 202, JSON.stringify(asked.body));
  assert.equal(asked.data.addressChangeRequest.shippingAddress, newAddress);
  const pending = ok(await api('GET', `/v1/orders/${order.orderId}`));
  assert.equal([pending.shippingAddress.receiverName, pending.addressChangeRequest.shippingAddress.receiverName], ['김수령', '이사간']);
  for (let i = 0; receiver.received.length < 2 && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
  const events = receiver.received.map((r) => JSON.parse(r.body)).sort((a, b) => a.sequence - b.sequence);
  assert.equal(
    events.map((e) => [e.type, e.data.orderItemId]),
    order.items.map((i: any) => ['ORDER.ADDRESS_CHANGE_REQUESTED', i.orderItemId]),
  );
  assert.equal(events[0].data, {
    orderId: order.orderId,
    orderNo: order.orderNo,
    orderItemId: order.items[0].orderItemId,
    status: 'PAID',
    fulfillmentSnapshot: order.items[0].fulfillmentSnapshot,
    fulfilledAt: null,
    testPayment: true,
  });

  // Another store cannot touch it; the seller applies it, after which nothing is pending.
  const intruder = await newSellerWithStore(svc, 'addr');
  const intruding = await intruder.api('PUT', `/v1/orders/${order.orderId}/shipping-address`, { body: { shippingAddress: newAddress } });
  assert.ok([403, 404].includes(intruding.status), JSON.stringify(intruding.body));
  const applied = ok(await api('PUT', `/v1/orders/${order.orderId}/shipping-address`, { body: { shippingAddress: newAddress } }));
  assert.equal([applied.shippingAddress, applied.addressChangeRequest], [newAddress, null]);
  fails(await api('DELETE', `/v1/orders/${order.orderId}/address-change-request`), 404, 'ADDRESS_CHANGE_REQUEST_NOT_FOUND');
  assert.is((await request()).status, 202);
  assert.equal(ok(await api('DELETE', `/v1/orders/${order.orderId}/address-change-request`)).addressChangeRequest, null);
  assert.equal(ok(await api('GET', `/v1/orders/${order.orderId}`)).shippingAddress, newAddress);

  // Once one item has left, neither the buyer nor the seller can redirect the order.
  ok(await api('POST', `/v1/order-items/${order.items[0].orderItemId}/confirm`));
  ok(await api('POST', `/v1/order-items/${order.items[0].orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: '123456789' } }));
  const late = await request();
  fails(late, 409, 'ADDRESS_CHANGE_NOT_AVAILABLE');
  assert.equal(late.body.error.details, { reason: 'DISPATCHED' });
  fails(await api('PUT', `/v1/orders/${order.orderId}/shipping-address`, { body: { shippingAddress: ADDRESS } }), 409, 'ADDRESS_CHANGE_NOT_AVAILABLE');

  // A guest asks with the order password; an order with nothing to ship has no address to change.
  const guest = await guestOrder(svc, api, {});
  const guestAsk = (password: string) =>
    buyerApi(svc, svc.storeId)('POST', `/storefront/v1/guest/orders/${guest.order.orderId}/address-change-request`, {
      body: { orderPassword: password, shippingAddress: newAddress },
    });
  fails(await guestAsk('wrong-password'), 404, 'ORDER_NOT_FOUND');
  assert.is((await guestAsk(GUEST.orderPassword)).status, 202);
  const manual = await guestOrder(svc, api, { fulfillment: { type: 'MANUAL' } });
  const noShipping = await buyerApi(svc, svc.storeId)('POST', `/storefront/v1/guest/orders/${manual.order.orderId}/address-change-request`, {
    body: { orderPassword: GUEST.orderPassword, shippingAddress: newAddress },
  });
  fails(noShipping, 409, 'ADDRESS_CHANGE_NOT_AVAILABLE');
  assert.equal(noShipping.body.error.details, { reason: 'NO_SHIPPING' });
  await receiver.close();
});

test.run();
