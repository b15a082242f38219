import { z } from 'zod';
import { fail, validationFailed } from '../../server/errors.js';
import { defineOperation } from '../../server/registry.js';
import { discountBody } from './inputs.js';
import { type Discount } from './schema.js';
import { assertPriceUnit } from './prices.js';
import { approvedProductWrite, load, PRODUCT_LOOKUP, productParams, productTarget, tag } from './product-operation-parts.js';
import { touchProduct, type ProductRow } from './product-rows.js';
import { discountView, presentDiscount } from './product-views.js';

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

/** A product's discount: set, read, clear. */
export const productDiscountOperations = [
  defineOperation({
    operationId: 'setProductDiscount',
    title: '상품 할인 설정',
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
    title: '상품 할인 해제',
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
