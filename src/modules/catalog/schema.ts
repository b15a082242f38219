import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export type ProductStatus = 'ON_SALE' | 'SOLD_OUT' | 'SUSPENDED' | 'ENDED';
export type InventoryMode = 'STANDARD' | 'DATED';

export interface OptionAxis {
  name: string;
  values: string[];
}

export interface Shipping {
  deliveryType: 'FREE' | 'PAID' | 'CONDITIONAL_FREE';
  deliveryFee: number;
  conditionalFreeAmount: number | null;
  shippingAddressId: string | null;
  returnAddressId: string | null;
}

/** Spec 01 §2.3; `type` may gain values, so it is stored as a plain string. */
export type Fulfillment = { type: 'SHIPPING'; shipping: Shipping } | { type: 'MANUAL' };

export interface RefundOverride {
  returnDeliveryFee?: number;
  exchangeDeliveryFee?: number;
  preShipmentDeliveryFeeRefund?: boolean;
}

export interface Discount {
  method: 'PERCENT' | 'AMOUNT';
  value: number;
  startDate: string;
  endDate: string;
}

export interface Sku {
  barcode: string | null;
  sellerCode: string | null;
  cost: number | null;
  weight: number | null;
}

/**
 * Per-store catalog counters: the `productNo` and `variantNo` sequences (from 1, never reused), and, kept
 * by triggers (migration catalog_triggers) so no write path can forget them, the product count and a
 * version that grows with every change to the store's products or variants (list-page cache key).
 */
export const catalogSequences = sqliteTable('catalog_sequences', {
  storeId: text('store_id').primaryKey(),
  productNo: integer('product_no').notNull(),
  variantNo: integer('variant_no').notNull(),
  productCount: integer('product_count').notNull().default(0),
  version: integer('version').notNull().default(0),
});

export const categories = sqliteTable(
  'categories',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    name: text('name').notNull(),
    parentId: text('parent_id'),
    flowId: text('flow_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('categories_store_parent').on(t.storeId, t.parentId)],
);

export const products = sqliteTable(
  'products',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    productNo: integer('product_no').notNull(),
    name: text('name').notNull(),
    salePrice: integer('sale_price').notNull(),
    listPrice: integer('list_price'),
    categoryId: text('category_id'),
    /** Upload ids; the first is the representative image. */
    images: text('images', { mode: 'json' }).$type<string[]>().notNull(),
    status: text('status').$type<ProductStatus>().notNull(),
    /** True when the service (not the seller) set SOLD_OUT because stock ran out; a restock puts it back on sale. */
    autoSoldOut: integer('auto_sold_out', { mode: 'boolean' }).notNull(),
    options: text('options', { mode: 'json' }).$type<OptionAxis[]>().notNull(),
    fulfillment: text('fulfillment', { mode: 'json' }).$type<Fulfillment>().notNull(),
    refundPolicy: text('refund_policy', { mode: 'json' }).$type<RefundOverride>(),
    inventoryMode: text('inventory_mode').$type<InventoryMode>().notNull(),
    flowId: text('flow_id'),
    pointEarnRateBp: integer('point_earn_rate_bp'),
    isSample: integer('is_sample', { mode: 'boolean' }).notNull(),
    discount: text('discount', { mode: 'json' }).$type<Discount>(),
    /** Extras a buyer picks on top of the variant (gift wrap +3,000원); their prices add to the item. */
    addons: text('addons', { mode: 'json' }).$type<ProductAddon[]>().notNull().default([]),
    /** Text a buyer types or picks when ordering (engraving); the order item keeps it. */
    customInputs: text('custom_inputs', { mode: 'json' }).$type<CustomInput[]>().notNull().default([]),
    /** Grows with every write; `If-Match` against it detects a fulfillment type changed meanwhile. */
    version: integer('version').notNull(),
    /** The version at which `fulfillment.type` last changed. */
    typeChangedVersion: integer('type_changed_version').notNull(),
    /** Units sold (checkout calls `recordSale`); > 0 means sales history. */
    salesCount: integer('sales_count').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    // Lists run newest first by productNo; status and category filters keep that order from their index.
    uniqueIndex('products_store_no').on(t.storeId, t.productNo),
    index('products_store_status_no').on(t.storeId, t.status, t.productNo),
    index('products_store_category_no').on(t.storeId, t.categoryId, t.productNo),
  ],
);

export const productVariants = sqliteTable(
  'product_variants',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    variantNo: integer('variant_no').notNull(),
    /** Order of the combination in the cartesian product of the axes. */
    position: integer('position').notNull(),
    optionValues: text('option_values', { mode: 'json' }).$type<string[]>().notNull(),
    additionalAmount: integer('additional_amount').notNull(),
    stockQuantity: integer('stock_quantity').notNull(),
    saleOn: integer('sale_on', { mode: 'boolean' }).notNull(),
    sku: text('sku', { mode: 'json' }).$type<Sku>(),
    /** Units of this variant in orders; > 0 forbids deleting it. */
    soldQuantity: integer('sold_quantity').notNull(),
    /** Set when PRODUCT.OUT_OF_STOCK was emitted for the current run at 0; cleared by a restock. */
    outOfStockNotified: integer('out_of_stock_notified', { mode: 'boolean' }).notNull(),
  },
  (t) => [index('product_variants_product').on(t.productId, t.position)],
);

/** Dated stock and price per variant and day (spec 01 §2.6); absent days have stock 0. */
export const productCalendar = sqliteTable(
  'product_calendar',
  {
    variantId: text('variant_id')
      .notNull()
      .references(() => productVariants.id, { onDelete: 'cascade' }),
    date: text('date').notNull(),
    storeId: text('store_id').notNull(),
    productId: text('product_id').notNull(),
    stock: integer('stock').notNull(),
    /** null: `salePrice` plus the variant's add-on. */
    price: integer('price'),
  },
  (t) => [primaryKey({ columns: [t.variantId, t.date] }), index('product_calendar_product').on(t.productId, t.date)],
);

export interface OptionSetGroup {
  name: string;
  kind: 'COMBINATION' | 'ADDON';
  required: boolean;
  values: { name: string; additionalPrice: number }[];
}

/** An add-on group of a product: an `ADDON` group of a saved option set, without its kind. */
export interface ProductAddon {
  name: string;
  required: boolean;
  values: { name: string; additionalPrice: number }[];
}

export interface CustomInput {
  label: string;
  placeholder: string | null;
  maxLength: number;
  required: boolean;
  key: string;
  type: 'TEXT' | 'TEXTAREA' | 'SELECT';
  options: string[];
}

export const savedOptionSets = sqliteTable(
  'saved_option_sets',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    name: text('name').notNull(),
    optionSort: text('option_sort').$type<'REGISTERED' | 'NAME'>().notNull(),
    groups: text('groups', { mode: 'json' }).$type<OptionSetGroup[]>().notNull(),
    customInputs: text('custom_inputs', { mode: 'json' }).$type<CustomInput[]>().notNull(),
    importedProductCount: integer('imported_product_count').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('saved_option_sets_store').on(t.storeId, t.updatedAt)],
);

/** Which products imported which saved option set: one row per pair, so `importedProductCount` counts products. */
export const optionSetImports = sqliteTable(
  'option_set_imports',
  {
    optionSetId: text('option_set_id')
      .notNull()
      .references(() => savedOptionSets.id, { onDelete: 'cascade' }),
    productId: text('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    storeId: text('store_id').notNull(),
    importedAt: integer('imported_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.optionSetId, t.productId] })],
);

/**
 * A seller's collection: a hand-picked product list or every product of a category (and below), shown to
 * buyers at `/storefront/v1/collections/{slug}/products`.
 */
export const collections = sqliteTable(
  'collections',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    productIds: text('product_ids', { mode: 'json' }).$type<string[] | null>(),
    rule: text('rule', { mode: 'json' }).$type<{ categoryId: string } | null>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('collections_store_slug').on(t.storeId, t.slug)],
);
