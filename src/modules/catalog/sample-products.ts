import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addDays, datesIn, today } from '../../kernel/dates.js';
import { packageRoot } from '../../paths.js';
import type { Services } from '../../server/services.js';
import { storeUploadInTransaction } from '../uploads/index.js';
import { writeProduct } from './product-writes.js';
import { productCalendar } from './schema.js';

/** A picture shipped with the package (assets/sample-products, drawn by scripts/sample-images.mjs), stored as the store's product image. */
function samplePicture(services: Services, storeId: string, now: number, name: string) {
  const bytes = readFileSync(join(packageRoot, 'assets', 'sample-products', `${name}.jpg`));
  return storeUploadInTransaction(services, services.db, now, { storeId, purpose: 'product-image', filename: `${name}.jpg`, contentType: 'image/jpeg', bytes });
}

/** Sample products of the dev store, one of each kind a seller meets: options, single, no-shipping, dated stay. */
export async function seedSamples(services: Services, storeId: string) {
  const now = services.clock.now();
  const w = { db: services.db, now, storeId, readVersion: null };
  const create = (input: Parameters<typeof writeProduct>[3]) => writeProduct(w, 'create', null, { isSample: true, ...input });
  const pictures = async (...names: string[]) => {
    const ids = [];
    for (const name of names) ids.push((await samplePicture(services, storeId, now, name)).id);
    return ids;
  };
  await create({
    name: '베이직 코튼 티셔츠',
    images: await pictures('tshirt-white', 'tshirt-black', 'tshirt-navy'),
    salePrice: 19900,
    listPrice: 25000,
    options: [
      { name: '색상', values: ['화이트', '블랙', '네이비'] },
      { name: '사이즈', values: ['S', 'M', 'L'] },
    ],
    variants: ['화이트', '블랙', '네이비'].flatMap((c) =>
      ['S', 'M', 'L'].map((s) => ({ optionValues: [c, s], stockQuantity: 20, additionalAmount: s === 'L' ? 1000 : 0 })),
    ),
  });
  await create({ name: '세라믹 머그컵 350ml', salePrice: 12000, stockQuantity: 50, images: await pictures('mug') });
  await create({ name: '모바일 상품권 1만원', salePrice: 10000, stockQuantity: 100, fulfillment: { type: 'MANUAL' }, images: await pictures('voucher') });
  const { product: stay, variants } = await create({
    name: '한옥 스테이 (1박)',
    images: await pictures('hanok'),
    salePrice: 120000,
    inventoryMode: 'DATED',
    fulfillment: { type: 'MANUAL' },
    options: [{ name: '객실', values: ['온돌방', '침대방'] }],
  });
  const first = today(now);
  const rows = variants!.flatMap((v) =>
    datesIn(first, addDays(first, 59)).map((date) => ({ variantId: v.id, date, storeId, productId: stay.id, stock: 2, price: null })),
  );
  await services.db.insert(productCalendar).values(rows).run();
}
