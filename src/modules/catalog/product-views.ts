// What sellers and buyers see of a product: the seller's and the buyer's view, discounts and fulfillment as shown.
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import { calendarDate, instant, won } from '../../server/responses.js';
import { uploadUrl } from '../uploads/index.js';
import { today } from '../../kernel/dates.js';
import { inventoryMode, productStatus } from './inputs.js';
import { buyerUnitPrice, discountActive, discountedPrice } from './prices.js';
import type { ProductRow, VariantRow } from './product-rows.js';

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
/** Add-on groups of a product (issue 30): extras a buyer picks on top of the variant. */
export const addonGroupView = z.object({
  name: z.string(),
  required: z.boolean().describe('A buyer must pick one value of a required group'),
  values: z.array(z.object({ name: z.string(), additionalPrice: won.describe('Won added to the unit price') })),
});
/** Custom inputs of a product or a saved option set (spec 01 §2.7): text the buyer types or picks when ordering. */
export const customInputView = z.object({
  label: z.string(),
  placeholder: z.string().nullable(),
  maxLength: z.number().int(),
  required: z.boolean(),
  key: z.string().describe('Names the input in checkout `customInputs`'),
  type: z.enum(['TEXT', 'TEXTAREA', 'SELECT']),
  options: z.array(z.string()).describe('Choices of a SELECT input'),
});
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
const refundOverrideView = z.object({
  returnDeliveryFee: won.optional(),
  exchangeDeliveryFee: won.optional(),
  preShipmentDeliveryFeeRefund: z.boolean().optional(),
});

export const productView = z
  .object({
    productId: z.string(),
    productNo: z.number().int().describe('Per-store sequence from 1'),
    name: z.string(),
    salePrice: won,
    listPrice: won.nullable().describe('Display-only comparison price (originalPrice for buyers)'),
    categoryId: z.string().nullable(),
    images: z.array(z.string()).describe('Upload ids; the first is the representative image'),
    imageUrls: z.array(z.url()),
    status: productStatus,
    stockQuantity: z.number().int().describe("Sum of the variants' stock (DATED products keep stock in the calendar)"),
    options: z.array(optionAxisView),
    variants: z.array(
      z.object({
        variantId: z.string().describe('= optionId in buyer APIs and orders'),
        variantNo: z.number().int(),
        optionValues: z.array(z.string()).describe('One value per option axis, in axis order'),
        additionalAmount: won.describe('Won added to salePrice; may be negative'),
        stockQuantity: z.number().int(),
        saleOn: z.boolean(),
        sku: skuView.nullable(),
      }),
    ),
    fulfillment: fulfillmentView,
    fulfillmentTypeLocked: z.boolean().describe('True once the product has sales history: fulfillment.type can no longer change'),
    refundPolicy: refundOverrideView.nullable().describe('Items overriding the store refund policy; null when none'),
    inventoryMode,
    flowId: z.string().nullable(),
    pointEarnRateBp: z.number().int().nullable().describe('Point earn rate in basis points; null: the store default'),
    isSample: z.boolean(),
    discount: discountView.nullable(),
    addons: z.array(addonGroupView),
    customInputs: z.array(customInputView),
    version: z.number().int().describe('Grows with every write; the ETag, sent back as If-Match'),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'Product' });

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
    addons: product.addons,
    customInputs: product.customInputs,
    version: product.version,
    createdAt: isoAt(product.createdAt),
    updatedAt: isoAt(product.updatedAt),
  };
}

export const buyerProductView = z
  .object({
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
    variants: z
      .array(
        z.object({
          variantId: z.string(),
          optionId: z.string().describe('= variantId'),
          variantNo: z.number().int(),
          optionValues: z.array(z.string()),
          additionalAmount: won,
          price: won.describe('price plus the additional amount'),
          soldOut: z.boolean().describe('Always false for DATED products: see the calendar'),
        }),
      )
      .describe('Variants on sale only'),
    fulfillment: z.discriminatedUnion('type', [
      z.object({ type: z.literal('SHIPPING'), shipping: shippingView.pick({ deliveryType: true, deliveryFee: true, conditionalFreeAmount: true }) }),
      z.object({ type: z.literal('MANUAL') }),
    ]),
    inventoryMode,
    pointEarnRateBp: z.number().int().nullable(),
    addons: z.array(addonGroupView),
    customInputs: z.array(customInputView),
  })
  .meta({ id: 'BuyerProduct' });

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
    variants: variants
      .filter((v) => v.saleOn)
      .map((v) => ({
        variantId: v.id,
        optionId: v.id,
        variantNo: v.variantNo,
        optionValues: v.optionValues,
        additionalAmount: v.additionalAmount,
        price: buyerUnitPrice(product, v, now),
        soldOut: dated ? false : v.stockQuantity === 0,
      })),
    fulfillment:
      product.fulfillment.type === 'SHIPPING'
        ? {
            type: 'SHIPPING',
            shipping: {
              deliveryType: product.fulfillment.shipping.deliveryType,
              deliveryFee: product.fulfillment.shipping.deliveryFee,
              conditionalFreeAmount: product.fulfillment.shipping.conditionalFreeAmount,
            },
          }
        : product.fulfillment,
    inventoryMode: product.inventoryMode,
    pointEarnRateBp: product.pointEarnRateBp,
    addons: product.addons,
    customInputs: product.customInputs,
  };
}
