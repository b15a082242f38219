import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, login, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

test('success envelope: meta, data, error null, Korean message', async () => {
  const res = await svc.api('GET', '/v1/store');
  assert.is(res.status, 200);
  assert.equal(res.body.meta, { status: 200, code: 'OK', message: '성공', isSuccess: true });
  assert.is(res.body.error, null);
  assert.is(res.data.storeId, svc.storeId);
  assert.is(res.headers.get('content-language'), 'ko');
});

test('unknown route is a 404 envelope, not a bare page', async () => {
  const res = await svc.api('GET', '/v1/no-such-thing');
  assert.is(res.status, 404);
  assert.is(res.body.meta.code, 'ROUTE_NOT_FOUND');
  assert.is(res.body.meta.isSuccess, false);
  assert.is(res.body.error.code, 'ROUTE_NOT_FOUND');
  assert.ok(res.body.error.traceId);
  assert.ok(res.body.error.docs.endsWith('#ROUTE_NOT_FOUND'));
  assert.equal(res.body.error.fieldErrors, []);
});

test('a request head past 16 KB answers in the envelope: 414 for a long query, 431 for large headers, 431 past the parser', async () => {
  const refused = async (res: Response, status: number, code: string) => {
    assert.is(res.status, status, code);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = await res.json();
    assert.equal([body.meta.code, body.meta.isSuccess, body.error.code, body.error.details.maxBytes], [code, false, code, 16 * 1024]);
    assert.ok(body.error.traceId && body.error.docs.endsWith(`#${code}`));
  };
  const auth = { authorization: `Bearer ${svc.ownerToken}`, 'x-store-id': svc.storeId };
  await refused(await fetch(`${svc.url}/v1/orders?keyword=${'a'.repeat(20 * 1024)}`, { headers: auth }), 414, 'URI_TOO_LONG');
  await refused(await fetch(`${svc.url}/v1/orders`, { headers: { ...auth, 'x-padding': 'a'.repeat(20 * 1024) } }), 431, 'REQUEST_HEADERS_TOO_LARGE');
  // Past the parser's own limit no handler runs: its clientError answer is the envelope too.
  await refused(await fetch(`${svc.url}/v1/orders`, { headers: { ...auth, 'x-padding': 'a'.repeat(80 * 1024) } }), 431, 'REQUEST_HEADERS_TOO_LARGE');
  // Under the limit nothing changes.
  assert.is((await fetch(`${svc.url}/v1/orders`, { headers: { ...auth, 'x-padding': 'a'.repeat(12 * 1024) } })).status, 200);
});

test('wrong method on a known path is 405 with the allowed methods', async () => {
  const res = await svc.api('DELETE', '/v1/store');
  assert.is(res.status, 405);
  assert.equal(res.body.error.details.allowed.sort(), ['GET', 'PATCH']);
});

test('malformed JSON is 400 VALIDATION_FAILED and changes nothing', async () => {
  const res = await svc.api('PATCH', '/v1/store', { rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'VALIDATION_FAILED');
  assert.is(res.body.error.fieldErrors[0].code, 'MALFORMED_JSON');
  assert.is((await svc.api('GET', '/v1/store')).data.name, 'Dev Store');
});

test('unknown fields are refused by name, never ignored', async () => {
  const res = await svc.api('PATCH', '/v1/store', { body: { name: 'Renamed', colour: 'blue' } });
  assert.is(res.status, 400);
  assert.equal(
    res.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
    [['colour', 'UNKNOWN_FIELD']],
  );
  assert.is((await svc.api('GET', '/v1/store')).data.name, 'Dev Store');
});

test('unknown query parameters are refused; lang is accepted', async () => {
  assert.is((await svc.api('GET', '/v1/store', { query: { lang: 'ko' } })).status, 200);
  const res = await svc.api('GET', '/v1/store', { query: { foo: 'bar' } });
  assert.is(res.status, 400);
  assert.is(res.body.error.fieldErrors[0].field, 'foo');
});

test('wrong types name the field and the expected type in Korean', async () => {
  const res = await svc.api('PATCH', '/v1/store', { body: { guestCheckout: 'yes' } });
  assert.is(res.status, 400);
  assert.equal(res.body.error.fieldErrors, [{ field: 'guestCheckout', code: 'INVALID_TYPE', message: '불리언 형식이어야 합니다.' }]);
});

test('store patch changes only sent fields', async () => {
  const res = await svc.api('PATCH', '/v1/store', { body: { guestCheckout: false, storefrontOrigins: ['https://shop.example.com'] } });
  assert.is(res.status, 200);
  assert.is(res.data.guestCheckout, false);
  assert.equal(res.data.storefrontOrigins, ['https://shop.example.com']);
  assert.is(res.data.testOrderReviewsAllowed, false);
  assert.is(res.data.shippingPolicy.deliveryFee, 3000);
});

test('storefrontOrigins holds at most 20 origins', async () => {
  const origins = Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`);
  const res = await svc.api('PATCH', '/v1/store', { body: { storefrontOrigins: origins } });
  assert.is(res.status, 400);
  assert.is(res.body.error.fieldErrors[0].code, 'TOO_LONG');
});

test('public plans need no token', async () => {
  const res = await apiClient(svc.url)('GET', '/v1/public/plans');
  assert.is(res.status, 200);
  assert.ok(res.data.contents.some((p: any) => p.code === 'FREE'));
});

test('subscription shows AI actions left', async () => {
  const res = await svc.api('GET', '/v1/store/subscription');
  assert.is(res.status, 200);
  assert.is(res.data.aiActions.remaining, res.data.aiActions.limit);
});

test('OpenAPI 3.1 document is generated from the registry', async () => {
  const res = await fetch(`${svc.url}/v1/openapi.json`);
  const doc = await res.json();
  assert.is(doc.openapi, '3.1.0');
  assert.is(doc.paths['/v1/store'].get.operationId, 'getStore');
  assert.is(doc.paths['/v1/store'].patch.operationId, 'updateStore');
  assert.ok(doc.paths['/v1/store'].patch.requestBody.content['application/json'].schema.properties.guestCheckout);
  assert.is(doc.paths['/v1/store'].patch['x-svc-scope'], 'store:rw');
});

test('services started one after another in one process write through their own database', async () => {
  // createStore is not used elsewhere in this file: its transaction is first made for service A.
  const createStore = async (service: TestService, code: string) =>
    (await apiClient(service.url)('POST', '/auth/v1/stores', { token: await login(service), body: { name: code, code } })).status;
  const a = await startTestService();
  assert.is(await createStore(a, 'first-one'), 201);
  await a.close();
  const b = await startTestService();
  try {
    assert.is(await createStore(b, 'second-one'), 201);
  } finally {
    await b.close();
  }
});

test('error docs page lists every code', async () => {
  const text = await (await fetch(`${svc.url}/docs/errors`)).text();
  assert.ok(text.includes('id="TENANT_MISMATCH"'));
});

test.run();
