import { eq, inArray } from 'drizzle-orm';
import { pageOf, paginated } from '../../server/paging.js';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { defineOperation, type AgentPolicy, type Change, type StoreCtx } from '../../server/registry.js';
import { today } from '../../kernel/dates.js';
import {
  bulkStatus,
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
import { products } from './schema.js';
import { assertPriceUnit } from './prices.js';
import { cachedPage, listProducts } from './product-listing.js';
import {
  approvedProductWrite,
  load,
  PRODUCT_LOOKUP,
  PRODUCT_REWRITE,
  PRODUCT_WRITE,
  productParams,
  productReply,
  productTarget,
  tag,
  variantParams,
  type ProductCtx,
} from './product-operation-parts.js';
import { loadProduct, loadVariant, touchProduct, variantsOf, type ProductRow } from './product-rows.js';
import { presentProduct, productView } from './product-views.js';
import { deleteProduct, syncVariants, writeCtx, writeProduct, type WriteMode } from './product-writes.js';
import { changeStock } from './stock.js';

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
  productReply(ctx, (await writeProduct(writeCtx(ctx), mode, await load(ctx), ctx.body)).product);

/** A product itself: create, list, read, replace, patch and delete it, its options, a variant's stock, bulk status. */
export const productRecordOperations = [
  defineOperation({
    operationId: 'createProduct',
    method: 'POST',
    path: '/v1/products',
    summary: 'Create a product; every option combination becomes a variant',
    tag,
    auth: 'store',
    scope: 'product:rw',
    oneWriterPerStore: true,
    agent: 'direct',
    body: productCreate,
    target: () => ({ type: 'PRODUCT', id: null }),
    response: productView,
    status: 201,
    errors: PRODUCT_WRITE,
    handler: async (ctx) => {
      const { product, variants } = await writeProduct(writeCtx(ctx), 'create', null, ctx.body);
      return productReply(ctx, product, 201, variants);
    },
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
    title: '상품 전체 수정',
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
    title: '상품 수정',
    method: 'PATCH',
    path: '/v1/products/{productId}',
    summary: 'Change the sent fields of a product; a sent fulfillment or refundPolicy replaces that object',
    tag,
    auth: 'store',
    scope: 'product:rw',
    oneWriterPerStore: true,
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
    title: '상품 삭제',
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
    title: '상품 옵션 구조 변경',
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
    oneWriterPerStore: true,
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
    oneWriterPerStore: true,
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
];
