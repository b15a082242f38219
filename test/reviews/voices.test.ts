/**
 * Reviews, inquiries and collections over HTTP: a review once per received item (REVIEW.CREATED with its
 * per-review sequence, pictures from the buyer's uploads, test orders refused unless the store allows
 * them), the seller's reply and hide; product inquiries (INQUIRY.CREATED) and one-to-one ones (no event),
 * answered; seller collections by products or category on the storefront; scopes and tenancy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, createProduct } from '../helpers/checkout.js';
import { member, pay, sheetOf, simulate } from '../helpers/members.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

let svc: TestService;
let api: Api;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  api = svc.api;
  await connectSandbox(api);
  receiver = await startReceiver();
  ok(await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: ['REVIEW.CREATED', 'INQUIRY.CREATED'] } }), 201);
});
test.after(async () => {
  await receiver.close();
  await svc.close();
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001', 'hex');

async function received(type: string, n: number) {
  for (let i = 0; i < 200; i++) {
    const bodies = receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.type === type);
    if (bodies.length >= n) return bodies;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${n} ${type} events`);
}

/** A member's order of one product, paid; answers the buyer, the order item and the product. */
async function bought(label: string) {
  const m = await member(svc, api, label);
  const p = await createProduct(api, { name: `${label} 상품`, salePrice: 12000 });
  const done = ok(await simulate(m.buyer, ok(await pay(m.buyer, await sheetOf(m.buyer, [p]), {}), 201).paymentId, 'APPROVE'));
  const item = ok(await api('GET', `/v1/orders/${done.orderId}`)).items[0];
  return { ...m, item, product: p };
}

const deliver = async (orderItemId: string) => {
  ok(await api('POST', `/v1/order-items/${orderItemId}/confirm`));
  ok(await api('POST', `/v1/order-items/${orderItemId}/dispatch`, { body: { carrier: 'CJ대한통운', trackingNo: '1234' } }));
  ok(await api('POST', `/v1/order-items/${orderItemId}/delivered`));
};

test('reviews: after delivery, once per item, test orders only when the store allows; REVIEW.CREATED; reply and hide', async () => {
  const b = await bought('reviewer');
  const write = (body: Record<string, unknown>, buyer = b.buyer) => buyer('POST', `/storefront/v1/me/order-items/${b.item.orderItemId}/reviews`, { body });
  fails(await write({ rating: 5, text: '좋아요' }), 409, 'REVIEW_NOT_AVAILABLE');
  await deliver(b.item.orderItemId);
  // Sandbox payments make test orders: refused until the store allows their reviews.
  fails(await write({ rating: 5, text: '좋아요' }), 409, 'REVIEW_NOT_ALLOWED_FOR_TEST_ORDER');
  ok(await api('PATCH', '/v1/store', { body: { testOrderReviewsAllowed: true } }));
  fails(await write({ rating: 6, text: '최고' }), 400, 'VALIDATION_FAILED');
  const other = await member(svc, api, 'not-the-buyer');
  fails(await write({ rating: 5, text: '남의 리뷰' }, other.buyer), 404, 'ORDER_ITEM_NOT_FOUND');
  fails(await write({ rating: 5, text: '사진', images: ['upl_missing'] }), 400, 'VALIDATION_FAILED');
  const form = new FormData();
  form.append('file', new File([PNG], '후기.png', { type: 'image/png' }));
  const upload = (await (
    await fetch(`${svc.url}/storefront/v1/uploads/order-inputs`, {
      method: 'POST',
      body: form,
      headers: { 'x-store-id': svc.storeId, authorization: `Bearer ${b.token}` },
    })
  ).json()) as any;
  const review = ok(await write({ rating: 4, text: '튼튼하고 예뻐요', images: [upload.data.uploadId] }), 201);
  assert.equal([review.rating, review.testOrder, review.hidden, review.imageUrls], [4, true, false, [upload.data.url]]);
  fails(await write({ rating: 5, text: '또 씀' }), 409, 'REVIEW_ALREADY_WRITTEN');
  const [event] = await received('REVIEW.CREATED', 1);
  assert.equal([event.data, event.sequence], [{ reviewId: review.reviewId, productId: b.product.productId, rating: 4 }, 1]);

  const replied = ok(await api('POST', `/v1/reviews/${review.reviewId}/reply`, { body: { text: '감사합니다!' } }));
  assert.is(replied.reply.text, '감사합니다!');
  const shown = ok(await buyerApi(svc, svc.storeId)('GET', `/storefront/v1/products/${b.product.productId}/reviews`));
  assert.equal(
    shown.contents.map((r: any) => [r.reviewId, r.rating, r.reply.text]),
    [[review.reviewId, 4, '감사합니다!']],
  );
  assert.is(ok(await api('POST', `/v1/reviews/${review.reviewId}/hide`)).hidden, true);
  assert.equal(ok(await buyerApi(svc, svc.storeId)('GET', `/storefront/v1/products/${b.product.productId}/reviews`)).contents, []);
  assert.equal(
    ok(await api('GET', '/v1/reviews', { query: { productId: b.product.productId } })).contents.map((r: any) => r.hidden),
    [true],
  );

  const stranger = await newSellerWithStore(svc, 'rev');
  const peek = await stranger.api('POST', `/v1/reviews/${review.reviewId}/reply`, { body: { text: '가로채기' } });
  assert.ok([403, 404].includes(peek.status));
  assert.equal(ok(await stranger.api('GET', '/v1/reviews')).contents, []);
  const reader = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['review:r'] }), storeId: svc.storeId });
  assert.is(ok(await reader('GET', '/v1/reviews')).totalElements, 1);
  fails(await reader('POST', `/v1/reviews/${review.reviewId}/hide`), 403, 'INSUFFICIENT_ROLE');
  ok(await api('PATCH', '/v1/store', { body: { testOrderReviewsAllowed: false } }));
});

test('inquiries: product questions fire INQUIRY.CREATED, one-to-one ones do not; members only; answered by the seller', async () => {
  const m = await member(svc, api, 'asker');
  const p = await createProduct(api, { name: '문의 상품' });
  const guest = buyerApi(svc, svc.storeId);
  fails(
    await guest('POST', `/storefront/v1/products/${p.productId}/inquiries`, { body: { title: '재입고?', text: '언제 들어오나요', secret: false } }),
    401,
    'UNAUTHORIZED',
  );
  fails(await m.buyer('POST', '/storefront/v1/products/prd_missing/inquiries', { body: { title: 'x', text: 'y' } }), 404, 'PRODUCT_NOT_FOUND');
  const asked = ok(
    await m.buyer('POST', `/storefront/v1/products/${p.productId}/inquiries`, { body: { title: '재입고?', text: '언제 들어오나요', secret: true } }),
    201,
  );
  assert.equal([asked.kind, asked.productId, asked.secret, asked.answer], ['PRODUCT', p.productId, true, null]);
  const personal = ok(await m.buyer('POST', '/storefront/v1/me/inquiries', { body: { title: '배송지', text: '주소를 바꾸고 싶어요' } }), 201);
  assert.equal([personal.kind, personal.productId], ['PERSONAL', null]);
  const events = await received('INQUIRY.CREATED', 1);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(
    receiver.received
      .map((r) => JSON.parse(r.body))
      .filter((b) => b.type === 'INQUIRY.CREATED')
      .map((b) => b.data),
    [{ inquiryId: asked.inquiryId, productId: p.productId }],
  );
  assert.is(events[0].sequence, 1);

  const open = ok(await api('GET', '/v1/inquiries', { query: { answered: 'false' } })).contents.map((i: any) => i.inquiryId);
  assert.ok(open.includes(asked.inquiryId) && open.includes(personal.inquiryId));
  const answered = ok(await api('POST', `/v1/inquiries/${asked.inquiryId}/answer`, { body: { text: '다음 주 입고됩니다.' } }));
  assert.is(answered.answer.text, '다음 주 입고됩니다.');
  assert.equal(
    ok(await api('GET', '/v1/inquiries', { query: { answered: 'true', kind: 'PRODUCT' } })).contents.map((i: any) => i.inquiryId),
    [asked.inquiryId],
  );
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['inquiry:rw'], agent: true }), storeId: svc.storeId });
  assert.is(
    ok(await agent('POST', `/v1/inquiries/${personal.inquiryId}/answer`, { body: { text: '주문 상세에서 바꿀 수 있어요.' } })).answer.text,
    '주문 상세에서 바꿀 수 있어요.',
  );
  const stranger = await newSellerWithStore(svc, 'inq');
  const poke = await stranger.api('POST', `/v1/inquiries/${asked.inquiryId}/answer`, { body: { text: 'x' } });
  assert.ok([403, 404].includes(poke.status));
});

test('collections: chosen products or a category (and below), on-sale only on the storefront; slugs checked; tenancy', async () => {
  const parent = ok(await api('POST', '/v1/categories', { body: { name: '주방' } }), 201);
  const child = ok(await api('POST', '/v1/categories', { body: { name: '컵', parentId: parent.categoryId } }), 201);
  const plates = ok(await api('POST', '/v1/categories', { body: { name: '접시', parentId: parent.categoryId } }), 201);
  const cup = await createProduct(api, { name: '컬렉션 컵', categoryId: child.categoryId });
  const plate = await createProduct(api, { name: '컬렉션 접시', categoryId: plates.categoryId });
  const hidden = await createProduct(api, { name: '판매 중지 컵', categoryId: child.categoryId, status: 'SUSPENDED' });
  const picks = ok(await api('POST', '/v1/collections', { body: { slug: 'best', title: '베스트', productIds: [cup.productId, hidden.productId] } }), 201);
  const kitchen = ok(await api('POST', '/v1/collections', { body: { slug: 'kitchen', title: '주방 전체', rule: { categoryId: parent.categoryId } } }), 201);
  const bad = await api('POST', '/v1/collections', { body: { slug: 'best', title: '중복', productIds: ['prd_none'] } });
  fails(bad, 400, 'VALIDATION_FAILED');
  assert.equal(
    bad.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
    [
      ['slug', 'TAKEN'],
      ['productIds.0', 'NOT_FOUND'],
    ],
  );
  fails(await api('POST', '/v1/collections', { body: { slug: 'all', title: '예약어', productIds: [] } }), 400, 'VALIDATION_FAILED');
  fails(
    await api('POST', '/v1/collections', { body: { slug: 'both', title: '둘 다', productIds: [], rule: { categoryId: parent.categoryId } } }),
    400,
    'VALIDATION_FAILED',
  );

  const shop = buyerApi(svc, svc.storeId);
  const names = async (slug: string) =>
    ok(await shop('GET', `/storefront/v1/collections/${slug}/products`))
      .contents.map((p: any) => p.name)
      .sort();
  assert.equal(await names('best'), ['컬렉션 컵']);
  assert.equal(await names('kitchen'), ['컬렉션 접시', '컬렉션 컵']);
  ok(await api('PUT', `/v1/collections/${picks.collectionId}`, { body: { slug: 'best', title: '베스트', productIds: [plate.productId] } }));
  assert.equal(await names('best'), ['컬렉션 접시']);
  fails(await shop('GET', '/storefront/v1/collections/nope/products'), 404, 'COLLECTION_NOT_FOUND');
  assert.equal(
    ok(await api('GET', '/v1/collections')).contents.map((c: any) => c.slug),
    ['best', 'kitchen'],
  );

  const stranger = await newSellerWithStore(svc, 'col');
  const poke = await stranger.api('PUT', `/v1/collections/${kitchen.collectionId}`, { body: { slug: 'mine', title: 'x', productIds: [] } });
  assert.ok([403, 404].includes(poke.status));
  fails(await buyerApi(svc, stranger.storeId)('GET', '/storefront/v1/collections/kitchen/products'), 404, 'COLLECTION_NOT_FOUND');
});

test.run();
