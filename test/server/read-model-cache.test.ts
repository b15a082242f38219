/**
 * Cached read models (the store document, product list pages) are keyed by versions that triggers grow,
 * and those version reads are skipped while the connection wrote nothing. A rolled-back write grows the
 * version and then gives its number back: the next real write reuses it. These tests make exactly that
 * happen, with a read inside the doomed transaction, and check that no later read serves what it saw.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transaction } from '../../src/db/client.js';
import { cachedPage } from '../../src/modules/catalog/product-listing.js';
import { storeDocument } from '../../src/modules/stores/service.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

/** Runs `write` in a transaction that is then rolled back; `readInside` sees the write before it goes. */
async function rolledBack(write: () => Promise<unknown>, readInside: () => Promise<void>) {
  const rollback = new Error('rollback');
  try {
    await transaction(svc.services.db, async () => {
      await write();
      await readInside();
      throw rollback;
    });
  } catch (error) {
    if (error !== rollback) throw error;
  }
}

test('store document: a rolled-back rename is never served, and the next real change is', async () => {
  const before = (await svc.api('GET', '/v1/store')).data.name;
  let seenInside = '';
  await rolledBack(
    () => svc.services.db.$client.prepare('UPDATE stores SET name = ? WHERE id = ?').run('되돌려질 이름', svc.storeId),
    async () => {
      seenInside = JSON.parse((await storeDocument(svc.services, svc.storeId)).json).name;
    },
  );
  assert.is(seenInside, '되돌려질 이름', 'inside its transaction the write is visible');
  assert.is((await svc.api('GET', '/v1/store')).data.name, before);

  const patched = await svc.api('PATCH', '/v1/store', { body: { name: '진짜 새 이름' } });
  assert.is(patched.status, 200);
  assert.is((await svc.api('GET', '/v1/store')).data.name, '진짜 새 이름');
  assert.is((await svc.api('GET', '/v1/store')).data.name, '진짜 새 이름', 'served again from the cache');
});

test('product pages: a page built inside a rolled-back write is never served after it', async () => {
  const { db } = svc.services;
  const productId = (await svc.api('GET', '/v1/products', { query: { size: 1 } })).data.contents[0].productId;
  const rename = (name: string) => db.$client.prepare('UPDATE products SET name = ? WHERE id = ?').run(name, productId);
  const page = async (content: string) => (await cachedPage(db, svc.storeId, 'read-model-cache test', async () => content)).json;

  assert.is(await page('before'), '"before"');
  await rolledBack(
    () => rename('되돌려질 상품'),
    async () => assert.is(await page('inside'), '"inside"', 'inside, the write shows'),
  );
  assert.is(await page('unused'), '"before"', 'the version went back, and with it the page');
  // The committed rename takes the version number the rolled-back one had.
  await rename('진짜 상품');
  assert.is(await page('after'), '"after"');
  const listed = (await svc.api('GET', '/v1/products', { query: { size: 1 } })).data.contents[0];
  assert.is(listed.productId, productId);
  assert.is(listed.name, '진짜 상품');
});

test.run();
