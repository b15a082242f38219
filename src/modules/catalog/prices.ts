// Product prices: the price unit rule, discounts and what a buyer pays for one unit now.
import { fail } from '../../server/errors.js';
import { today } from '../../kernel/dates.js';
import type { ProductRow, VariantRow } from './product-rows.js';
import type { Discount } from './schema.js';

/** Prices: at least 10 won and a multiple of 10 (spec 01 §2.2). Add-ons may be negative but keep the unit. */
export function assertPriceUnit(field: string, value: number, { addOn = false } = {}) {
  if (value % 10 !== 0 || (!addOn && value < 10)) throw fail(400, 'INVALID_PRICE_UNIT', { field, value, minimum: addOn ? null : 10, unit: 10 });
}

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
