// Writing products: create, replace and patch under one set of rules, the variants of the option axes, deletion.
import { and, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import { onPostgres, type Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail, validationFailed, type FieldError } from '../../server/errors.js';
import type { StoreCtx } from '../../server/registry.js';
import { storeSettings } from '../stores/index.js';
import type { StoreSettings } from '../stores/index.js';
import { requireProductImages } from '../uploads/index.js';
import type { FulfillmentInput, ProductInput, VariantSettings } from './inputs.js';
import { assertPriceUnit } from './prices.js';
import { hasChildCategory, loadCategory, variantsInOrders, variantsOf, type ProductRow, type VariantRow } from './product-rows.js';
import { catalogSequences, products, productVariants, type Fulfillment, type OptionAxis, type RefundOverride } from './schema.js';
import { afterStockChange } from './stock.js';
import { requireFlowId } from './references.js';

/** A prepared insert of every column, each bound by its own name. */
const insertAll = (db: Db, table: typeof products | typeof productVariants) =>
  db
    .insert(table)
    .values(Object.fromEntries(Object.keys(getTableColumns(table)).map((c) => [c, sql.placeholder(c)])) as never)
    .prepare();

const q = preparedFor((db) => ({
  // SQLite, structures of up to 500 combinations: one prepared statement per row beats building a 6,000-parameter query.
  insertProduct: insertAll(db, products),
  insertVariant: insertAll(db, productVariants),
  updateVariant: db
    .update(productVariants)
    .set({
      position: sql.placeholder('position'),
      additionalAmount: sql.placeholder('additionalAmount'),
      stockQuantity: sql.placeholder('stockQuantity'),
      saleOn: sql.placeholder('saleOn'),
      sku: sql.placeholder('sku'),
    } as never)
    .where(eq(productVariants.id, sql.placeholder('id')))
    .prepare(),
  allocate: db
    .insert(catalogSequences)
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

/** Reserves `products` product numbers and `variants` variant numbers of the store; returns the first of each. */
async function allocateNumbers(db: Db, storeId: string, products: number, variants: number) {
  const last = (await q(db).allocate.get({ storeId, products, variants }))!;
  return { productNo: last.productNo - products + 1, variantNo: last.variantNo - variants + 1 };
}

/** Every combination of the axes' values, in axis order; one empty combination for a product without options. */
export function combinations(axes: OptionAxis[]): string[][] {
  return axes.reduce<string[][]>((acc, axis) => acc.flatMap((prefix) => axis.values.map((v) => [...prefix, v])), [[]]);
}

const comboKey = (values: string[]) => JSON.stringify(values);

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

/** A written product, and its variants when the write made them all (a create): no need to read them back. */
export interface Written {
  product: ProductRow;
  variants: VariantRow[] | null;
}

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
export async function writeProduct(ctx: WriteCtx, mode: WriteMode, existing: ProductRow | null, input: ProductInput): Promise<Written> {
  const { db, now, storeId } = ctx;
  const fresh = mode !== 'patch';

  if (input.salePrice !== undefined) assertPriceUnit('salePrice', input.salePrice);
  input.variants?.forEach((v, i) => v.additionalAmount !== undefined && assertPriceUnit(`variants.${i}.additionalAmount`, v.additionalAmount, { addOn: true }));
  input.addons?.forEach((g, i) => g.values.forEach((v, j) => assertPriceUnit(`addons.${i}.values.${j}.additionalPrice`, v.additionalPrice, { addOn: true })));
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
    if (single?.stockQuantity !== undefined)
      throw validationFailed([{ field: 'stockQuantity', code: 'CONFLICT', message: 'stockQuantity와 variants[].stockQuantity를 함께 보낼 수 없습니다.' }]);
    if (single) single.stockQuantity = input.stockQuantity;
    else settings.push({ optionValues: [], stockQuantity: input.stockQuantity });
  }

  // A new product's number and its variants' numbers come in one statement (every combination is a new variant).
  const numbers = existing ? null : await allocateNumbers(db, storeId, 1, combinations(options).length);
  const pick = <K extends keyof ProductRow>(key: K & keyof ProductInput, fallback: ProductRow[K]): ProductRow[K] =>
    input[key] !== undefined ? (input[key] as ProductRow[K]) : fresh || !existing ? fallback : existing[key];

  const row: ProductRow = {
    id: existing?.id ?? newId('prd', now),
    storeId,
    productNo: existing?.productNo ?? numbers!.productNo,
    name: input.name ?? existing!.name,
    salePrice: input.salePrice ?? existing!.salePrice,
    listPrice: pick('listPrice', null),
    categoryId: pick('categoryId', null),
    images: pick('images', []),
    status: pick('status', existing?.status ?? 'ON_SALE'),
    autoSoldOut: input.status !== undefined ? false : (existing?.autoSoldOut ?? false),
    options,
    fulfillment,
    refundPolicy,
    inventoryMode,
    flowId: pick('flowId', null),
    pointEarnRateBp: pick('pointEarnRateBp', null),
    isSample: pick('isSample', false),
    discount: existing?.discount ?? null,
    addons: pick('addons', []),
    customInputs: pick('customInputs', []),
    version: (existing?.version ?? 0) + 1,
    typeChangedVersion: existing && !typeChanged ? existing.typeChangedVersion : (existing?.version ?? 0) + 1,
    salesCount: existing?.salesCount ?? 0,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };

  if (existing) {
    const { id: _id, storeId: _s, productNo: _n, createdAt: _c, ...changes } = row;
    const updated = await db
      .update(products)
      .set(changes)
      .where(and(eq(products.id, existing.id), eq(products.version, existing.version)))
      .run();
    if (updated.changes !== 1) throw fail(409, 'PRODUCT_CHANGED', { version: existing.version });
  } else {
    await q(db).insertProduct.run(row);
  }
  if (!existing) return { product: row, variants: await syncVariants(ctx, row, settings, [], numbers!.variantNo) };
  if (input.options !== undefined || input.variants !== undefined || input.stockQuantity !== undefined || mode === 'replace') {
    await syncVariants(ctx, row, settings, await variantsOf(db, row.id));
  }
  return { product: row, variants: null };
}

/**
 * Makes the variants exactly the combinations of the product's axes (spec 01 §2.2). A combination that
 * survives a structure change keeps its variant (id, number, stock); settings given for it apply on top.
 * Removing a variant some order holds is refused (409 VARIANT_IN_ORDER). `firstVariantNo`: numbers the caller
 * reserved for the new variants already. Answers the variants it inserted, in position order.
 */
export async function syncVariants(
  ctx: Pick<WriteCtx, 'db' | 'now'>,
  product: ProductRow,
  settings: VariantSettings[],
  existing: VariantRow[],
  firstVariantNo?: number,
): Promise<VariantRow[]> {
  const { db, now } = ctx;
  const combos = combinations(product.options);
  const wanted = new Map(combos.map((values, position) => [comboKey(values), { values, position }]));
  const given = new Map<string, VariantSettings>();
  const errors: FieldError[] = [];
  settings.forEach((s, i) => {
    const key = comboKey(s.optionValues);
    if (!wanted.has(key))
      errors.push({ field: `variants.${i}.optionValues`, code: 'UNKNOWN_COMBINATION', message: '옵션 구조에 없는 조합입니다. 옵션 순서대로 값을 보내세요.' });
    else if (given.has(key)) errors.push({ field: `variants.${i}.optionValues`, code: 'DUPLICATE', message: '같은 조합이 두 번 들어 있습니다.' });
    else given.set(key, s);
  });
  if (errors.length) throw validationFailed(errors);

  const kept = new Map(existing.filter((v) => wanted.has(comboKey(v.optionValues))).map((v) => [comboKey(v.optionValues), v]));
  const removed = existing.filter((v) => !kept.has(comboKey(v.optionValues)));
  const held = removed.filter((v) => v.soldQuantity > 0).map((v) => v.id);
  if (held.length) throw fail(409, 'VARIANT_IN_ORDER', { variantIds: held });
  if (removed.length)
    await db
      .delete(productVariants)
      .where(
        inArray(
          productVariants.id,
          removed.map((v) => v.id),
        ),
      )
      .run();

  const fresh = combos.filter((values) => !kept.has(comboKey(values)));
  let nextNo = firstVariantNo ?? (fresh.length ? (await allocateNumbers(db, product.storeId, 0, fresh.length)).variantNo : 0);
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
  await insertVariants(db, inserts);
  for (const variantId of emptied) await afterStockChange(db, now, product.id, variantId, 0);
  return inserts;
}

/**
 * PostgreSQL takes the rows in one multi-row insert: one round trip instead of one per row. SQLite has no
 * round trip to save, and a prepared row insert costs less than building a query of every row's values.
 */
async function insertVariants(db: Db, rows: VariantRow[]) {
  if (rows.length > 1 && onPostgres(db)) await db.insert(productVariants).values(rows).run();
  else for (const row of rows) await q(db).insertVariant.run(row);
}

export async function deleteProduct(db: Db, product: ProductRow) {
  const held = await variantsInOrders(
    db,
    product.storeId,
    (await variantsOf(db, product.id)).map((v) => v.id),
  );
  if (held.length) throw fail(409, 'VARIANT_IN_ORDER', { variantIds: held });
  await db.delete(products).where(eq(products.id, product.id)).run();
}
