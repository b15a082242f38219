import type { Db } from '../../db/client.js';
import type { Module } from '../../server/module.js';
import { categoryOperations } from './category-operations.js';
import { collectionOperations } from './collection-operations.js';
import { optionSetOperations } from './option-set-operations.js';
import { optionSetImportOperation } from './option-set-import.js';
import { productOperations } from './operations.js';
import { storefrontOperations } from './storefront-operations.js';
import { seedSamples } from './sample-products.js';

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
export { catalogVersion } from './product-listing.js';
export { addonAmountOf, chooseItemOptions, NO_ITEM_OPTIONS, type AddonSelection, type ItemOptions, type ItemOptionsRequest } from './item-options.js';
