import { makeStoreWentPublic } from '../helpers/storefront.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAccessToken, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { createProduct, fails, read } from '../helpers/products.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

test('seed: sample products of every kind, marked isSample', async () => {
  const res = await svc.api('GET', '/v1/products', { query: { size: 50 } });
  assert.is(res.status, 200);
  const samples = res.data.contents.filter((p: any) => p.isSample);
  assert.ok(samples.length >= 4);
  assert.ok(samples.some((p: any) => p.inventoryMode === 'DATED'));
  assert.ok(samples.some((p: any) => p.fulfillment.type === 'MANUAL'));
  // Every sample has a real picture (shipped with the package), served as a JPEG.
  assert.equal(
    samples.map((p: any) => p.imageUrls.length),
    samples.map((p: any) => (p.name === '베이직 코튼 티셔츠' ? 3 : 1)),
  );
  for (const url of samples.flatMap((p: any) => p.imageUrls)) {
    const picture = await fetch(url);
    assert.equal([picture.status, picture.headers.get('content-type')], [200, 'image/jpeg']);
    assert.ok((await picture.arrayBuffer()).byteLength > 5000);
  }
  assert.equal(Object.keys(res.data).sort(), ['contents', 'page', 'size', 'totalElements', 'totalPages']);
});

test('create: defaults, productNo sequence, every combination generated', async () => {
  const a = await createProduct(svc.api, {
    options: [
      { name: '색상', values: ['빨강', '파랑'] },
      { name: '사이즈', values: ['S', 'M', 'L'] },
    ],
  });
  const b = await createProduct(svc.api);
  assert.is(b.productNo, a.productNo + 1);
  assert.is(a.status, 'ON_SALE');
  assert.is(a.inventoryMode, 'STANDARD');
  assert.is(a.discount, null);
  assert.is(a.refundPolicy, null);
  assert.is(a.fulfillmentTypeLocked, false);
  assert.is(a.originalPrice, undefined);
  assert.equal(
    a.variants.map((v: any) => v.optionValues),
    [
      ['빨강', 'S'],
      ['빨강', 'M'],
      ['빨강', 'L'],
      ['파랑', 'S'],
      ['파랑', 'M'],
      ['파랑', 'L'],
    ],
  );
  const nos = a.variants.map((v: any) => v.variantNo);
  assert.equal(
    nos,
    nos.map((_: number, i: number) => nos[0] + i),
  );
  assert.is(b.variants.length, 1);
  assert.equal(b.variants[0].optionValues, []);
  assert.is(b.variants[0].variantNo, nos[nos.length - 1] + 1);
});

test('productNo and variantNo start at 1 in a new store; other stores do not share the sequence', async () => {
  const other = await newSellerWithStore(svc, 'seq');
  const p = await createProduct(other.api, { options: [{ name: 'a', values: ['1', '2'] }] });
  assert.is(p.productNo, 1);
  assert.equal(
    p.variants.map((v: any) => v.variantNo),
    [1, 2],
  );
  const q = await createProduct(other.api);
  assert.is(q.productNo, 2);
});

test('fulfillment rule 1: omitted → SHIPPING with the store default fee and addresses snapshotted', async () => {
  const addr = await svc.api('PATCH', '/v1/store', {
    body: {
      shippingPolicy: {
        deliveryType: 'PAID',
        deliveryFee: 3500,
        conditionalFreeAmount: 50000,
        jejuSurcharge: 3000,
        islandSurcharge: 5000,
        shippingAddressId: 'addr_ship',
        returnAddressId: 'addr_ret',
      },
    },
  });
  assert.is(addr.status, 200);
  const p = await createProduct(svc.api);
  assert.equal(p.fulfillment, {
    type: 'SHIPPING',
    shipping: { deliveryType: 'PAID', deliveryFee: 3500, conditionalFreeAmount: null, shippingAddressId: 'addr_ship', returnAddressId: 'addr_ret' },
  });
  const partial = await createProduct(svc.api, { fulfillment: { type: 'SHIPPING', shipping: { deliveryFee: 2500, returnAddressId: null } } });
  assert.equal(partial.fulfillment.shipping, {
    deliveryType: 'PAID',
    deliveryFee: 2500,
    conditionalFreeAmount: null,
    shippingAddressId: 'addr_ship',
    returnAddressId: null,
  });
  const manual = await createProduct(svc.api, { fulfillment: { type: 'MANUAL' } });
  assert.equal(manual.fulfillment, { type: 'MANUAL' });
  // A later store change does not move existing products: the fee was snapshotted.
  await svc.api('PATCH', '/v1/store', {
    body: {
      shippingPolicy: {
        deliveryType: 'PAID',
        deliveryFee: 4000,
        conditionalFreeAmount: null,
        jejuSurcharge: 0,
        islandSurcharge: 0,
        shippingAddressId: null,
        returnAddressId: null,
      },
    },
  });
  assert.is((await read(svc.api, p.productId)).fulfillment.shipping.deliveryFee, 3500);
});

test('fulfillment rule 3: legacy flat fields and unknown fields → 400, nothing created', async () => {
  const before = (await svc.api('GET', '/v1/products')).data.totalElements;
  for (const legacy of [{ deliveryFee: 3000 }, { fulfillmentType: 'SHIPPING' }, { returnFee: 1000 }, { exchangeFee: 1000 }, { colour: 'red' }]) {
    const res = await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, ...legacy } });
    fails(res, 400, 'VALIDATION_FAILED');
    assert.equal(
      res.body.error.fieldErrors.map((f: any) => [f.field, f.code]),
      [[Object.keys(legacy)[0], 'UNKNOWN_FIELD']],
    );
  }
  const inner = await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, fulfillment: { type: 'MANUAL', shipping: {} } } });
  fails(inner, 400, 'VALIDATION_FAILED');
  assert.is((await svc.api('GET', '/v1/products')).data.totalElements, before);
});

test('salePrice: minimum 10 and a multiple of 10 → INVALID_PRICE_UNIT', async () => {
  for (const salePrice of [5, 0, 1005, -10]) fails(await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice } }), 400, 'INVALID_PRICE_UNIT');
  const p = await createProduct(svc.api, { salePrice: 10 });
  fails(await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { salePrice: 15 } }), 400, 'INVALID_PRICE_UNIT');
  fails(
    await svc.api('POST', '/v1/products', {
      body: { name: 'x', salePrice: 1000, options: [{ name: 'a', values: ['1'] }], variants: [{ optionValues: ['1'], additionalAmount: 55 }] },
    }),
    400,
    'INVALID_PRICE_UNIT',
  );
  assert.is((await read(svc.api, p.productId)).salePrice, 10);
});

test('limits: name ≤ 100, images ≤ 10, axes ≤ 3, values ≤ 100, combinations ≤ 500', async () => {
  const bad = async (body: Record<string, unknown>, field: string, code: string) => {
    const res = await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, ...body } });
    fails(res, 400, 'VALIDATION_FAILED');
    assert.ok(
      res.body.error.fieldErrors.some((f: any) => f.field === field && f.code === code),
      JSON.stringify(res.body.error.fieldErrors),
    );
  };
  await bad({ name: '가'.repeat(101) }, 'name', 'TOO_LONG');
  await bad({ images: Array.from({ length: 11 }, (_, i) => `upl_${i}`) }, 'images', 'TOO_LONG');
  await bad({ options: ['a', 'b', 'c', 'd'].map((name) => ({ name, values: ['1'] })) }, 'options', 'TOO_LONG');
  await bad({ options: [{ name: 'a', values: Array.from({ length: 101 }, (_, i) => `v${i}`) }] }, 'options.0.values', 'TOO_LONG');
  const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
  await bad(
    {
      options: [
        { name: 'a', values: values(10) },
        { name: 'b', values: values(10) },
        { name: 'c', values: values(6) },
      ],
    },
    'options',
    'TOO_MANY_COMBINATIONS',
  );
  await bad({ options: [{ name: 'a', values: ['1', '1'] }] }, 'options.0.values', 'DUPLICATE');
  assert.is(
    (
      await createProduct(svc.api, {
        name: '가'.repeat(100),
        options: [
          { name: 'a', values: values(10) },
          { name: 'b', values: values(10) },
          { name: 'c', values: values(5) },
        ],
      })
    ).variants.length,
    500,
  );
});

test('variants: settings apply per combination; unknown combination → 400; stockQuantity with options → 400', async () => {
  const options = [{ name: '색상', values: ['빨강', '파랑'] }];
  const p = await createProduct(svc.api, {
    options,
    variants: [{ optionValues: ['파랑'], additionalAmount: 1000, stockQuantity: 7, saleOn: false, sku: { barcode: '880123', sellerCode: 'BL-1' } }],
  });
  const blue = p.variants.find((v: any) => v.optionValues[0] === '파랑');
  assert.equal(blue, {
    ...blue,
    additionalAmount: 1000,
    stockQuantity: 7,
    saleOn: false,
    sku: { barcode: '880123', sellerCode: 'BL-1', cost: null, weight: null },
  });
  assert.is(p.stockQuantity, 7);
  const unknown = await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, options, variants: [{ optionValues: ['초록'] }] } });
  fails(unknown, 400, 'VALIDATION_FAILED');
  assert.is(unknown.body.error.fieldErrors[0].code, 'UNKNOWN_COMBINATION');
  const stock = await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, options, stockQuantity: 5 } });
  fails(stock, 400, 'VALIDATION_FAILED');
  assert.is(stock.body.error.fieldErrors[0].field, 'stockQuantity');
});

test('option structure change keeps the variants whose combination survives', async () => {
  const p = await createProduct(svc.api, {
    options: [
      { name: '색상', values: ['빨강', '파랑'] },
      { name: '사이즈', values: ['S', 'M'] },
    ],
    variants: [{ optionValues: ['빨강', 'M'], stockQuantity: 9 }],
  });
  const keep = p.variants.find((v: any) => v.optionValues.join() === '빨강,M');
  const res = await svc.api('PUT', `/v1/products/${p.productId}/options`, {
    body: {
      options: [
        { name: 'Colour', values: ['빨강', '초록'] },
        { name: '사이즈', values: ['M', 'L'] },
      ],
    },
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(
    res.data.variants.map((v: any) => v.optionValues.join()),
    ['빨강,M', '빨강,L', '초록,M', '초록,L'],
  );
  const kept = res.data.variants[0];
  assert.is(kept.variantId, keep.variantId);
  assert.is(kept.variantNo, keep.variantNo);
  assert.is(kept.stockQuantity, 9);
  assert.ok(res.data.variants.slice(1).every((v: any) => v.variantNo > Math.max(...p.variants.map((x: any) => x.variantNo))));
  // The same through PATCH options.
  const patched = await svc.api('PATCH', `/v1/products/${p.productId}`, {
    body: {
      options: [
        { name: 'Colour', values: ['빨강'] },
        { name: '사이즈', values: ['M'] },
      ],
    },
  });
  assert.equal(
    patched.data.variants.map((v: any) => v.variantId),
    [keep.variantId],
  );
});

test('PUT replaces the product; omitted fulfillment stays, omitted refundPolicy is erased', async () => {
  const p = await createProduct(svc.api, {
    listPrice: 20000,
    fulfillment: { type: 'SHIPPING', shipping: { deliveryType: 'FREE' } },
    refundPolicy: { returnDeliveryFee: 2000, exchangeDeliveryFee: null },
    pointEarnRateBp: 100,
  });
  assert.equal(p.refundPolicy, { returnDeliveryFee: 2000 });
  assert.is(p.fulfillment.shipping.deliveryFee, 0);
  const res = await svc.api('PUT', `/v1/products/${p.productId}`, { body: { name: '새 이름', salePrice: 12000 } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.data.name, '새 이름');
  assert.is(res.data.listPrice, null);
  assert.is(res.data.pointEarnRateBp, null);
  assert.equal(res.data.fulfillment, p.fulfillment);
  assert.is(res.data.refundPolicy, null);
  assert.is(res.data.productNo, p.productNo);
  assert.is(res.data.variants[0].variantId, p.variants[0].variantId);
});

test('PUT/PATCH fulfillment replaces the whole object: inner fields are all required', async () => {
  const p = await createProduct(svc.api);
  const partial = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: { type: 'SHIPPING', shipping: { deliveryFee: 1000 } } } });
  fails(partial, 400, 'VALIDATION_FAILED');
  assert.ok(partial.body.error.fieldErrors.some((f: any) => f.field === 'fulfillment.shipping.shippingAddressId' && f.code === 'REQUIRED'));
  const full = {
    type: 'SHIPPING',
    shipping: { deliveryType: 'CONDITIONAL_FREE', deliveryFee: 2500, conditionalFreeAmount: 30000, shippingAddressId: null, returnAddressId: null },
  };
  const ok = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: full } });
  assert.equal(ok.data.fulfillment, full);
  const noAmount = await svc.api('PATCH', `/v1/products/${p.productId}`, {
    body: { fulfillment: { ...full, shipping: { ...full.shipping, conditionalFreeAmount: null } } },
  });
  fails(noAmount, 400, 'VALIDATION_FAILED');
  assert.equal((await read(svc.api, p.productId)).fulfillment, full);
});

test('refund policy: only given items, unknown items 400, MANUAL with fee items → REFUND_POLICY_NOT_APPLICABLE', async () => {
  const p = await createProduct(svc.api, { refundPolicy: { returnDeliveryFee: 1000, exchangeDeliveryFee: 2000, preShipmentDeliveryFeeRefund: false } });
  assert.equal(p.refundPolicy, { returnDeliveryFee: 1000, exchangeDeliveryFee: 2000, preShipmentDeliveryFeeRefund: false });
  fails(await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { refundPolicy: { restockingFee: 100 } } }), 400, 'VALIDATION_FAILED');
  fails(
    await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, fulfillment: { type: 'MANUAL' }, refundPolicy: { returnDeliveryFee: 1000 } } }),
    400,
    'REFUND_POLICY_NOT_APPLICABLE',
  );
  // Turning it MANUAL while sending fee items is refused; without refundPolicy the fee items are erased.
  fails(
    await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: { type: 'MANUAL' }, refundPolicy: { exchangeDeliveryFee: 1 } } }),
    400,
    'REFUND_POLICY_NOT_APPLICABLE',
  );
  assert.is((await read(svc.api, p.productId)).fulfillment.type, 'SHIPPING');
  const manual = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: { type: 'MANUAL' } } });
  assert.equal(manual.data.refundPolicy, { preShipmentDeliveryFeeRefund: false });
  const cleared = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { refundPolicy: { preShipmentDeliveryFeeRefund: null } } });
  assert.is(cleared.data.refundPolicy, null);
  const kept = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { name: '이름만' } });
  assert.is(kept.data.refundPolicy, null);
});

test('PRODUCT_CHANGED: a write based on a version read before another request changed the type', async () => {
  const p = await createProduct(svc.api);
  const first = await svc.api('GET', `/v1/products/${p.productId}`);
  const etag = first.headers.get('etag')!;
  assert.is(etag, `"${p.version}"`);
  const a = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: { type: 'MANUAL' } }, headers: { 'if-match': etag } });
  assert.is(a.status, 200);
  const shipping = {
    type: 'SHIPPING',
    shipping: { deliveryType: 'PAID', deliveryFee: 3000, conditionalFreeAmount: null, shippingAddressId: null, returnAddressId: null },
  };
  fails(await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: shipping }, headers: { 'if-match': etag } }), 409, 'PRODUCT_CHANGED');
  assert.is((await read(svc.api, p.productId)).fulfillment.type, 'MANUAL');
  // Edits not touching fulfillment, and fresh reads, go through.
  assert.is((await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { name: 'n' }, headers: { 'if-match': etag } })).status, 200);
  const fresh = (await svc.api('GET', `/v1/products/${p.productId}`)).headers.get('etag')!;
  assert.is((await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { fulfillment: shipping }, headers: { 'if-match': fresh } })).status, 200);
});

test('category must be a leaf: CATEGORY_NOT_LEAF', async () => {
  const parent = (await svc.api('POST', '/v1/categories', { body: { name: '의류' } })).data;
  const child = (await svc.api('POST', '/v1/categories', { body: { name: '상의', parentId: parent.categoryId } })).data;
  fails(await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, categoryId: parent.categoryId } }), 400, 'CATEGORY_NOT_LEAF');
  const p = await createProduct(svc.api, { categoryId: child.categoryId });
  assert.is(p.categoryId, child.categoryId);
  fails(await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, categoryId: 'cat_missing' } }), 404, 'CATEGORY_NOT_FOUND');
});

test('list: page and size, filters by productNo, keyword, status; unknown query → 400', async () => {
  const p = await createProduct(svc.api, { name: '유니크한 키워드 상품' });
  const byNo = await svc.api('GET', '/v1/products', { query: { productNo: p.productNo } });
  assert.equal(
    byNo.data.contents.map((x: any) => x.productId),
    [p.productId],
  );
  const byKeyword = await svc.api('GET', '/v1/products', { query: { keyword: '유니크한' } });
  assert.equal(
    byKeyword.data.contents.map((x: any) => x.productId),
    [p.productId],
  );
  const page = await svc.api('GET', '/v1/products', { query: { size: 2, page: 2 } });
  assert.is(page.data.contents.length, 2);
  assert.is(page.data.totalPages, Math.ceil(page.data.totalElements / 2));
  fails(await svc.api('GET', '/v1/products', { query: { size: 101 } }), 400, 'VALIDATION_FAILED');
  fails(await svc.api('GET', '/v1/products', { query: { status: 'ON_SALE,NOPE' } }), 400, 'VALIDATION_FAILED');
  fails(await svc.api('GET', '/v1/products', { query: { sortBy: 'x' } }), 400, 'VALIDATION_FAILED');
});

test('list pages are cached but never stale: every product or variant change shows at once', async () => {
  const seller = await newSellerWithStore(svc, 'cache');
  const first = async () => (await seller.api('GET', '/v1/products', { query: { size: 5 } })).data;
  const p = await createProduct(seller.api, { stockQuantity: 4 });
  assert.equal(
    (await first()).contents.map((x: any) => [x.name, x.stockQuantity]),
    [['테스트 상품', 4]],
  );
  await seller.api('PATCH', `/v1/products/${p.productId}`, { body: { name: '바뀐 이름' } });
  await seller.api('PATCH', `/v1/products/${p.productId}/variants/${p.variants[0].variantId}/stock`, { body: { adjustment: -1 } });
  assert.equal(
    (await first()).contents.map((x: any) => [x.name, x.stockQuantity]),
    [['바뀐 이름', 3]],
  );
  const q = await createProduct(seller.api);
  assert.equal((await first()).totalElements, 2);
  await seller.api('DELETE', `/v1/products/${q.productId}`);
  const after = await first();
  assert.is(after.totalElements, 1);
  assert.equal(
    after.contents.map((x: any) => x.productId),
    [p.productId],
  );
});

test("tenancy: another store's product and category → 403 TENANT_MISMATCH", async () => {
  const other = await newSellerWithStore(svc, 'tenant');
  const theirs = await createProduct(other.api);
  const theirCategory = (await other.api('POST', '/v1/categories', { body: { name: 'x' } })).data;
  fails(await svc.api('GET', `/v1/products/${theirs.productId}`), 403, 'TENANT_MISMATCH');
  fails(await svc.api('PATCH', `/v1/products/${theirs.productId}`, { body: { name: 'hijack' } }), 403, 'TENANT_MISMATCH');
  fails(await svc.api('DELETE', `/v1/products/${theirs.productId}`), 403, 'TENANT_MISMATCH');
  fails(
    await svc.api('PATCH', `/v1/products/${theirs.productId}/variants/${theirs.variants[0].variantId}/stock`, { body: { adjustment: 1 } }),
    403,
    'TENANT_MISMATCH',
  );
  fails(await svc.api('GET', `/v1/categories/${theirCategory.categoryId}`), 403, 'TENANT_MISMATCH');
  fails(await svc.api('POST', '/v1/products', { body: { name: 'x', salePrice: 1000, categoryId: theirCategory.categoryId } }), 403, 'TENANT_MISMATCH');
  fails(await svc.api('GET', '/v1/products/prd_nothing'), 404, 'PRODUCT_NOT_FOUND');
  assert.is((await read(other.api, theirs.productId)).name, '테스트 상품');
});

test('delete: product gone; a product whose variant is in an order cannot be deleted', async () => {
  const p = await createProduct(svc.api);
  assert.equal((await svc.api('DELETE', `/v1/products/${p.productId}`)).data, { productId: p.productId, deleted: true });
  fails(await svc.api('GET', `/v1/products/${p.productId}`), 404, 'PRODUCT_NOT_FOUND');
});

test('agent policy (spec 01 §5.6): direct for create, name/status and stock; approval for price, full update, options, discount, delete once the store was public', async () => {
  const seller = await newSellerWithStore(svc, 'agent');
  const agent = await createAccessToken(svc, seller.token, { name: 'agent', scopes: ['product:rw', 'product:r'], agent: true });
  const as = (method: string, path: string, body?: unknown) => svc.api(method, path, { token: agent, storeId: seller.storeId, body });
  const created = await as('POST', '/v1/products', { name: '에이전트 상품', salePrice: 1000, stockQuantity: 3 });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.data.productId;
  // A store that was never public skips approval for product updates (the exemption of §5.6).
  assert.is((await as('PATCH', `/v1/products/${id}`, { salePrice: 1100 })).status, 200);
  await makeStoreWentPublic(svc, seller);
  assert.is((await as('PATCH', `/v1/products/${id}`, { name: '이름 변경', status: 'SUSPENDED' })).status, 200);
  assert.is((await as('PATCH', `/v1/products/${id}`, { salePrice: 1100 })).status, 200, 'the same price is not a change');
  assert.is((await as('PATCH', `/v1/products/${id}/variants/${created.data.variants[0].variantId}/stock`, { adjustment: 1 })).status, 200);
  const needsApproval: [string, string, unknown?][] = [
    ['PATCH', `/v1/products/${id}`, { salePrice: 2000 }],
    [
      'PATCH',
      `/v1/products/${id}`,
      {
        fulfillment: {
          type: 'SHIPPING',
          shipping: { deliveryType: 'PAID', deliveryFee: 9000, conditionalFreeAmount: null, shippingAddressId: null, returnAddressId: null },
        },
      },
    ],
    ['PUT', `/v1/products/${id}`, { name: 'x', salePrice: 1000 }],
    ['PUT', `/v1/products/${id}/options`, { options: [] }],
    ['PUT', `/v1/products/${id}/discount`, { method: 'PERCENT', value: 10, startDate: '2026-01-01', endDate: '2026-12-31' }],
    ['DELETE', `/v1/products/${id}/discount`],
    ['DELETE', `/v1/products/${id}`],
  ];
  for (const [method, path, body] of needsApproval) {
    const res = await as(method, path, body);
    assert.is(res.status, 202, `${method} ${path}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.meta.code, 'APPROVAL_REQUIRED');
  }
  const after = await read(seller.api, id);
  assert.is(after.salePrice, 1100);
  assert.is(after.name, '이름 변경');
  // The owner approves: the original request runs once, with the catalog's rules.
  const pending = await as('PATCH', `/v1/products/${id}`, { salePrice: 2500 });
  const approved = await seller.api('POST', `/v1/approval-requests/${pending.data.approvalId}/approve`);
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  assert.is((await read(seller.api, id)).salePrice, 2500);
});

test('dry run shows the changed fields and changes nothing', async () => {
  const p = await createProduct(svc.api);
  const res = await svc.api('PATCH', `/v1/products/${p.productId}`, { body: { name: '미리보기', salePrice: 10000 }, headers: { 'x-svc-dry-run': '1' } });
  assert.is(res.body.meta.code, 'DRY_RUN');
  assert.equal(res.data.preview.changes, [{ field: 'name', before: '테스트 상품', after: '미리보기' }]);
  assert.is((await read(svc.api, p.productId)).name, '테스트 상품');
});

test.run();
