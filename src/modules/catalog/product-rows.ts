// Product, variant and category rows of the catalog: lookups, tenancy checks, version bumps, the catalog's error vocabulary.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { requireOwned } from '../../server/tenancy.js';
import { categories, products, productVariants } from './schema.js';

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

const q = preparedFor((db) => ({
  productById: db
    .select()
    .from(products)
    .where(eq(products.id, sql.placeholder('id')))
    .prepare(),
  productByNo: db
    .select()
    .from(products)
    .where(and(eq(products.storeId, sql.placeholder('storeId')), eq(products.productNo, sql.placeholder('productNo'))))
    .prepare(),
  variantsOf: db
    .select()
    .from(productVariants)
    .where(eq(productVariants.productId, sql.placeholder('productId')))
    .orderBy(asc(productVariants.position))
    .prepare(),
  categoryById: db
    .select()
    .from(categories)
    .where(eq(categories.id, sql.placeholder('id')))
    .prepare(),
  childOf: db
    .select({ id: categories.id })
    .from(categories)
    .where(eq(categories.parentId, sql.placeholder('id')))
    .limit(1)
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

export const loadCategory = async (db: Db, storeId: string, categoryId: string) =>
  requireOwned(await q(db).categoryById.get({ id: categoryId }), storeId, 'CATEGORY_NOT_FOUND');
export const hasChildCategory = async (db: Db, categoryId: string) => (await q(db).childOf.get({ id: categoryId })) !== undefined;
/** A category by id (any store: callers check the store). */
export const findCategory = (db: Db, id: string) => q(db).categoryById.get({ id });

/** The store's product of this id, else undefined (another store's product counts as missing). */
export async function findStoreProduct(db: Db, storeId: string, productId: string): Promise<ProductRow | undefined> {
  const product = await findProduct(db, productId);
  return product && product.storeId === storeId ? product : undefined;
}

/** The ids among `ids` of the store's products. */
export async function productIdsInStore(db: Db, storeId: string, ids: string[]): Promise<string[]> {
  return (
    await db
      .select({ id: products.id })
      .from(products)
      .where(and(eq(products.storeId, storeId), inArray(products.id, ids)))
      .all()
  ).map((r) => r.id);
}

/** The ids among `ids` of the store's categories. */
export async function categoryIdsInStore(db: Db, storeId: string, ids: string[]): Promise<string[]> {
  return (
    await db
      .select({ id: categories.id })
      .from(categories)
      .where(and(eq(categories.storeId, storeId), inArray(categories.id, ids)))
      .all()
  ).map((r) => r.id);
}

/** Sales history (spec 01 §2.2 `fulfillmentTypeLocked`, §2.6 `INVENTORY_MODE_LOCKED`): checkout records sales with `recordSale`. */
export async function hasSalesHistory(db: Db, storeId: string, productId: string): Promise<boolean> {
  const product = await findProduct(db, productId);
  return !!product && product.storeId === storeId && product.salesCount > 0;
}

/** The variants among `variantIds` that some order holds; those cannot be deleted (spec 01 §2.2). */
export async function variantsInOrders(db: Db, storeId: string, variantIds: string[]): Promise<string[]> {
  if (variantIds.length === 0) return [];
  return (
    await db
      .select({ id: productVariants.id })
      .from(productVariants)
      .where(and(eq(productVariants.storeId, storeId), inArray(productVariants.id, variantIds), sql`${productVariants.soldQuantity} > 0`))
      .all()
  ).map((v) => v.id);
}

/** Bumps the version of a product changed outside `writeProduct` (discount, status, stock-driven status). */
export async function touchProduct(db: Db, productId: string, now: number, set: Partial<ProductRow> = {}) {
  await db
    .update(products)
    .set({ ...set, version: sql`${products.version} + 1`, updatedAt: now })
    .where(eq(products.id, productId))
    .run();
}

/** Whether the store has an on-sale product that is not a sample (a hosted storefront may then go public). */
export const hasSellableProduct = async (db: Db, storeId: string) =>
  (await db
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.storeId, storeId), eq(products.status, 'ON_SALE'), eq(products.isSample, false)))
    .limit(1)
    .get()) !== undefined;
