// What a buyer may order now, at what price: the check every cart line and sheet line goes through.
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { buyerUnitPrice } from '../catalog/index.js';
import { findProduct, variantsOf, type ProductRow, type VariantRow } from '../catalog/index.js';
import { priceStay, type Stay } from '../catalog/index.js';
import { addonAmountOf, chooseItemOptions, type ItemOptions, type ItemOptionsRequest } from '../catalog/index.js';
import { uploadUrl } from '../uploads/index.js';

export interface Orderable {
  product: ProductRow;
  variant: VariantRow;
  unitPrice: number;
  stay: { checkIn: string; checkOut: string; nights: { date: string; price: number }[] } | null;
  /** The add-on picks (in `unitPrice`) and custom inputs of the line. */
  options: ItemOptions;
}

/** Errors of `orderable`, stays included (`priceStay`). */
export const ORDERABLE_ERRORS = {
  400: ['STAY_REQUIRED', 'STAY_NOT_APPLICABLE', 'STAY_INVALID'],
  404: ['PRODUCT_NOT_FOUND', 'VARIANT_NOT_FOUND'],
  409: ['INSUFFICIENT_STOCK', 'DATES_UNAVAILABLE'],
};

/**
 * What a buyer may order now: a product of the store on sale, a variant on sale, enough stock (or nights),
 * valid add-on picks and custom inputs, at today's buyer price (discount inside its period; a stay costs
 * the sum of its nights) plus the picked add-ons. `field` prefixes the line's form errors (`directItem`).
 */
export async function orderable(
  db: Db,
  storeId: string,
  now: number,
  line: { productId: string; optionId: string; quantity: number; stay?: Stay | null } & ItemOptionsRequest,
  field = '',
): Promise<Orderable> {
  const product = await findProduct(db, line.productId);
  if (!product || product.storeId !== storeId) throw fail(404, 'PRODUCT_NOT_FOUND', { productId: line.productId });
  // Sold out is said as such (a buyer may wait for a restock); suspended and ended products do not exist for buyers.
  if (product.status === 'SOLD_OUT') throw fail(409, 'INSUFFICIENT_STOCK', { productId: product.id, optionId: line.optionId, quantity: line.quantity });
  if (product.status !== 'ON_SALE') throw fail(404, 'PRODUCT_NOT_FOUND', { productId: line.productId });
  const variant = (await variantsOf(db, product.id)).find((v) => v.id === line.optionId);
  if (!variant || !variant.saleOn) throw fail(404, 'VARIANT_NOT_FOUND', { productId: product.id, optionId: line.optionId });
  // Only dated products (or a stay given to another, which priceStay refuses) need the calendar.
  const stay =
    product.inventoryMode === 'DATED' || line.stay ? await priceStay(db, storeId, product.id, variant.id, line.stay, { now, quantity: line.quantity }) : null;
  if (!stay && variant.stockQuantity < line.quantity)
    throw fail(409, 'INSUFFICIENT_STOCK', { productId: product.id, optionId: variant.id, quantity: line.quantity });
  const options = chooseItemOptions(product, line, field);
  return {
    product,
    variant,
    unitPrice: (stay ? stay.unitPrice : buyerUnitPrice(product, variant, now)) + addonAmountOf(options),
    stay: stay && { checkIn: stay.checkIn, checkOut: stay.checkOut, nights: stay.nights },
    options,
  };
}

/** The product's first picture, shown on cart and sheet lines. */
export const thumbnail = (origin: string, product: ProductRow) => (product.images[0] ? uploadUrl(origin, product.images[0]) : null);
