import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { createProduct, fails, read } from '../helpers/products.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6300010000050001', 'hex');

async function upload(fields: Record<string, string | Blob>, api = { token: svc.ownerToken, storeId: svc.storeId }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v as never);
  const res = await fetch(`${svc.url}/v1/uploads`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${api.token}`, 'x-store-id': api.storeId },
  });
  return { status: res.status, body: (await res.json()) as any };
}
const png = (name = 'a.png') => new File([PNG], name, { type: 'image/png' });

test('uploads: multipart → id, url, type, size; the file is served back', async () => {
  const res = await upload({ file: png(), purpose: 'product-image' });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const { uploadId, url, contentType, size } = res.body.data;
  assert.ok(uploadId.startsWith('upl_'));
  assert.is(contentType, 'image/png');
  assert.is(size, PNG.length);
  const file = await fetch(url);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'image/png');
  assert.equal(Buffer.from(await file.arrayBuffer()), PNG);
  assert.is((await fetch(`${svc.url}/files/upl_missing`)).status, 404);
});

test("uploads: bad forms are 400 by field; another store's image is TENANT_MISMATCH", async () => {
  const cases: [Record<string, string | Blob>, string, string][] = [
    [{ file: png() }, 'purpose', 'REQUIRED'],
    [{ file: png(), purpose: 'avatar' }, 'purpose', 'INVALID_VALUE'],
    [{ purpose: 'product-image' }, 'file', 'REQUIRED'],
    [{ file: new File(['<html>'], 'x.html', { type: 'text/html' }), purpose: 'product-image' }, 'file', 'UNSUPPORTED_TYPE'],
    [{ file: png(), purpose: 'product-image', extra: 'x' }, 'extra', 'UNKNOWN_FIELD'],
  ];
  for (const [fields, field, code] of cases) {
    const res = await upload(fields);
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.ok(
      res.body.error.fieldErrors.some((f: any) => f.field === field && f.code === code),
      JSON.stringify(res.body.error),
    );
  }
  const json = await svc.api('POST', '/v1/uploads', { body: { file: 'x' } });
  fails(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
  const other = await newSellerWithStore(svc, 'upl');
  const theirs = (await upload({ file: png(), purpose: 'product-image' }, { token: other.token, storeId: other.storeId })).body.data;
  fails(await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, images: [theirs.uploadId] } }), 403, 'TENANT_MISMATCH');
});

test('uploads are what their declared type says: the first bytes must match, or 400 CONTENT_TYPE_MISMATCH', async () => {
  const file = (bytes: string | Uint8Array, type: string, name = 'f') => new File([bytes], name, { type });
  const refused: [File, string][] = [
    [file('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', 'image/png'), 'product-image'],
    [file('<html><script>alert(1)</script></html>', 'image/jpeg'), 'product-image'],
    [file(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'), 'image/png'), 'product-image'],
    [file(PNG, 'image/webp'), 'product-image'],
    [file('%PDF', 'image/avif'), 'product-image'],
    [file('<html>', 'application/pdf'), 'flow-attachment'],
    [file(Buffer.from([0x61, 0x00, 0x62]), 'text/plain'), 'flow-attachment'],
    [file(Buffer.from([0xff, 0xfe, 0x41]), 'text/plain'), 'flow-attachment'],
  ];
  for (const [f, purpose] of refused) {
    const res = await upload({ file: f, purpose });
    assert.is(res.status, 400, `${f.type}: ${JSON.stringify(res.body)}`);
    assert.equal(
      res.body.error.fieldErrors.map((e: any) => [e.field, e.code]),
      [['file', 'CONTENT_TYPE_MISMATCH']],
    );
  }
  const avif = Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from('ftypmif1\0\0\0\0mif1avifmiaf', 'latin1')]);
  const accepted: [File, string][] = [
    [file(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'image/jpeg'), 'product-image'],
    [file(Buffer.from('GIF87a\x01\x00', 'latin1'), 'image/gif'), 'product-image'],
    [file(Buffer.from('RIFF\x1a\0\0\0WEBPVP8L', 'latin1'), 'image/webp'), 'product-image'],
    [file(avif, 'image/avif'), 'product-image'],
    [file('%PDF-1.7\n', 'application/pdf'), 'flow-attachment'],
    [file('배송 메모', 'text/plain'), 'flow-attachment'],
  ];
  for (const [f, purpose] of accepted) assert.is((await upload({ file: f, purpose })).status, 201, f.type);
});

test("served uploads: nosniff, and the client's file name only escaped in Content-Disposition (RFC 6266, RFC 8187)", async () => {
  const names = [`it's (1) "draft"; x=y\\.png`, '상품 사진 100%.png', `${'a'.repeat(199)}😀b.png`];
  for (const name of names) {
    const res = await upload({ file: png(name), purpose: 'product-image' });
    assert.is(res.status, 201, JSON.stringify(res.body));
    const stored = [...name].slice(0, 200).join('');
    assert.is(res.body.data.filename, stored);
    const served = await fetch(res.body.data.url);
    assert.is(served.headers.get('x-content-type-options'), 'nosniff');
    const disposition = served.headers.get('content-disposition') ?? '';
    const match = /^inline; filename="([A-Za-z0-9._-]+)"; filename\*=UTF-8''((?:[A-Za-z0-9!#$&+.^_`|~-]|%[0-9A-F]{2})+)$/.exec(disposition);
    assert.ok(match, disposition);
    assert.is(decodeURIComponent(match![2]), stored);
  }
});

test('product images are uploads: first is representative, URLs come back, unknown ids refused', async () => {
  const a = (await upload({ file: png('a.png'), purpose: 'product-image' })).body.data;
  const b = (await upload({ file: png('b.png'), purpose: 'product-image' })).body.data;
  const attachment = (await upload({ file: png('c.png'), purpose: 'flow-attachment' })).body.data;
  const p = await createProduct(svc.api, { images: [b.uploadId, a.uploadId] });
  assert.equal(p.images, [b.uploadId, a.uploadId]);
  assert.equal(p.imageUrls, [b.url, a.url]);
  const missing = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { images: [a.uploadId, 'upl_nope', attachment.uploadId] } });
  fails(missing, 400, 'VALIDATION_FAILED');
  assert.equal(
    missing.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
    [
      ['images.1', 'UPLOAD_NOT_FOUND'],
      ['images.2', 'WRONG_PURPOSE'],
    ],
  );
  assert.equal((await read(svc.api, p.productId)).images, [b.uploadId, a.uploadId]);
});

test('categories: create, tree, leaf rules, flowId on leaves only, delete only when empty', async () => {
  const root = await svc.api('POST', '/v1/categories', { body: { name: '식품' } });
  assert.is(root.status, 201);
  const leaf = (await svc.api('POST', '/v1/categories', { body: { name: '과일', parentId: root.data.categoryId } })).data;
  assert.is(leaf.leaf, true);
  assert.is((await svc.api('GET', `/v1/categories/${root.data.categoryId}`)).data.leaf, false);
  const flowId = (await svc.api('GET', '/v1/commerce-flows')).data.contents.find((f: any) => f.kind === 'SHIPPING').flowId;
  fails(await svc.api('PATCH', `/v1/categories/${root.data.categoryId}`, { body: { flowId } }), 400, 'CATEGORY_NOT_LEAF');
  fails(await svc.api('PATCH', `/v1/categories/${leaf.categoryId}`, { body: { flowId: 'flw_nope' } }), 404, 'FLOW_NOT_FOUND');
  assert.is((await svc.api('PATCH', `/v1/categories/${leaf.categoryId}`, { body: { flowId, name: '제철 과일' } })).data.flowId, flowId);
  fails(await svc.api('POST', '/v1/categories', { body: { name: '사과', parentId: leaf.categoryId } }), 409, 'CATEGORY_IN_USE');
  fails(await svc.api('PATCH', `/v1/categories/${root.data.categoryId}`, { body: { parentId: leaf.categoryId } }), 400, 'VALIDATION_FAILED');
  fails(await svc.api('DELETE', `/v1/categories/${root.data.categoryId}`), 409, 'CATEGORY_IN_USE');
  const list = await svc.api('GET', '/v1/categories');
  assert.ok(list.data.contents.some((c: any) => c.categoryId === leaf.categoryId && c.parentId === root.data.categoryId && c.name === '제철 과일'));
  fails(await svc.api('POST', '/v1/categories', { body: { name: '' } }), 400, 'VALIDATION_FAILED');
  fails(await svc.api('POST', '/v1/categories', { body: { name: 'x', parentId: 'cat_nope' } }), 404, 'CATEGORY_NOT_FOUND');
  const spare = (await svc.api('POST', '/v1/categories', { body: { name: '빈 카테고리' } })).data;
  assert.equal((await svc.api('DELETE', `/v1/categories/${spare.categoryId}`)).data, { categoryId: spare.categoryId, deleted: true });
});

const optionSet = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  groups: [{ name: '색상', kind: 'COMBINATION', required: true, values: [{ name: '빨강', additionalPrice: 0 }] }],
  ...extra,
});

test('saved option sets: create, list with keyword / composition / sort / size, update, delete', async () => {
  const other = await newSellerWithStore(svc, 'opt');
  const api = other.api;
  const a = await api('POST', '/v1/saved-option-sets', { body: optionSet('Apple 세트') });
  assert.is(a.status, 201, JSON.stringify(a.body));
  assert.equal(Object.keys(a.data).sort(), ['createdAt', 'customInputs', 'groups', 'importedProductCount', 'name', 'optionSetId', 'optionSort', 'updatedAt']);
  assert.is(a.data.optionSort, 'REGISTERED');
  await api('POST', '/v1/saved-option-sets', {
    body: optionSet('banana 추가옵션', { groups: [{ name: '포장', kind: 'ADDON', required: false, values: [{ name: '선물', additionalPrice: 2000 }] }] }),
  });
  await api('POST', '/v1/saved-option-sets', {
    body: optionSet('각인', {
      customInputs: [{ label: '각인 문구', placeholder: null, maxLength: 20, required: true, key: 'engraving', type: 'TEXT', options: [] }],
    }),
  });
  const names = async (query: Record<string, string | number>) => (await api('GET', '/v1/saved-option-sets', { query })).data.contents.map((o: any) => o.name);
  assert.equal(await names({ keyword: 'APPLE' }), ['Apple 세트']);
  assert.equal(await names({ composition: 'addon' }), ['banana 추가옵션']);
  assert.equal(await names({ composition: 'customInput' }), ['각인']);
  assert.equal((await names({ composition: 'combination' })).sort(), ['Apple 세트', '각인']);
  assert.equal(await names({ sort: 'name.asc' }), ['Apple 세트', 'banana 추가옵션', '각인']);
  assert.equal(await names({ size: 1, page: 2, sort: 'name.asc' }), ['banana 추가옵션']);
  fails(await api('GET', '/v1/saved-option-sets', { query: { size: 201 } }), 400, 'VALIDATION_FAILED');
  fails(await api('GET', '/v1/saved-option-sets', { query: { composition: 'other' } }), 400, 'VALIDATION_FAILED');
  const updated = await api('PUT', `/v1/saved-option-sets/${a.data.optionSetId}`, { body: optionSet('Apple 세트 v2') });
  assert.is(updated.data.name, 'Apple 세트 v2');
  fails(await svc.api('GET', `/v1/saved-option-sets/${a.data.optionSetId}`), 403, 'TENANT_MISMATCH');
  assert.is((await api('DELETE', `/v1/saved-option-sets/${a.data.optionSetId}`)).status, 200);
  fails(await api('GET', `/v1/saved-option-sets/${a.data.optionSetId}`), 404, 'OPTION_SET_NOT_FOUND');
  fails(
    await api('POST', '/v1/saved-option-sets', {
      body: { ...optionSet('x'), customInputs: [{ label: 'l', placeholder: null, maxLength: 5, required: true, key: 'k', type: 'SELECT', options: [] }] },
    }),
    400,
    'VALIDATION_FAILED',
  );
});

test('saved option sets: at most 200 per store', async () => {
  const other = await newSellerWithStore(svc, 'opt200');
  const { db } = svc.services;
  const { savedOptionSets } = await import('../../src/modules/catalog/schema.js');
  const now = Date.now();
  await db
    .insert(savedOptionSets)
    .values(
      Array.from({ length: 200 }, (_, i) => ({
        id: `opts_fill_${i}`,
        storeId: other.storeId,
        name: `s${i}`,
        optionSort: 'REGISTERED',
        groups: [],
        customInputs: [],
        importedProductCount: 0,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .run();
  fails(await other.api('POST', '/v1/saved-option-sets', { body: optionSet('201st') }), 409, 'OPTION_SET_LIMIT_EXCEEDED');
});

test('buyer product: by id or number, only ON_SALE, originalPrice, no stock counts', async () => {
  const p = await createProduct(svc.api, {
    listPrice: 20000,
    options: [{ name: 'c', values: ['a', 'b'] }],
    variants: [
      { optionValues: ['a'], stockQuantity: 3 },
      { optionValues: ['b'], saleOn: false },
    ],
  });
  const anon = { token: null, storeId: null };
  const byId = await svc.api('GET', `/storefront/v1/products/${p.productId}`, anon);
  assert.is(byId.status, 200, JSON.stringify(byId.body));
  assert.is(byId.data.originalPrice, 20000);
  assert.is(byId.data.listPrice, undefined);
  assert.is(byId.data.price, 10000);
  assert.equal(
    byId.data.variants.map((v: any) => [v.optionValues[0], v.optionId === v.variantId, v.soldOut]),
    [['a', true, false]],
  );
  assert.ok(!JSON.stringify(byId.data).includes('stockQuantity'));
  const byNo = await svc.api('GET', `/storefront/v1/products/${p.productNo}`, { token: null, storeId: svc.storeId });
  assert.is(byNo.data.productId, p.productId);
  fails(await svc.api('GET', `/storefront/v1/products/${p.productNo}`, anon), 400, 'STORE_ID_REQUIRED');
  const other = await newSellerWithStore(svc, 'buyer');
  fails(await svc.api('GET', `/storefront/v1/products/${p.productId}`, { token: null, storeId: other.storeId }), 404, 'PRODUCT_NOT_FOUND');
  for (const status of ['SOLD_OUT', 'SUSPENDED', 'ENDED']) {
    await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { status } });
    fails(await svc.api('GET', `/storefront/v1/products/${p.productId}`, anon), 404, 'PRODUCT_NOT_FOUND');
  }
});

test('collections: `all` or a category (with its sub-categories), on-sale products only', async () => {
  const seller = await newSellerWithStore(svc, 'coll');
  const root = (await seller.api('POST', '/v1/categories', { body: { name: '의류' } })).data;
  const top = (await seller.api('POST', '/v1/categories', { body: { name: '상의', parentId: root.categoryId } })).data;
  const other = (await seller.api('POST', '/v1/categories', { body: { name: '잡화' } })).data;
  const shirt = await createProduct(seller.api, { name: '셔츠', categoryId: top.categoryId });
  await createProduct(seller.api, { name: '숨김', categoryId: top.categoryId, status: 'SUSPENDED' });
  const bag = await createProduct(seller.api, { name: '가방', categoryId: other.categoryId });
  const list = (slug: string, storeId: string | null = seller.storeId) =>
    svc.api('GET', `/storefront/v1/collections/${slug}/products`, { token: null, storeId });
  assert.equal(
    (await list(root.categoryId)).data.contents.map((p: any) => p.productId),
    [shirt.productId],
  );
  assert.equal(
    (await list('all')).data.contents.map((p: any) => p.productId),
    [bag.productId, shirt.productId],
  );
  assert.is((await list('all')).data.contents[0].originalPrice, null);
  fails(await list('cat_nope'), 404, 'COLLECTION_NOT_FOUND');
  fails(await list('all', null), 400, 'STORE_ID_REQUIRED');
  fails(await list(root.categoryId, svc.storeId), 404, 'COLLECTION_NOT_FOUND');
});

test.run();
