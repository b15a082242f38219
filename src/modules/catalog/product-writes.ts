import { and, asc, count, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor, cacheVersion } from '../../db/prepared.js';
import { fail, validationFailed, type FieldError } from '../../server/errors.js';
import { RawJson } from '../../server/envelope.js';
import { calendarDate, instant, won } from '../../server/responses.js';
import { defineMessages } from '../../server/messages.js';
import type { StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { storeSettings } from '../stores/service.js';
import type { StoreSettings } from '../stores/settings.js';
import { requireProductImages, uploadUrl } from '../uploads/service.js';
import { today } from './dates.js';
import { inventoryMode, productStatus, type FulfillmentInput, type ProductInput, type ProductListQuery, type VariantSettings } from './inputs.js';
import {
  catalogSequences, categories, products, productVariants,
  type Discount, type Fulfillment, type OptionAxis, type RefundOverride,
} from './schema.js';
import { afterStockChange } from './stock.js';
import { requireFlowId } from '../flows/service.js';

defineMessages({
  PRODUCT_NOT_FOUND: '상품을 찾을 수 없습니다.',
  VARIANT_NOT_FOUND: '상품의 옵션 조합을 찾을 수 없습니다.',
  CATEGORY_NOT_FOUND: '카테고리를 찾을 수 없습니다.',
  INVALID_PRICE_UNIT: '가격은 10원 이상, 10원 단위여야 합니다.',
  CATEGORY_NOT_LEAF: '하위 카테고리가 있는 카테고리에는 지정할 수 없습니다. 가장 아래 카테고리를 고르세요.',
  CATEGORY_IN_USE: '상품이나 하위 카테고리, 주문 흐름이 연결된 카테고리입니다.',
  REFUND_POLICY_NOT_APPLICABLE: '배송 없는(MANUAL) 상품에는 반품·교환 배송비를 지정할 수 없습니다.',
  FULFILLMENT_TYPE_LOCKED: '판매 이력이 있는 상품은 상품 유형(fulfillment.type)을 바꿀 수 없습니다.',
  PRODUCT_CHANGED: '다른 요청이 먼저 상품 유형을 바꿨습니다. 상품을 다시 조회한 뒤 시도하세요.',
  INVENTORY_MODE_LOCKED: '판매 이력이 있는 상품은 재고 방식(inventoryMode)을 바꿀 수 없습니다.',
  INVENTORY_MODE_NOT_DATED: '날짜별 재고(DATED) 상품이 아닙니다.',
  INVENTORY_MODE_DATED: '날짜별 재고(DATED) 상품의 재고는 캘린더로 관리합니다.',
  VARIANT_IN_ORDER: '주문에 포함된 옵션 조합은 삭제할 수 없습니다. 대신 판매를 끄세요.',
  DISCOUNT_NOT_FOUND: '할인이 없습니다.',
  INSUFFICIENT_STOCK: '재고가 부족합니다. 재고는 음수가 될 수 없습니다.',
  STOCK_LIMIT_EXCEEDED: '재고는 최대 1,000,000,000개까지 둘 수 있습니다.',
  STAY_REQUIRED: '날짜별 재고 상품에는 숙박 일정(stay)이 필요합니다.',
  STAY_NOT_APPLICABLE: '날짜별 재고 상품이 아니면 숙박 일정(stay)을 보낼 수 없습니다.',
  STAY_INVALID: '숙박 일정이 올바르지 않습니다. 체크아웃은 체크인 다음 날부터 최대 30박까지입니다.',
  DATES_UNAVAILABLE: '재고가 없는 날짜가 포함되어 있습니다.',
  OPTION_SET_NOT_FOUND: '저장된 옵션 세트를 찾을 수 없습니다.',
  OPTION_SET_LIMIT_EXCEEDED: '저장된 옵션 세트는 상점당 최대 200개입니다.',
});

export type ProductRow = typeof products.$inferSelect;
export type VariantRow = typeof productVariants.$inferSelect;

/** A prepared insert of every column, each bound by its own name. */
const insertAll = (db: Db, table: typeof products | typeof productVariants) =>
  db.insert(table).values(Object.fromEntries(Object.keys(getTableColumns(table)).map((c) => [c, sql.placeholder(c)])) as never).prepare();

const q = preparedFor((db) => ({
  productById: db.select().from(products).where(eq(products.id, sql.placeholder('id'))).prepare(),
  productByNo: db.select().from(products).where(and(eq(products.storeId, sql.placeholder('storeId')), eq(products.productNo, sql.placeholder('productNo')))).prepare(),
  variantsOf: db.select().from(productVariants).where(eq(productVariants.productId, sql.placeholder('productId'))).orderBy(asc(productVariants.position)).prepare(),
  // One query for a whole page: the ids arrive as one JSON array parameter.
  variantsOfMany: db.select().from(productVariants)
    .where(sql`${productVariants.productId} in (select value from json_each(${sql.placeholder('ids')}))`)
    .orderBy(asc(productVariants.productId), asc(productVariants.position)).prepare(),
  page: db.select().from(products).where(eq(products.storeId, sql.placeholder('storeId')))
    .orderBy(desc(products.productNo)).limit(sql.placeholder('limit')).offset(sql.placeholder('offset')).prepare(),
  productCount: db.select({ productCount: catalogSequences.productCount }).from(catalogSequences)
    .where(eq(catalogSequences.storeId, sql.placeholder('storeId'))).prepare(),
  // Structures of up to 500 combinations: one prepared statement per row beats building a 6,000-parameter query.
  insertProduct: insertAll(db, products),
  insertVariant: insertAll(db, productVariants),
  updateVariant: db.update(productVariants)
    .set({ position: sql.placeholder('position'), additionalAmount: sql.placeholder('additionalAmount'), stockQuantity: sql.placeholder('stockQuantity'), saleOn: sql.placeholder('saleOn'), sku: sql.placeholder('sku') } as never)
    .where(eq(productVariants.id, sql.placeholder('id'))).prepare(),
  categoryById: db.select().from(categories).where(eq(categories.id, sql.placeholder('id'))).prepare(),
  childOf: db.select({ id: categories.id }).from(categories).where(eq(categories.parentId, sql.placeholder('id'))).limit(1).prepare(),
  allocate: db.insert(catalogSequences)
    .values({ storeId: sql.placeholder('storeId'), productNo: sql.placeholder('products'), variantNo: sql.placeholder('variants') })
    .onConflictDoUpdate({
      target: catalogSequences.storeId,
      set: {
        productNo: sql`${catalogSequences.productNo} + excluded.product_no`,
        variantNo: sql`${catalogSequences.variantNo} + excluded.variant_no`,
      },
    })
    .returning({ productNo: catalogSequences.productNo, variantNo: catalogSequences.variantNo })
    .prepare(),
}));

export const findProduct = (db: Db, id: string) => q(db).productById.get({ id });
export const variantsOf = (db: Db, productId: string) => q(db).variantsOf.all({ productId });
export const findProductByNo = (db: Db, storeId: string, productNo: number) => q(db).productByNo.get({ storeId, productNo });

/** A product of the request's store: 404 PRODUCT_NOT_FOUND, or 403 TENANT_MISMATCH for another store's. */
export const loadProduct = async (db: Db, storeId: string, productId: string) => requireOwned(await findProduct(db, productId), storeId, 'PRODUCT_NOT_FOUND');

export async function loadVariant(db: Db, product: ProductRow, variantId: string): Promise<VariantRow> {
  const variant = (await variantsOf(db, product.id)).find((v) => v.id === variantId);
  if (!variant) throw fail(404, 'VARIANT_NOT_FOUND', { productId: product.id, variantId });
  return variant;
}

export const loadCategory = async (db: Db, storeId: string, categoryId: string) => requireOwned(await q(db).categoryById.get({ id: categoryId }), storeId, 'CATEGORY_NOT_FOUND');
export const hasChildCategory = async (db: Db, categoryId: string) => (await q(db).childOf.get({ id: categoryId })) !== undefined;

/** Sales history (spec 01 §2.2 `fulfillmentTypeLocked`, §2.6 `INVENTORY_MODE_LOCKED`): checkout records sales with `recordSale`. */
export async function hasSalesHistory(db: Db, storeId: string, productId: string): Promise<boolean> {
  const product = await findProduct(db, productId);
  return !!product && product.storeId === storeId && product.salesCount > 0;
}

/** The variants among `variantIds` that some order holds; those cannot be deleted (spec 01 §2.2). */
export async function variantsInOrders(db: Db, storeId: string, variantIds: string[]): Promise<string[]> {
  if (variantIds.length === 0) return [];
  return (await db.select({ id: productVariants.id }).from(productVariants)
      .where(and(eq(productVariants.storeId, storeId), inArray(productVariants.id, variantIds), sql`${productVariants.soldQuantity} > 0`))
      .all()).map((v) => v.id);
}

/** Reserves `products` product numbers and `variants` variant numbers of the store; returns the first of each. */
async function allocateNumbers(db: Db, storeId: string, products: number, variants: number) {
  const last = (await q(db).allocate.get({ storeId, products, variants }))!;
  return { productNo: last.productNo - products + 1, variantNo: last.variantNo - variants + 1 };
}

/** Prices: at least 10 won and a multiple of 10 (spec 01 §2.2). Add-ons may be negative but keep the unit. */
export function assertPriceUnit(field: string, value: number, { addOn = false } = {}) {
  if (value % 10 !== 0 || (!addOn && value < 10)) throw fail(400, 'INVALID_PRICE_UNIT', { field, value, minimum: addOn ? null : 10, unit: 10 });
}

/** Every combination of the axes' values, in axis order; one empty combination for a product without options. */
export function combinations(axes: OptionAxis[]): string[][] {
  return axes.reduce<string[][]>((acc, axis) => acc.flatMap((prefix) => axis.values.map((v) => [...prefix, v])), [[]]);
}

const comboKey = (values: string[]) => JSON.stringify(values);

/** Discount price on `day`, when the discount runs then; the basis is always `salePrice` (spec 01 §2.5). */
export function discountedPrice(salePrice: number, discount: Discount) {
  const off = discount.method === 'PERCENT' ? Math.ceil((salePrice * discount.value) / 100 / 10) * 10 : discount.value;
  return Math.max(0, salePrice - off);
}
export const discountActive = (discount: Discount | null, day: string): discount is Discount =>
  !!discount && discount.startDate <= day && day <= discount.endDate;

/** What a buyer pays for one unit of a variant now, stays aside: discounted `salePrice` inside the period, plus the add-on. */
export function buyerUnitPrice(product: ProductRow, variant: VariantRow, now: number) {
  const base = discountActive(product.discount, today(now)) ? discountedPrice(product.salePrice, product.discount) : product.salePrice;
  return base + variant.additionalAmount;
}

export const discountView = z.object({
  method: z.enum(['PERCENT', 'AMOUNT']),
  value: z.number().int().describe('Percent off (PERCENT, 1–99) or won off (AMOUNT)'),
  startDate: calendarDate,
  endDate: calendarDate.describe('Last day of the discount, inclusive'),
  discountedPrice: won.describe('salePrice after the discount'),
  active: z.boolean().describe('Whether the discount runs today (Korean date)'),
});

export const presentDiscount = (product: ProductRow, now: number): z.output<typeof discountView> | null =>
  product.discount
    ? { ...product.discount, discountedPrice: discountedPrice(product.salePrice, product.discount), active: discountActive(product.discount, today(now)) }
    : null;

const optionAxisView = z.object({ name: z.string(), values: z.array(z.string()) });
const shippingView = z.object({
  deliveryType: z.enum(['FREE', 'PAID', 'CONDITIONAL_FREE']),
  deliveryFee: won,
  conditionalFreeAmount: won.nullable().describe('Order amount from which shipping is free (CONDITIONAL_FREE)'),
  shippingAddressId: z.string().nullable().describe('null: the store default address'),
  returnAddressId: z.string().nullable().describe('null: the store default address'),
});
/** `fulfillment` as stored (spec 01 §2.3); readers must tolerate types added later. */
export const fulfillmentView = z.discriminatedUnion('type', [
  z.object({ type: z.literal('SHIPPING'), shipping: shippingView }),
  z.object({ type: z.literal('MANUAL') }),
]);
const skuView = z.object({ barcode: z.string().nullable(), sellerCode: z.string().nullable(), cost: won.nullable(), weight: z.number().int().nullable() });
/** Only the items the product overrides; the others follow the store default (spec 01 §2.4 rule 4). */
const refundOverrideView = z.object({ returnDeliveryFee: won.optional(), exchangeDeliveryFee: won.optional(), preShipmentDeliveryFeeRefund: z.boolean().optional() });

export const productView = z.object({
  productId: z.string(),
  productNo: z.number().int().describe('Per-store sequence from 1'),
  name: z.string(),
  salePrice: won,
  listPrice: won.nullable().describe('Display-only comparison price (originalPrice for buyers)'),
  categoryId: z.string().nullable(),
  images: z.array(z.string()).describe('Upload ids; the first is the representative image'),
  imageUrls: z.array(z.url()),
  status: productStatus,
  stockQuantity: z.number().int().describe('Sum of the variants\' stock (DATED products keep stock in the calendar)'),
  options: z.array(optionAxisView),
  variants: z.array(z.object({
    variantId: z.string().describe('= optionId in buyer APIs and orders'),
    variantNo: z.number().int(),
    optionValues: z.array(z.string()).describe('One value per option axis, in axis order'),
    additionalAmount: won.describe('Won added to salePrice; may be negative'),
    stockQuantity: z.number().int(),
    saleOn: z.boolean(),
    sku: skuView.nullable(),
  })),
  fulfillment: fulfillmentView,
  fulfillmentTypeLocked: z.boolean().describe('True once the product has sales history: fulfillment.type can no longer change'),
  refundPolicy: refundOverrideView.nullable().describe('Items overriding the store refund policy; null when none'),
  inventoryMode,
  flowId: z.string().nullable(),
  pointEarnRateBp: z.number().int().nullable().describe('Point earn rate in basis points; null: the store default'),
  isSample: z.boolean(),
  discount: discountView.nullable(),
  version: z.number().int().describe('Grows with every write; the ETag, sent back as If-Match'),
  createdAt: instant,
  updatedAt: instant,
});

/** The seller's view (spec 01 §2.2; names of issue 3). */
export function presentProduct(origin: string, product: ProductRow, variants: VariantRow[], now: number): z.output<typeof productView> {
  return {
    productId: product.id,
    productNo: product.productNo,
    name: product.name,
    salePrice: product.salePrice,
    listPrice: product.listPrice,
    categoryId: product.categoryId,
    images: product.images,
    imageUrls: product.images.map((id) => uploadUrl(origin, id)),
    status: product.status,
    stockQuantity: variants.reduce((n, v) => n + v.stockQuantity, 0),
    options: product.options,
    variants: variants.map((v) => ({
      variantId: v.id,
      variantNo: v.variantNo,
      optionValues: v.optionValues,
      additionalAmount: v.additionalAmount,
      stockQuantity: v.stockQuantity,
      saleOn: v.saleOn,
      sku: v.sku,
    })),
    fulfillment: product.fulfillment,
    fulfillmentTypeLocked: product.salesCount > 0,
    refundPolicy: product.refundPolicy,
    inventoryMode: product.inventoryMode,
    flowId: product.flowId,
    pointEarnRateBp: product.pointEarnRateBp,
    isSample: product.isSample,
    discount: presentDiscount(product, now),
    version: product.version,
    createdAt: isoAt(product.createdAt),
    updatedAt: isoAt(product.updatedAt),
  };
}

export const buyerProductView = z.object({
  productId: z.string(),
  productNo: z.number().int(),
  name: z.string(),
  salePrice: won,
  originalPrice: won.nullable().describe('The list price, for comparison only'),
  price: won.describe('What one unit costs now: the discounted salePrice during the discount, else salePrice'),
  discount: discountView.nullable(),
  categoryId: z.string().nullable(),
  images: z.array(z.string()),
  imageUrls: z.array(z.url()),
  options: z.array(optionAxisView),
  variants: z.array(z.object({
    variantId: z.string(),
    optionId: z.string().describe('= variantId'),
    variantNo: z.number().int(),
    optionValues: z.array(z.string()),
    additionalAmount: won,
    price: won.describe('price plus the additional amount'),
    soldOut: z.boolean().describe('Always false for DATED products: see the calendar'),
  })).describe('Variants on sale only'),
  fulfillment: z.discriminatedUnion('type', [
    z.object({ type: z.literal('SHIPPING'), shipping: shippingView.pick({ deliveryType: true, deliveryFee: true, conditionalFreeAmount: true }) }),
    z.object({ type: z.literal('MANUAL') }),
  ]),
  inventoryMode,
  pointEarnRateBp: z.number().int().nullable(),
});

/** The buyer's view: no stock counts, list price as `originalPrice`, the price to pay now, only variants on sale. */
export function presentBuyerProduct(origin: string, product: ProductRow, variants: VariantRow[], now: number): z.output<typeof buyerProductView> {
  const dated = product.inventoryMode === 'DATED';
  return {
    productId: product.id,
    productNo: product.productNo,
    name: product.name,
    salePrice: product.salePrice,
    originalPrice: product.listPrice,
    price: discountActive(product.discount, today(now)) ? discountedPrice(product.salePrice, product.discount) : product.salePrice,
    discount: presentDiscount(product, now),
    categoryId: product.categoryId,
    images: product.images,
    imageUrls: product.images.map((id) => uploadUrl(origin, id)),
    options: product.options,
    variants: variants.filter((v) => v.saleOn).map((v) => ({
      variantId: v.id,
      optionId: v.id,
      variantNo: v.variantNo,
      optionValues: v.optionValues,
      additionalAmount: v.additionalAmount,
      price: buyerUnitPrice(product, v, now),
      soldOut: dated ? false : v.stockQuantity === 0,
    })),
    fulfillment: product.fulfillment.type === 'SHIPPING'
      ? { type: 'SHIPPING', shipping: { deliveryType: product.fulfillment.shipping.deliveryType, deliveryFee: product.fulfillment.shipping.deliveryFee, conditionalFreeAmount: product.fulfillment.shipping.conditionalFreeAmount } }
      : product.fulfillment,
    inventoryMode: product.inventoryMode,
    pointEarnRateBp: product.pointEarnRateBp,
  };
}

/** Variants of many products in one query, grouped by product. */
export async function variantsByProduct(db: Db, productIds: string[]) {
  const grouped = new Map<string, VariantRow[]>(productIds.map((id) => [id, []]));
  if (productIds.length) for (const v of await q(db).variantsOfMany.all({ ids: JSON.stringify(productIds) })) grouped.get(v.productId)!.push(v);
  return grouped;
}

/** `GET /products`: the unfiltered page (the hot path) uses prepared statements; filters build a query. */
export function listProducts(db: Db, storeId: string, query: ProductListQuery) {
  const offset = (query.page - 1) * query.size;
  const filters: SQL[] = [];
  if (query.productNo !== undefined) filters.push(eq(products.productNo, query.productNo));
  if (query.keyword) filters.push(sql`${products.name} like ${`%${query.keyword.replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`);
  if (query.status) filters.push(inArray(products.status, query.status));
  if (query.categoryId) filters.push(eq(products.categoryId, query.categoryId));
  if (query.inventoryMode) filters.push(eq(products.inventoryMode, query.inventoryMode));
  return pageOf(db, storeId, filters, query.page, query.size, offset);
}

export async function pageOf(db: Db, storeId: string, filters: SQL[], page: number, size: number, offset = (page - 1) * size) {
  let rows: ProductRow[];
  let total: number;
  if (filters.length === 0) {
    rows = await q(db).page.all({ storeId, limit: size, offset });
    total = (await q(db).productCount.get({ storeId }))?.productCount ?? 0;
  } else {
    const where = and(eq(products.storeId, storeId), ...filters);
    rows = await db.select().from(products).where(where).orderBy(desc(products.productNo)).limit(size).offset(offset).all();
    total = (await db.select({ n: count() }).from(products).where(where).get())!.n;
  }
  return { rows, variants: await variantsByProduct(db, rows.map((r) => r.id)), page, size, total };
}

const catalogVersion = cacheVersion('SELECT version FROM catalog_sequences WHERE store_id = ?');

/** The cache holds at most this many characters of pages (about twice as many bytes with their encoding). */
const MAX_CACHED_CHARS = 16 * 1024 * 1024;
const pageCaches = new WeakMap<Db, { pages: Map<string, RawJson>; chars: number }>();

/**
 * List pages, serialized once per catalog version of the store (a counter the database's triggers grow on
 * every product or variant change, whoever writes): a repeated read costs one primary-key lookup, or none
 * while nothing was written.
 * `key` must hold everything else the page depends on (query, today's date for discounts). LRU, bounded by size.
 */
export async function cachedPage(db: Db, storeId: string, key: string, build: () => Promise<unknown>): Promise<RawJson> {
  const version = await catalogVersion(db, storeId);
  if (version === null) return new RawJson(JSON.stringify(await build()));
  let cache = pageCaches.get(db);
  if (!cache) pageCaches.set(db, (cache = { pages: new Map(), chars: 0 }));
  const full = `${storeId} ${version} ${key}`;
  let page = cache.pages.get(full);
  if (page === undefined) {
    page = new RawJson(JSON.stringify(await build()));
    // SQLite has one connection: a build that ends inside another request's transaction may have read its rows.
    if (db.$client.inTransaction) return page;
    // A concurrent request may have cached the same page while this one built it.
    const raced = cache.pages.get(full);
    if (raced) {
      cache.pages.delete(full);
      cache.chars -= raced.json.length;
    }
    cache.chars += page.json.length;
    for (const [oldKey, old] of cache.pages) {
      if (cache.chars <= MAX_CACHED_CHARS) break;
      cache.pages.delete(oldKey);
      cache.chars -= old.json.length;
    }
  } else {
    cache.pages.delete(full);
  }
  cache.pages.set(full, page);
  return page;
}

// ---------------------------------------------------------------------------------------------------
// Writes


/** Store defaults snapshotted into a new product (spec 01 §2.3 rule 1). */
function resolveNewFulfillment(settings: StoreSettings, input: FulfillmentInput | undefined): Fulfillment {
  if (input?.type === 'MANUAL') return { type: 'MANUAL' };
  const given = input?.shipping ?? {};
  const deliveryType = given.deliveryType ?? 'PAID';
  return {
    type: 'SHIPPING',
    shipping: {
      deliveryType,
      deliveryFee: given.deliveryFee ?? (deliveryType === 'FREE' ? 0 : settings.shippingPolicy.deliveryFee),
      conditionalFreeAmount: given.conditionalFreeAmount ?? (deliveryType === 'CONDITIONAL_FREE' ? settings.shippingPolicy.conditionalFreeAmount : null),
      shippingAddressId: given.shippingAddressId === undefined ? settings.shippingPolicy.shippingAddressId : given.shippingAddressId,
      returnAddressId: given.returnAddressId === undefined ? settings.shippingPolicy.returnAddressId : given.returnAddressId,
    },
  };
}

/** Only given items override (rule 1); a read shows only those, or null (rule 4). */
function normalizeRefund(input: { [K in keyof RefundOverride]?: RefundOverride[K] | null } | null | undefined): RefundOverride | null {
  if (!input) return null;
  const kept = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null && v !== undefined));
  return Object.keys(kept).length ? kept : null;
}

const withoutFeeItems = (policy: RefundOverride | null) => {
  if (!policy) return null;
  const { returnDeliveryFee: _r, exchangeDeliveryFee: _e, ...rest } = policy;
  return normalizeRefund(rest);
};

/** The version a client read, from `If-Match: "3"` (ETag of the product read); null when not sent. */
export function ifMatchVersion(ctx: StoreCtx): number | null {
  const header = ctx.event.req.headers.get('if-match');
  if (header === null) return null;
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(header.trim());
  if (!match) throw validationFailed([{ field: 'If-Match', code: 'INVALID_FORMAT', message: 'If-Match는 상품 조회 응답의 ETag 값이어야 합니다.' }]);
  return Number(match[1]);
}

export type WriteMode = 'create' | 'replace' | 'patch';

/** What a product write needs of its request; the seed builds one without a request. */
export interface WriteCtx {
  db: Db;
  now: number;
  storeId: string;
  /** The version the client read (`If-Match`), when it sent one. */
  readVersion: number | null;
}

export const writeCtx = (ctx: StoreCtx): WriteCtx => ({ db: ctx.db, now: ctx.now, storeId: ctx.store.id, readVersion: ifMatchVersion(ctx) });

/**
 * Creation, full replacement and partial update of a product share these rules (spec 01 §2.2–2.4, 2.6);
 * they differ only in what an omitted field means.
 */
export async function writeProduct(ctx: WriteCtx, mode: WriteMode, existing: ProductRow | null, input: ProductInput): Promise<ProductRow> {
  const { db, now, storeId } = ctx;
  const fresh = mode !== 'patch';

  if (input.salePrice !== undefined) assertPriceUnit('salePrice', input.salePrice);
  input.variants?.forEach((v, i) => v.additionalAmount !== undefined && assertPriceUnit(`variants.${i}.additionalAmount`, v.additionalAmount, { addOn: true }));
  if (input.images) await requireProductImages(db, storeId, input.images);
  await requireFlowId(db, storeId, input.flowId);
  if (input.categoryId) {
    await loadCategory(db, storeId, input.categoryId);
    if (await hasChildCategory(db, input.categoryId)) throw fail(400, 'CATEGORY_NOT_LEAF', { categoryId: input.categoryId });
  }

  const history = existing ? existing.salesCount > 0 : false;
  let fulfillment: Fulfillment;
  if (!existing) fulfillment = resolveNewFulfillment(await storeSettings(db, storeId), input.fulfillment);
  else fulfillment = (input.fulfillment as Fulfillment | undefined) ?? existing.fulfillment;
  const typeChanged = !!existing && fulfillment.type !== existing.fulfillment.type;
  if (existing && input.fulfillment) {
    if (ctx.readVersion !== null && ctx.readVersion < existing.typeChangedVersion) {
      throw fail(409, 'PRODUCT_CHANGED', { version: existing.version, fulfillmentType: existing.fulfillment.type });
    }
  }
  if (typeChanged && history) throw fail(409, 'FULFILLMENT_TYPE_LOCKED', { type: existing!.fulfillment.type });

  let refundPolicy: RefundOverride | null;
  if (fresh || input.refundPolicy !== undefined) refundPolicy = normalizeRefund(input.refundPolicy);
  else refundPolicy = fulfillment.type === 'MANUAL' && typeChanged ? withoutFeeItems(existing!.refundPolicy) : existing!.refundPolicy;
  if (fulfillment.type === 'MANUAL' && refundPolicy && (refundPolicy.returnDeliveryFee !== undefined || refundPolicy.exchangeDeliveryFee !== undefined)) {
    throw fail(400, 'REFUND_POLICY_NOT_APPLICABLE', { fields: ['returnDeliveryFee', 'exchangeDeliveryFee'].filter((k) => k in refundPolicy!) });
  }

  const inventoryMode = input.inventoryMode ?? (fresh ? 'STANDARD' : existing!.inventoryMode);
  if (existing && inventoryMode !== existing.inventoryMode && history) throw fail(409, 'INVENTORY_MODE_LOCKED', { inventoryMode: existing.inventoryMode });

  const options = input.options ?? (fresh ? [] : existing!.options);
  if (input.stockQuantity !== undefined && options.length > 0) {
    throw validationFailed([{ field: 'stockQuantity', code: 'NOT_APPLICABLE', message: '옵션이 있는 상품의 재고는 variants[].stockQuantity로 정합니다.' }]);
  }
  const settings: VariantSettings[] = input.variants ?? [];
  if (input.stockQuantity !== undefined) {
    const single = settings.find((s) => s.optionValues.length === 0);
    if (single?.stockQuantity !== undefined) throw validationFailed([{ field: 'stockQuantity', code: 'CONFLICT', message: 'stockQuantity와 variants[].stockQuantity를 함께 보낼 수 없습니다.' }]);
    if (single) single.stockQuantity = input.stockQuantity;
    else settings.push({ optionValues: [], stockQuantity: input.stockQuantity });
  }

  const pick = <K extends keyof ProductRow>(key: K & keyof ProductInput, fallback: ProductRow[K]): ProductRow[K] =>
    input[key] !== undefined ? (input[key] as ProductRow[K]) : fresh || !existing ? fallback : existing[key];

  const row: ProductRow = {
    id: existing?.id ?? newId('prd', now),
    storeId,
    productNo: existing?.productNo ?? (await allocateNumbers(db, storeId, 1, 0)).productNo,
    name: input.name ?? existing!.name,
    salePrice: input.salePrice ?? existing!.salePrice,
    listPrice: pick('listPrice', null),
    categoryId: pick('categoryId', null),
    images: pick('images', []),
    status: pick('status', existing?.status ?? 'ON_SALE'),
    autoSoldOut: input.status !== undefined ? false : existing?.autoSoldOut ?? false,
    options,
    fulfillment,
    refundPolicy,
    inventoryMode,
    flowId: pick('flowId', null),
    pointEarnRateBp: pick('pointEarnRateBp', null),
    isSample: pick('isSample', false),
    discount: existing?.discount ?? null,
    version: (existing?.version ?? 0) + 1,
    typeChangedVersion: existing && !typeChanged ? existing.typeChangedVersion : (existing?.version ?? 0) + 1,
    salesCount: existing?.salesCount ?? 0,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };

  if (existing) {
    const { id: _id, storeId: _s, productNo: _n, createdAt: _c, ...changes } = row;
    const updated = await db.update(products).set(changes).where(and(eq(products.id, existing.id), eq(products.version, existing.version))).run();
    if (updated.changes !== 1) throw fail(409, 'PRODUCT_CHANGED', { version: existing.version });
  } else {
    await q(db).insertProduct.run(row);
  }
  if (!existing || input.options !== undefined || input.variants !== undefined || input.stockQuantity !== undefined || mode === 'replace') {
    await syncVariants(ctx, row, settings, existing ? await variantsOf(db, row.id) : []);
  }
  return row;
}

/**
 * Makes the variants exactly the combinations of the product's axes (spec 01 §2.2). A combination that
 * survives a structure change keeps its variant (id, number, stock); settings given for it apply on top.
 * Removing a variant some order holds is refused (409 VARIANT_IN_ORDER).
 */
export async function syncVariants(ctx: Pick<WriteCtx, 'db' | 'now'>, product: ProductRow, settings: VariantSettings[], existing: VariantRow[]) {
  const { db, now } = ctx;
  const combos = combinations(product.options);
  const wanted = new Map(combos.map((values, position) => [comboKey(values), { values, position }]));
  const given = new Map<string, VariantSettings>();
  const errors: FieldError[] = [];
  settings.forEach((s, i) => {
    const key = comboKey(s.optionValues);
    if (!wanted.has(key)) errors.push({ field: `variants.${i}.optionValues`, code: 'UNKNOWN_COMBINATION', message: '옵션 구조에 없는 조합입니다. 옵션 순서대로 값을 보내세요.' });
    else if (given.has(key)) errors.push({ field: `variants.${i}.optionValues`, code: 'DUPLICATE', message: '같은 조합이 두 번 들어 있습니다.' });
    else given.set(key, s);
  });
  if (errors.length) throw validationFailed(errors);

  const kept = new Map(existing.filter((v) => wanted.has(comboKey(v.optionValues))).map((v) => [comboKey(v.optionValues), v]));
  const removed = existing.filter((v) => !kept.has(comboKey(v.optionValues)));
  const held = removed.filter((v) => v.soldQuantity > 0).map((v) => v.id);
  if (held.length) throw fail(409, 'VARIANT_IN_ORDER', { variantIds: held });
  if (removed.length) await db.delete(productVariants).where(inArray(productVariants.id, removed.map((v) => v.id))).run();

  const fresh = combos.filter((values) => !kept.has(comboKey(values)));
  let nextNo = fresh.length ? (await allocateNumbers(db, product.storeId, 0, fresh.length)).variantNo : 0;
  const inserts: VariantRow[] = [];
  const emptied: string[] = [];
  for (const [key, { values, position }] of wanted) {
    const s = given.get(key);
    const current = kept.get(key);
    if (!current) {
      inserts.push({
        id: newId('var', now),
        storeId: product.storeId,
        productId: product.id,
        variantNo: nextNo++,
        position,
        optionValues: values,
        additionalAmount: s?.additionalAmount ?? 0,
        stockQuantity: s?.stockQuantity ?? 0,
        saleOn: s?.saleOn ?? true,
        sku: s?.sku ? { barcode: null, sellerCode: null, cost: null, weight: null, ...s.sku } : null,
        soldQuantity: 0,
        outOfStockNotified: false,
      });
      continue;
    }
    if (!s && current.position === position) continue;
    await q(db).updateVariant.run({
      id: current.id,
      position,
      additionalAmount: s?.additionalAmount ?? current.additionalAmount,
      stockQuantity: s?.stockQuantity ?? current.stockQuantity,
      saleOn: s?.saleOn ?? current.saleOn,
      sku: s?.sku === undefined ? current.sku : s.sku && { barcode: null, sellerCode: null, cost: null, weight: null, ...s.sku },
    });
    if (s?.stockQuantity === 0 && current.stockQuantity > 0) emptied.push(current.id);
  }
  for (const row of inserts) await q(db).insertVariant.run(row);
  for (const variantId of emptied) await afterStockChange(db, now, product.id, variantId, 0);
}

export async function deleteProduct(db: Db, product: ProductRow) {
  const held = await variantsInOrders(db, product.storeId, (await variantsOf(db, product.id)).map((v) => v.id));
  if (held.length) throw fail(409, 'VARIANT_IN_ORDER', { variantIds: held });
  await db.delete(products).where(eq(products.id, product.id)).run();
}

/** Bumps the version of a product changed outside `writeProduct` (discount, status, stock-driven status). */
export async function touchProduct(db: Db, productId: string, now: number, set: Partial<ProductRow> = {}) {
  await db.update(products).set({ ...set, version: sql`${products.version} + 1`, updatedAt: now }).where(eq(products.id, productId)).run();
}
