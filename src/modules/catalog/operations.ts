import { and, eq, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import { pageOf, paginated } from '../../server/paging.js';
import { calendarDate, won } from '../../server/responses.js';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineOperation, reply, type AgentPolicy, type Change, type StoreCtx } from '../../server/registry.js';
import { datesIn, dayOfWeek, today } from '../../kernel/dates.js';
import { period, PERIOD_ERRORS } from './dates.js';
import {
  bulkStatus,
  calendarWrite,
  dateRange,
  discountBody,
  LIMITS,
  optionsReplace,
  productCreate,
  productListQuery,
  productPatch,
  productReplace,
  productStatus,
  stockChange,
  type ProductInput,
  type ProductPatch,
} from './inputs.js';
import { productCalendar, products, productVariants, type Discount } from './schema.js';
import { assertPriceUnit } from './prices.js';
import { cachedPage, listProducts } from './product-listing.js';
import { loadProduct, loadVariant, touchProduct, variantsOf, type ProductRow } from './product-rows.js';
import { discountView, presentDiscount, presentProduct, productView } from './product-views.js';
import { deleteProduct, syncVariants, writeCtx, writeProduct, type WriteMode } from './product-writes.js';
import { changeStock } from './stock.js';

const tag = 'Catalog';
const productParams = z.object({ productId: z.string() }).strict();
const variantParams = z.object({ productId: z.string(), variantId: z.string() }).strict();
const productTarget = (ctx: { params: { productId: string } }) => ({ type: 'PRODUCT', id: ctx.params.productId });

/** Errors of every operation on one product named by its id. */
const PRODUCT_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['PRODUCT_NOT_FOUND'] } as const;
/** What `writeProduct` refuses, beyond the product lookup: prices, images, category, refund policy, locks. */
const PRODUCT_WRITE = {
  400: ['INVALID_PRICE_UNIT', 'CATEGORY_NOT_LEAF', 'REFUND_POLICY_NOT_APPLICABLE'],
  403: ['TENANT_MISMATCH'],
  404: ['CATEGORY_NOT_FOUND', 'FLOW_NOT_FOUND'],
} as const;
const PRODUCT_REWRITE = {
  ...PRODUCT_WRITE,
  404: ['PRODUCT_NOT_FOUND', 'CATEGORY_NOT_FOUND', 'FLOW_NOT_FOUND'],
  409: ['PRODUCT_CHANGED', 'FULFILLMENT_TYPE_LOCKED', 'INVENTORY_MODE_LOCKED', 'VARIANT_IN_ORDER'],
} as const;
/** A write to one product that an AI agent may run only with approval, once the store went public (spec 01 §5.6). */
const approvedProductWrite = {
  tag,
  auth: 'store' as const,
  scope: 'product:rw',
  agent: 'approval' as const,
  agentApprovalExemptWhilePrivate: true,
  params: productParams,
};

type ProductCtx = StoreCtx<any, any, { productId: string }>;
const load = (ctx: ProductCtx) => loadProduct(ctx.db, ctx.store.id, ctx.params.productId);

/** The product as the seller reads it, with its version as ETag (sent back as `If-Match`). */
async function productReply(ctx: StoreCtx, product: ProductRow, status = 200) {
  const data = presentProduct(ctx.services.config.origin, product, await variantsOf(ctx.db, product.id), ctx.now);
  return reply(status, data, { headers: { etag: `"${product.version}"` } });
}

/** Dry-run preview of a product write: each sent field whose value differs from the stored one. */
async function productChanges(ctx: ProductCtx): Promise<Change[]> {
  const current = presentProduct(ctx.services.config.origin, await load(ctx), await variantsOf(ctx.db, ctx.params.productId), ctx.now) as Record<
    string,
    unknown
  >;
  return Object.entries(ctx.body as Record<string, unknown>)
    .filter(([field, after]) => !isDeepStrictEqual(current[field], after))
    .map(([field, after]) => ({ field, before: current[field] ?? null, after }));
}

const shippingFee = (p: { fulfillment?: ProductRow['fulfillment'] }) =>
  p.fulfillment?.type === 'SHIPPING'
    ? [p.fulfillment.shipping.deliveryType, p.fulfillment.shipping.deliveryFee, p.fulfillment.shipping.conditionalFreeAmount]
    : null;

/**
 * Agents (spec 01 §5.6): a partial update needs approval only when it changes what buyers pay (sale price,
 * an add-on, the shipping fee) or replaces the option structure; names, status and the rest run directly.
 */
async function patchPolicy(ctx: StoreCtx<ProductPatch, unknown, { productId: string }>): Promise<AgentPolicy> {
  const product = await loadProduct(ctx.db, ctx.store.id, ctx.params.productId);
  const body = ctx.body;
  if (body.options !== undefined) return 'approval';
  if (body.salePrice !== undefined && body.salePrice !== product.salePrice) return 'approval';
  if (body.fulfillment !== undefined && !isDeepStrictEqual(shippingFee(body), shippingFee(product))) return 'approval';
  if (body.variants?.some((v) => v.additionalAmount !== undefined)) {
    const current = new Map((await variantsOf(ctx.db, product.id)).map((v) => [JSON.stringify(v.optionValues), v.additionalAmount]));
    if (body.variants.some((v) => v.additionalAmount !== undefined && current.get(JSON.stringify(v.optionValues)) !== v.additionalAmount)) return 'approval';
  }
  return 'direct';
}

const writeHandler = (mode: Exclude<WriteMode, 'create'>) => async (ctx: StoreCtx<ProductInput, unknown, { productId: string }>) =>
  productReply(ctx, await writeProduct(writeCtx(ctx), mode, await load(ctx), ctx.body));

const calendarStatements = preparedFor((db: Db) => {
  const upsert = (set: { stock?: SQL; price?: SQL }) =>
    db
      .insert(productCalendar)
      .values({
        variantId: sql.placeholder('variantId'),
        date: sql.placeholder('date'),
        storeId: sql.placeholder('storeId'),
        productId: sql.placeholder('productId'),
        stock: sql.placeholder('stock'),
        price: sql.placeholder('price'),
      })
      .onConflictDoUpdate({ target: [productCalendar.variantId, productCalendar.date], set })
      .prepare();
  return {
    both: upsert({ stock: sql`excluded.stock`, price: sql`excluded.price` }),
    stock: upsert({ stock: sql`excluded.stock` }),
    price: upsert({ price: sql`excluded.price` }),
  };
});

/** Variants named by id must be this product's; another store's is TENANT_MISMATCH. */
async function requireVariantsOf(db: Db, product: ProductRow, ids: string[]) {
  const rows = await db
    .select({ id: productVariants.id, storeId: productVariants.storeId, productId: productVariants.productId })
    .from(productVariants)
    .where(inArray(productVariants.id, ids))
    .all();
  for (const id of ids) {
    const row = rows.find((r) => r.id === id);
    if (row && row.storeId !== product.storeId) throw fail(403, 'TENANT_MISMATCH', { variantId: id });
    if (!row || row.productId !== product.id) throw fail(404, 'VARIANT_NOT_FOUND', { productId: product.id, variantId: id });
  }
}

export function requireDated(product: ProductRow) {
  if (product.inventoryMode !== 'DATED') throw fail(409, 'INVENTORY_MODE_NOT_DATED', { productId: product.id, inventoryMode: product.inventoryMode });
}

function calendarRows(db: Db, productId: string, from: string, to: string) {
  return db
    .select()
    .from(productCalendar)
    .where(and(eq(productCalendar.productId, productId), gte(productCalendar.date, from), lte(productCalendar.date, to)))
    .all();
}

const productCalendarView = z.object({
  productId: z.string(),
  from: calendarDate,
  to: calendarDate,
  variants: z.array(
    z.object({
      variantId: z.string(),
      optionValues: z.array(z.string()),
      days: z.array(
        z.object({
          date: calendarDate,
          stock: z.number().int().describe('0 for a day absent from the calendar (not sold)'),
          price: won.describe("The day's price, else salePrice plus the variant's additional amount"),
          priceSet: z.boolean().describe('Whether the day has a price of its own'),
        }),
      ),
    }),
  ),
});

/** Per variant and day in the period: stock (0 when absent) and the price of that day. */
export async function calendarDays(db: Db, product: ProductRow, from: string, to: string, basePrice: (additionalAmount: number) => number) {
  const rows = new Map((await calendarRows(db, product.id, from, to)).map((r) => [`${r.variantId} ${r.date}`, r]));
  const dates = datesIn(from, to);
  return (await variantsOf(db, product.id)).map((v) => ({
    variant: v,
    days: dates.map((date) => {
      const row = rows.get(`${v.id} ${date}`);
      return { date, stock: row?.stock ?? 0, price: row?.price ?? basePrice(v.additionalAmount), priceSet: row?.price != null };
    }),
  }));
}

function checkDiscount(product: ProductRow, d: Discount) {
  if (d.endDate < d.startDate) throw fail(400, 'INVALID_PARAMETER', { field: 'endDate', reason: 'TO_BEFORE_FROM' });
  if (d.method === 'PERCENT' && d.value > 99) {
    throw validationFailed([{ field: 'value', code: 'TOO_LARGE', message: '정률 할인은 1~99%입니다.' }]);
  }
  if (d.method === 'AMOUNT') {
    assertPriceUnit('value', d.value);
    if (d.value >= product.salePrice)
      throw validationFailed([{ field: 'value', code: 'DISCOUNT_TOO_LARGE', message: '정액 할인은 판매가보다 작아야 합니다.' }]);
  }
}

export const productOperations = [
  defineOperation({
    operationId: 'createProduct',
    method: 'POST',
    path: '/v1/products',
    summary: 'Create a product; every option combination becomes a variant',
    tag,
    auth: 'store',
    scope: 'product:rw',
    agent: 'direct',
    body: productCreate,
    target: () => ({ type: 'PRODUCT', id: null }),
    response: productView,
    status: 201,
    errors: PRODUCT_WRITE,
    handler: async (ctx) => productReply(ctx, await writeProduct(writeCtx(ctx), 'create', null, ctx.body), 201),
  }),
  defineOperation({
    operationId: 'listProducts',
    method: 'GET',
    path: '/v1/products',
    summary: 'Products of the store, newest first',
    tag,
    auth: 'store',
    scope: 'product:r',
    query: productListQuery,
    response: pageOf(productView),
    handler: (ctx) =>
      cachedPage(ctx.db, ctx.store.id, `admin ${today(ctx.now)} ${JSON.stringify(ctx.query)}`, async () => {
        const { rows, variants, page, size, total } = await listProducts(ctx.db, ctx.store.id, ctx.query);
        const origin = ctx.services.config.origin;
        return paginated(
          rows.map((p) => presentProduct(origin, p, variants.get(p.id)!, ctx.now)),
          page,
          size,
          total,
        );
      }),
  }),
  defineOperation({
    operationId: 'getProduct',
    method: 'GET',
    path: '/v1/products/{productId}',
    summary: 'A product with its variants, fulfillment, refund policy and discount',
    tag,
    auth: 'store',
    scope: 'product:r',
    params: productParams,
    response: productView,
    errors: PRODUCT_LOOKUP,
    handler: async (ctx) => productReply(ctx, await load(ctx)),
  }),
  defineOperation({
    operationId: 'replaceProduct',
    method: 'PUT',
    path: '/v1/products/{productId}',
    summary: 'Replace a product; omitted fulfillment stays, omitted refundPolicy erases the override',
    ...approvedProductWrite,
    body: productReplace,
    target: productTarget,
    preview: async (ctx) => ({ changes: await productChanges(ctx) }),
    response: productView,
    errors: PRODUCT_REWRITE,
    handler: writeHandler('replace'),
  }),
  defineOperation({
    operationId: 'updateProduct',
    method: 'PATCH',
    path: '/v1/products/{productId}',
    summary: 'Change the sent fields of a product; a sent fulfillment or refundPolicy replaces that object',
    tag,
    auth: 'store',
    scope: 'product:rw',
    agent: patchPolicy,
    agentApprovalExemptWhilePrivate: true,
    params: productParams,
    body: productPatch,
    target: productTarget,
    preview: async (ctx) => ({ changes: await productChanges(ctx) }),
    response: productView,
    errors: PRODUCT_REWRITE,
    handler: writeHandler('patch'),
  }),
  defineOperation({
    operationId: 'deleteProduct',
    method: 'DELETE',
    path: '/v1/products/{productId}',
    summary: 'Delete a product; refused when an order holds one of its variants (end the sale instead)',
    ...approvedProductWrite,
    target: productTarget,
    response: z.object({ productId: z.string(), deleted: z.literal(true) }),
    errors: { ...PRODUCT_LOOKUP, 409: ['VARIANT_IN_ORDER'] },
    handler: async (ctx) => {
      await deleteProduct(ctx.db, await load(ctx));
      return { productId: ctx.params.productId, deleted: true };
    },
  }),
  defineOperation({
    operationId: 'replaceProductOptions',
    method: 'PUT',
    path: '/v1/products/{productId}/options',
    summary: 'Replace the option structure; variants of surviving combinations are kept',
    ...approvedProductWrite,
    body: optionsReplace,
    target: productTarget,
    response: productView,
    errors: { ...PRODUCT_LOOKUP, 400: ['INVALID_PRICE_UNIT'], 409: ['VARIANT_IN_ORDER'] },
    handler: async (ctx) => {
      const product = await load(ctx);
      ctx.body.variants?.forEach(
        (v, i) => v.additionalAmount !== undefined && assertPriceUnit(`variants.${i}.additionalAmount`, v.additionalAmount, { addOn: true }),
      );
      const existing = await variantsOf(ctx.db, product.id);
      await ctx.db
        .update(products)
        .set({ options: ctx.body.options, version: product.version + 1, updatedAt: ctx.now })
        .where(eq(products.id, product.id))
        .run();
      await syncVariants(ctx, { ...product, options: ctx.body.options }, ctx.body.variants ?? [], existing);
      return productReply(ctx, await loadProduct(ctx.db, ctx.store.id, product.id));
    },
  }),
  defineOperation({
    operationId: 'changeVariantStock',
    method: 'PATCH',
    path: '/v1/products/{productId}/variants/{variantId}/stock',
    summary: 'Set (stockQuantity) or move (adjustment) the stock of one variant; never below 0',
    tag,
    auth: 'store',
    scope: 'product:rw',
    agent: 'direct',
    params: variantParams,
    body: stockChange,
    target: productTarget,
    response: z.object({
      productId: z.string(),
      variantId: z.string(),
      stockQuantity: z.number().int().describe("The variant's stock after the change"),
      productStatus: productStatus.describe("The product's sale status after the change (stock at 0 may sell it out)"),
    }),
    errors: {
      403: ['TENANT_MISMATCH'],
      404: ['PRODUCT_NOT_FOUND', 'VARIANT_NOT_FOUND'],
      409: ['INVENTORY_MODE_DATED', 'INSUFFICIENT_STOCK', 'STOCK_LIMIT_EXCEEDED'],
    },
    handler: async (ctx) => {
      const product = await load(ctx);
      await loadVariant(ctx.db, product, ctx.params.variantId);
      const stockQuantity = await changeStock(ctx.db, ctx.now, product, ctx.params.variantId, ctx.body as never);
      const after = await loadProduct(ctx.db, ctx.store.id, product.id);
      return { productId: product.id, variantId: ctx.params.variantId, stockQuantity, productStatus: after.status };
    },
  }),
  defineOperation({
    operationId: 'bulkChangeProductStatus',
    method: 'POST',
    path: '/v1/products/bulk/status',
    summary: 'Set one sale status on up to 100 products; each succeeds or fails on its own',
    tag,
    auth: 'store',
    scope: 'product:rw',
    agent: 'direct',
    body: bulkStatus,
    target: () => ({ type: 'PRODUCT', id: null }),
    response: z.object({
      succeeded: z.array(z.string()).describe('Product ids now in the requested status'),
      failed: z.array(z.object({ productId: z.string(), code: z.enum(['PRODUCT_NOT_FOUND', 'TENANT_MISMATCH']), message: z.string() })),
    }),
    handler: async (ctx) => {
      const rows = await ctx.db.select().from(products).where(inArray(products.id, ctx.body.productIds)).all();
      const succeeded: string[] = [];
      const failed: { productId: string; code: string; message: string }[] = [];
      for (const productId of new Set(ctx.body.productIds)) {
        const row = rows.find((r) => r.id === productId);
        if (!row || row.storeId !== ctx.store.id) {
          const code = row ? 'TENANT_MISMATCH' : 'PRODUCT_NOT_FOUND';
          failed.push({ productId, code, message: fail(row ? 403 : 404, code).message });
          continue;
        }
        if (row.status !== ctx.body.status) await touchProduct(ctx.db, productId, ctx.now, { status: ctx.body.status, autoSoldOut: false });
        succeeded.push(productId);
      }
      return { succeeded, failed };
    },
  }),
  defineOperation({
    operationId: 'putProductCalendar',
    method: 'PUT',
    path: '/v1/products/{productId}/calendar',
    summary: 'Set dated stock and/or price per variant and day (at most 400 days); only sent fields change',
    ...approvedProductWrite,
    body: calendarWrite,
    target: productTarget,
    response: z.object({
      productId: z.string(),
      variantIds: z.array(z.string()),
      from: calendarDate,
      to: calendarDate,
      updatedDays: z.number().int().describe('Days written per variant (daysOfWeek applied)'),
    }),
    errors: {
      400: ['INVALID_PARAMETER', 'RANGE_TOO_WIDE', 'INVALID_PRICE_UNIT'],
      403: ['TENANT_MISMATCH'],
      404: ['PRODUCT_NOT_FOUND', 'VARIANT_NOT_FOUND'],
      409: ['INVENTORY_MODE_NOT_DATED'],
    },
    handler: async (ctx) => {
      const product = await load(ctx);
      requireDated(product);
      const { from, to } = period(ctx.body, ctx.now, LIMITS.calendarDays);
      if (typeof ctx.body.price === 'number') assertPriceUnit('price', ctx.body.price);
      const variantIds = [...new Set(ctx.body.variantIds)];
      await requireVariantsOf(ctx.db, product, variantIds);
      const days = ctx.body.daysOfWeek ? new Set(ctx.body.daysOfWeek) : null;
      const dates = datesIn(from, to).filter((d) => !days || days.has(dayOfWeek(d)));
      const s = calendarStatements(ctx.db);
      const statement = ctx.body.stock !== undefined && ctx.body.price !== undefined ? s.both : ctx.body.stock !== undefined ? s.stock : s.price;
      // A day first written with only a price has no stock yet: absent days have stock 0 (spec 01 §2.6).
      const values = { storeId: ctx.store.id, productId: product.id, stock: ctx.body.stock ?? 0, price: ctx.body.price ?? null };
      for (const variantId of variantIds) for (const date of dates) await statement.run({ ...values, variantId, date });
      await touchProduct(ctx.db, product.id, ctx.now);
      return { productId: product.id, variantIds, from, to, updatedDays: dates.length };
    },
  }),
  defineOperation({
    operationId: 'getProductCalendar',
    method: 'GET',
    path: '/v1/products/{productId}/calendar',
    summary: 'Dated stock and price per variant and day (default: 30 days from today)',
    tag,
    auth: 'store',
    scope: 'product:r',
    params: productParams,
    query: dateRange,
    response: productCalendarView,
    errors: { ...PRODUCT_LOOKUP, ...PERIOD_ERRORS, 409: ['INVENTORY_MODE_NOT_DATED'] },
    handler: async (ctx) => {
      const product = await load(ctx);
      requireDated(product);
      const { from, to } = period(ctx.query, ctx.now, LIMITS.calendarDays);
      const variants = await calendarDays(ctx.db, product, from, to, (add) => product.salePrice + add);
      return {
        productId: product.id,
        from,
        to,
        variants: variants.map(({ variant, days }) => ({ variantId: variant.id, optionValues: variant.optionValues, days })),
      };
    },
  }),
  defineOperation({
    operationId: 'setProductDiscount',
    method: 'PUT',
    path: '/v1/products/{productId}/discount',
    summary: 'Set the discount (percentage or amount off salePrice, between two dates)',
    ...approvedProductWrite,
    body: discountBody,
    target: productTarget,
    response: discountView,
    errors: { ...PRODUCT_LOOKUP, 400: ['INVALID_PARAMETER', 'INVALID_PRICE_UNIT'] },
    handler: async (ctx) => {
      const product = await load(ctx);
      checkDiscount(product, ctx.body);
      await touchProduct(ctx.db, product.id, ctx.now, { discount: ctx.body });
      return presentDiscount({ ...product, discount: ctx.body }, ctx.now);
    },
  }),
  defineOperation({
    operationId: 'getProductDiscount',
    method: 'GET',
    path: '/v1/products/{productId}/discount',
    summary: 'The discount; 404 DISCOUNT_NOT_FOUND when there is none',
    tag,
    auth: 'store',
    scope: 'product:r',
    params: productParams,
    response: discountView,
    errors: { ...PRODUCT_LOOKUP, 404: ['PRODUCT_NOT_FOUND', 'DISCOUNT_NOT_FOUND'] },
    handler: async (ctx) => {
      const product = await load(ctx);
      if (!product.discount) throw fail(404, 'DISCOUNT_NOT_FOUND', { productId: product.id });
      return presentDiscount(product, ctx.now);
    },
  }),
  defineOperation({
    operationId: 'deleteProductDiscount',
    method: 'DELETE',
    path: '/v1/products/{productId}/discount',
    summary: 'Clear the discount',
    ...approvedProductWrite,
    target: productTarget,
    response: z.object({ productId: z.string(), discount: z.null() }),
    errors: { ...PRODUCT_LOOKUP, 404: ['PRODUCT_NOT_FOUND', 'DISCOUNT_NOT_FOUND'] },
    handler: async (ctx) => {
      const product = await load(ctx);
      if (!product.discount) throw fail(404, 'DISCOUNT_NOT_FOUND', { productId: product.id });
      await touchProduct(ctx.db, product.id, ctx.now, { discount: null });
      return { productId: product.id, discount: null };
    },
  }),
];
