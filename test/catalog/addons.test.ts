// Add-on groups and custom inputs of a product (issue 30): their shapes on create, update and read, and
// importing a saved option set (spec 01 §2.7) into a product.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';
import { createProduct, fails } from '../helpers/products.js';
import { buyerApi, buy, connectSandbox, ok } from '../helpers/checkout.js';
import { jsonOf, runCli } from '../helpers/cli.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const WRAP = { name: '선물 포장', required: false, values: [{ name: '포장함', additionalPrice: 3000 }] };
const ENGRAVING = { key: 'engraving', label: '각인 문구', placeholder: '최대 10자', maxLength: 10, required: true, type: 'TEXT', options: [] };
const COLOR_CARD = { key: 'card', label: '카드 색', placeholder: null, maxLength: 20, required: false, type: 'SELECT', options: ['빨강', '파랑'] };

test('a product carries add-on groups and custom inputs on create, update and read, for sellers and buyers', async () => {
  const product = await createProduct(svc.api, { stockQuantity: 5, addons: [WRAP], customInputs: [ENGRAVING] });
  assert.equal(product.addons, [WRAP]);
  assert.equal(product.customInputs, [ENGRAVING]);

  const patched = ok(await svc.api('PATCH', `/v1/products/${product.productId}`, { body: { customInputs: [ENGRAVING, COLOR_CARD] } }));
  assert.equal(patched.addons, [WRAP], 'a patch without addons keeps them');
  assert.equal(patched.customInputs, [ENGRAVING, COLOR_CARD]);

  const read = ok(await svc.api('GET', `/v1/products/${product.productId}`));
  assert.equal([read.addons, read.customInputs], [[WRAP], [ENGRAVING, COLOR_CARD]]);
  const buyer = ok(await buyerApi(svc, svc.storeId)('GET', `/storefront/v1/products/${product.productId}`));
  assert.equal([buyer.addons, buyer.customInputs], [[WRAP], [ENGRAVING, COLOR_CARD]]);

  const plain = await createProduct(svc.api, { stockQuantity: 1 });
  assert.equal([plain.addons, plain.customInputs], [[], []]);
});

test('bad add-ons and inputs are 400 VALIDATION_FAILED: SELECT without options, duplicate keys, a price off the 10-won unit', async () => {
  const base = { name: '검증', salePrice: 10000 };
  const select = await svc.api('POST', '/v1/products', { body: { ...base, customInputs: [{ ...COLOR_CARD, options: [] }] } });
  fails(select, 400, 'VALIDATION_FAILED');
  assert.ok(
    select.body.error.fieldErrors.some((f: any) => f.field === 'customInputs.0.options'),
    JSON.stringify(select.body),
  );
  fails(await svc.api('POST', '/v1/products', { body: { ...base, customInputs: [ENGRAVING, ENGRAVING] } }), 400, 'VALIDATION_FAILED');
  fails(await svc.api('POST', '/v1/products', { body: { ...base, addons: [WRAP, WRAP] } }), 400, 'VALIDATION_FAILED');
  fails(
    await svc.api('POST', '/v1/products', { body: { ...base, addons: [{ ...WRAP, values: [{ name: '포장', additionalPrice: 3005 }] }] } }),
    400,
    'INVALID_PRICE_UNIT',
  );
});

const SET = {
  name: '선물 세트',
  groups: [
    {
      name: '포장',
      kind: 'ADDON',
      required: true,
      values: [
        { name: '기본', additionalPrice: 0 },
        { name: '고급', additionalPrice: 2000 },
      ],
    },
    {
      name: '색상',
      kind: 'COMBINATION',
      required: true,
      values: [
        { name: '빨강', additionalPrice: 0 },
        { name: '파랑', additionalPrice: 1000 },
      ],
    },
  ],
  customInputs: [ENGRAVING],
};

test('importing a saved option set copies its groups and inputs into the product and counts it', async () => {
  const set = ok(await svc.api('POST', '/v1/saved-option-sets', { body: SET }), 201);
  const product = await createProduct(svc.api, { stockQuantity: 0, addons: [WRAP] });
  const imported = ok(await svc.api('POST', `/v1/products/${product.productId}/option-sets/${set.optionSetId}/import`));
  assert.equal(
    imported.addons.map((a: any) => a.name),
    ['선물 포장', '포장'],
  );
  assert.equal(imported.addons[1], { name: '포장', required: true, values: SET.groups[0].values });
  assert.equal(imported.options, [{ name: '색상', values: ['빨강', '파랑'] }]);
  assert.equal(
    imported.variants.map((v: any) => [v.optionValues, v.additionalAmount]),
    [
      [['빨강'], 0],
      [['파랑'], 1000],
    ],
  );
  assert.equal(imported.customInputs, [ENGRAVING]);
  assert.is(ok(await svc.api('GET', `/v1/saved-option-sets/${set.optionSetId}`)).importedProductCount, 1);

  // Importing again replaces the set's own groups and inputs instead of doubling them.
  const again = ok(await svc.api('POST', `/v1/products/${product.productId}/option-sets/${set.optionSetId}/import`));
  assert.equal(
    again.addons.map((a: any) => a.name),
    ['선물 포장', '포장'],
  );
  assert.is(again.customInputs.length, 1);

  fails(await svc.api('POST', `/v1/products/${product.productId}/option-sets/opts_missing/import`), 404, 'OPTION_SET_NOT_FOUND');
  fails(await svc.api('POST', `/v1/products/prd_missing/option-sets/${set.optionSetId}/import`), 404, 'PRODUCT_NOT_FOUND');
});

test('a product with sales takes only add-ons and inputs of a set: combination groups are refused', async () => {
  const seller = svc.api;
  await connectSandbox(seller).catch(() => undefined);
  const { productId, variants } = await createProduct(seller, { stockQuantity: 5 });
  await buy(svc, svc.storeId, { productId, optionId: variants[0].variantId });
  const set = ok(await seller('POST', '/v1/saved-option-sets', { body: SET }), 201);
  fails(await seller('POST', `/v1/products/${productId}/option-sets/${set.optionSetId}/import`), 409, 'OPTION_STRUCTURE_LOCKED');
  const addonsOnly = ok(await seller('POST', '/v1/saved-option-sets', { body: { ...SET, groups: [SET.groups[0]] } }), 201);
  const imported = ok(await seller('POST', `/v1/products/${productId}/option-sets/${addonsOnly.optionSetId}/import`));
  assert.equal(
    imported.addons.map((a: any) => a.name),
    ['포장'],
  );
});

test('svc products create takes add-on groups and custom inputs as flags; svc option-sets import imports a set', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-addons-'));
  const env = { SVC_CONFIG_DIR: join(dir, 'config'), SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId };
  try {
    const r = await runCli(
      [
        'products',
        'create',
        '--name',
        '각인 텀블러',
        '--sale-price',
        '25000',
        '--stock',
        '3',
        '--addon',
        '선물 포장=포장함:3000',
        '--addon',
        '쇼핑백*=없음,있음:500',
        '--input',
        'engraving*:각인 문구:10',
        '--input',
        'card:카드 색=빨강,파랑',
        '--json',
      ],
      env,
    );
    assert.is(r.exitCode, 0, r.stderr);
    const product = jsonOf(r);
    assert.equal(product.addons, [
      WRAP,
      {
        name: '쇼핑백',
        required: true,
        values: [
          { name: '없음', additionalPrice: 0 },
          { name: '있음', additionalPrice: 500 },
        ],
      },
    ]);
    assert.equal(product.customInputs, [
      { key: 'engraving', label: '각인 문구', placeholder: null, maxLength: 10, required: true, type: 'TEXT', options: [] },
      { key: 'card', label: '카드 색', placeholder: null, maxLength: 50, required: false, type: 'SELECT', options: ['빨강', '파랑'] },
    ]);

    const set = ok(await svc.api('POST', '/v1/saved-option-sets', { body: { name: 'CLI 세트', groups: [SET.groups[0]] } }), 201);
    const imported = await runCli(['option-sets', 'import', set.optionSetId, String(product.productNo), '--json'], env);
    assert.is(imported.exitCode, 0, imported.stderr);
    assert.equal(
      jsonOf(imported).addons.map((a: any) => a.name),
      ['선물 포장', '쇼핑백', '포장'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
