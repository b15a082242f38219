/**
 * `svc products …` and `svc categories …` (compiled CLI, `npm run build` first) against an in-process
 * service, as a script would run them: no TTY, CI=1, token and store from the environment.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonOf, runCli } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let dir: string;
test.before(async () => {
  svc = await startTestService();
  dir = mkdtempSync(join(tmpdir(), 'svc-cli-catalog-'));
});
test.after(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

const svcCli = (...args: string[]) => svcCliWithin(30_000, ...args);
/** `hangAfterMs` only stops a hung run: 1,000 rows on a busy machine's PostgreSQL may take well over runCli's default. */
const svcCliWithin = (hangAfterMs: number, ...args: string[]) =>
  runCli(args, { SVC_CONFIG_DIR: join(dir, 'config'), SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId }, hangAfterMs);
const json = jsonOf;

test('products create / get / update / stock / status / discount / delete with --json', async () => {
  const created = await svcCli(
    'products',
    'create',
    '--name',
    'CLI 티셔츠',
    '--sale-price',
    '19900',
    '--option',
    '색상=화이트,블랙',
    '--option',
    '사이즈=S,M',
    '--json',
  );
  assert.is(created.exitCode, 0, created.stderr);
  const p = json(created);
  assert.is(p.variants.length, 4);
  const file = join(dir, 'patch.json');
  writeFileSync(file, JSON.stringify({ listPrice: 30000, variants: [{ optionValues: ['블랙', 'M'], stockQuantity: 4 }] }));
  const updated = json(await svcCli('products', 'update', p.productId, '--data', `@${file}`, '--name', '새 이름', '--json'));
  assert.is(updated.name, '새 이름');
  assert.is(updated.listPrice, 30000);
  const black = updated.variants.find((v: any) => v.optionValues.join() === '블랙,M');
  assert.is(json(await svcCli('products', 'stock', p.productId, '--variant', black.variantId, '--adjust', '-1', '--json')).stockQuantity, 3);
  const multi = await svcCli('products', 'stock', p.productId, '--set', '1');
  assert.is(multi.exitCode, 2, 'a product with several variants needs --variant');
  const discount = json(
    await svcCli('products', 'discount', p.productId, '--method', 'PERCENT', '--value', '10', '--start', '2026-01-01', '--end', '2099-12-31', '--json'),
  );
  assert.is(discount.discountedPrice, 17910);
  const status = json(await svcCli('products', 'status', '--set', 'SUSPENDED', p.productId, '--json'));
  assert.equal(status.succeeded, [p.productId]);
  const got = json(await svcCli('products', 'get', String(p.productNo), '--json'));
  assert.is(got.productId, p.productId, 'a product number works where an id does');
  assert.is(got.status, 'SUSPENDED');
  const human = await svcCli('products', 'get', p.productId);
  assert.ok(human.stdout.includes('새 이름') && human.stdout.includes('블랙 / M'), human.stdout);
  const list = json(await svcCli('products', 'list', '--keyword', '새 이름', '--json'));
  assert.equal(
    list.contents.map((x: any) => x.productId),
    [p.productId],
  );
  assert.is(json(await svcCli('products', 'delete', p.productId, '--json')).deleted, true);
});

test('API errors: exit 1 with the error object; usage errors: exit 2', async () => {
  const bad = await svcCli('products', 'create', '--name', 'x', '--sale-price', '15', '--json');
  assert.is(bad.exitCode, 1);
  assert.is(json(bad).code, 'INVALID_PRICE_UNIT');
  const human = await svcCli('products', 'create', '--name', 'x', '--sale-price', '15');
  assert.ok(human.stderr.includes('INVALID_PRICE_UNIT'));
  assert.is((await svcCli('products', 'create', '--name', 'x')).exitCode, 2);
  assert.is((await svcCli('products', 'stock', 'prd_x', '--set', '1', '--adjust', '1')).exitCode, 2);
});

test('categories create / list / update / delete', async () => {
  const parent = json(await svcCli('categories', 'create', '--name', '의류', '--json'));
  const child = json(await svcCli('categories', 'create', '--name', '상의', '--parent', parent.categoryId, '--json'));
  const tree = await svcCli('categories', 'list');
  assert.ok(tree.stdout.includes(`  상의  ${child.categoryId}`), tree.stdout);
  assert.is(json(await svcCli('categories', 'update', child.categoryId, '--name', '티셔츠', '--json')).name, '티셔츠');
  const refused = await svcCli('categories', 'delete', parent.categoryId, '--json');
  assert.is(refused.exitCode, 1);
  assert.is(json(refused).code, 'CATEGORY_IN_USE');
});

test('calendar write and read through the CLI', async () => {
  const p = json(await svcCli('products', 'create', '--data', JSON.stringify({ name: '스테이', salePrice: 90000, inventoryMode: 'DATED' }), '--json'));
  const write = json(await svcCli('products', 'calendar', p.productId, '--from', '2099-01-01', '--to', '2099-01-10', '--stock', '2', '--json'));
  assert.is(write.updatedDays, 10);
  const read = json(await svcCli('products', 'calendar', p.productId, '--from', '2099-01-01', '--to', '2099-01-02', '--json'));
  assert.equal(
    read.variants[0].days.map((d: any) => d.stock),
    [2, 2],
  );
});

// How fast (the catalog's target for 1,000 rows) is measured by test/bench/catalog.ts, not here.
test('import: 1,000 CSV rows, a result per row; the same file again creates nothing twice', async () => {
  const rows = ['name,salePrice,listPrice,stockQuantity,options,status'];
  for (let i = 1; i <= 1000; i++)
    rows.push(
      i % 250 === 0 ? `불량 ${i},1005,,,,` : `가져온 상품 ${i},${1000 + i * 10},,${i % 3 === 0 ? ',"색상=빨강,파랑;사이즈=S,M"' : `${i % 7},`},ON_SALE`,
    );
  const file = join(dir, 'products.csv');
  writeFileSync(file, rows.join('\n'));
  const before = (await svc.api('GET', '/v1/products')).data.totalElements;
  const first = await svcCliWithin(180_000, 'products', 'import', file, '--json');
  assert.is(first.exitCode, 1, 'four rows fail');
  const results = json(first);
  assert.is(results.length, 1000);
  assert.equal(
    results.filter((r: any) => !r.ok).map((r: any) => [r.row, r.code]),
    [
      [251, 'INVALID_PRICE_UNIT'],
      [501, 'INVALID_PRICE_UNIT'],
      [751, 'INVALID_PRICE_UNIT'],
      [1001, 'INVALID_PRICE_UNIT'],
    ],
  );
  assert.is((await svc.api('GET', '/v1/products')).data.totalElements, before + 996);
  const again = json(await svcCliWithin(180_000, 'products', 'import', file, '--json'));
  assert.equal(
    again.filter((r: any) => r.ok).map((r: any) => r.productId),
    results.filter((r: any) => r.ok).map((r: any) => r.productId),
  );
  assert.is((await svc.api('GET', '/v1/products')).data.totalElements, before + 996);
  const small = join(dir, 'small.csv');
  writeFileSync(small, 'name,salePrice\n하나,1000\n둘,1001\n');
  const human = await svcCli('products', 'import', small);
  assert.is(human.exitCode, 1);
  assert.ok(human.stdout.includes('created') && human.stdout.includes('INVALID_PRICE_UNIT'), human.stdout);
  const unknown = join(dir, 'bad.csv');
  writeFileSync(unknown, 'name,salePrice,colour\nx,1000,red\n');
  assert.is((await svcCli('products', 'import', unknown)).exitCode, 2);
});

test('option-sets create / list / get / update / delete', async () => {
  const file = join(dir, 'option-set.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: '사이즈',
      groups: [
        {
          name: '사이즈',
          kind: 'COMBINATION',
          required: true,
          values: [
            { name: 'S', additionalPrice: 0 },
            { name: 'L', additionalPrice: 1000 },
          ],
        },
        { name: '포장', kind: 'ADDON', required: false, values: [{ name: '선물 포장', additionalPrice: 2000 }] },
      ],
      customInputs: [{ label: '각인 문구', placeholder: null, maxLength: 20, required: false, key: 'engraving', type: 'TEXT', options: [] }],
    }),
  );
  const created = json(await svcCli('option-sets', 'create', '--data', `@${file}`, '--name', 'CLI 사이즈', '--json'));
  assert.is(created.name, 'CLI 사이즈', '--name overrides the file');
  assert.is(created.groups.length, 2);
  assert.is(created.optionSort, 'REGISTERED');

  const addons = json(await svcCli('option-sets', 'list', '--composition', 'addon', '--keyword', 'cli', '--json'));
  assert.equal(
    addons.contents.map((o: any) => o.optionSetId),
    [created.optionSetId],
  );
  const human = await svcCli('option-sets', 'get', created.optionSetId);
  assert.is(human.exitCode, 0, human.stderr);
  assert.ok(human.stdout.includes('L(+1,000원)') && human.stdout.includes('각인 문구 [engraving, TEXT]'), human.stdout);

  const replaced = json(await svcCli('option-sets', 'update', created.optionSetId, '--data', JSON.stringify({ name: '색상', groups: [] }), '--json'));
  assert.equal([replaced.name, replaced.groups, replaced.customInputs], ['색상', [], []], 'a replace drops what it leaves out');

  const invalid = await svcCli('option-sets', 'create', '--data', JSON.stringify({ name: 'x', groups: [], extra: 1 }), '--json');
  assert.is(invalid.exitCode, 1);
  assert.is(json(invalid).code, 'VALIDATION_FAILED');
  assert.is((await svcCli('option-sets', 'create', '--name', 'no data')).exitCode, 2, '--data is required');

  assert.is(json(await svcCli('option-sets', 'delete', created.optionSetId, '--json')).deleted, true);
  const gone = await svcCli('option-sets', 'get', created.optionSetId, '--json');
  assert.is(gone.exitCode, 1);
  assert.is(json(gone).code, 'OPTION_SET_NOT_FOUND');
});

test.run();
