import { z } from 'zod';
import { reply, type StoreCtx } from '../../server/registry.js';
import { loadProduct, variantsOf, type ProductRow, type VariantRow } from './product-rows.js';
import { presentProduct } from './product-views.js';

// What the operations on products share: their tag, parameters, target, error lists, lookup and reply.
export const tag = 'Catalog';
export const productParams = z.object({ productId: z.string() }).strict();
export const variantParams = z.object({ productId: z.string(), variantId: z.string() }).strict();
export const productTarget = (ctx: { params: { productId: string } }) => ({ type: 'PRODUCT', id: ctx.params.productId });

/** Errors of every operation on one product named by its id. */
export const PRODUCT_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['PRODUCT_NOT_FOUND'] } as const;
/** What `writeProduct` refuses, beyond the product lookup: prices, images, category, refund policy, locks. */
export const PRODUCT_WRITE = {
  400: ['INVALID_PRICE_UNIT', 'CATEGORY_NOT_LEAF', 'REFUND_POLICY_NOT_APPLICABLE'],
  403: ['TENANT_MISMATCH'],
  404: ['CATEGORY_NOT_FOUND', 'FLOW_NOT_FOUND'],
} as const;
export const PRODUCT_REWRITE = {
  ...PRODUCT_WRITE,
  404: ['PRODUCT_NOT_FOUND', 'CATEGORY_NOT_FOUND', 'FLOW_NOT_FOUND'],
  409: ['PRODUCT_CHANGED', 'FULFILLMENT_TYPE_LOCKED', 'INVENTORY_MODE_LOCKED', 'VARIANT_IN_ORDER'],
} as const;
/** A write to one product that an AI agent may run only with approval, once the store went public (spec 01 §5.6). */
export const approvedProductWrite = {
  tag,
  auth: 'store' as const,
  scope: 'product:rw',
  agent: 'approval' as const,
  agentApprovalExemptWhilePrivate: true,
  params: productParams,
  oneWriterPerStore: true,
};

export type ProductCtx = StoreCtx<any, any, { productId: string }>;
export const load = (ctx: ProductCtx) => loadProduct(ctx.db, ctx.store.id, ctx.params.productId);

/** The product as the seller reads it, with its version as ETag (sent back as `If-Match`); its variants are read unless given. */
export async function productReply(ctx: StoreCtx, product: ProductRow, status = 200, variants?: VariantRow[] | null) {
  const data = presentProduct(ctx.services.config.origin, product, variants ?? (await variantsOf(ctx.db, product.id)), ctx.now);
  return reply(status, data, { headers: { etag: `"${product.version}"` } });
}
