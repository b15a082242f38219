import type { Db } from '../../db/client.js';
import type { Module } from '../../server/module.js';
import type { Services } from '../../server/services.js';
import { categoryOperations } from './category-operations.js';
import { collectionOperations } from './collection-operations.js';
import { addDays, datesIn, today } from '../../kernel/dates.js';
import { optionSetOperations } from './option-set-operations.js';
import { optionSetImportOperation } from './option-set-import.js';
import { productOperations } from './operations.js';
import { productCalendar } from './schema.js';
import { variantsOf } from './product-rows.js';
import { writeProduct } from './product-writes.js';
import { storefrontOperations } from './storefront-operations.js';

/** Sample products of the dev store, one of each kind a seller meets: options, single, no-shipping, dated stay. */
async function seedSamples(services: Services, storeId: string) {
  const now = services.clock.now();
  const w = { db: services.db, now, storeId, readVersion: null };
  const create = (input: Parameters<typeof writeProduct>[3]) => writeProduct(w, 'create', null, { isSample: true, ...input });
  await create({
    name: '베이직 코튼 티셔츠',
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
  await create({ name: '세라믹 머그컵 350ml', salePrice: 12000, stockQuantity: 50 });
  await create({ name: '모바일 상품권 1만원', salePrice: 10000, stockQuantity: 100, fulfillment: { type: 'MANUAL' } });
  const stay = await create({
    name: '한옥 스테이 (1박)',
    salePrice: 120000,
    inventoryMode: 'DATED',
    fulfillment: { type: 'MANUAL' },
    options: [{ name: '객실', values: ['온돌방', '침대방'] }],
  });
  const first = today(now);
  const rows = (await variantsOf(services.db, stay.id)).flatMap((v) =>
    datesIn(first, addDays(first, 59)).map((date) => ({ variantId: v.id, date, storeId, productId: stay.id, stock: 2, price: null })),
  );
  await services.db.insert(productCalendar).values(rows).run();
}

export const catalogModule: Module = {
  name: 'catalog',
  operations: [...productOperations, ...categoryOperations, ...collectionOperations, ...optionSetOperations, optionSetImportOperation, ...storefrontOperations],
  onSeed: seedSamples,
};

declare module '../../server/module.js' {
  interface Questions {
    /** The store's flow of this id, else 404 FLOW_NOT_FOUND (a product's or category's `flowId`). */
    requireFlowOfStore(db: Db, storeId: string, flowId: string): Promise<unknown>;
  }
}

export { assertRealDate } from './dates.js';
export { buyerUnitPrice } from './prices.js';
export { findProduct, loadProduct, type ProductRow, type VariantRow, variantsOf } from './product-rows.js';
export { fulfillmentView } from './product-views.js';
export { type Fulfillment, type RefundOverride } from './schema.js';
export { priceStay, recordSale, restoreStock, type Stay } from './stock.js';
export { categoryIdsInStore, findCategory, findStoreProduct, productIdsInStore } from './product-rows.js';
export { hasSellableProduct } from './product-rows.js';
export { addonAmountOf, chooseItemOptions, NO_ITEM_OPTIONS, type AddonSelection, type ItemOptions, type ItemOptionsRequest } from './item-options.js';
