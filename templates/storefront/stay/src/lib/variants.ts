import type { Product, Variant } from './types.js';

/** The variant whose option values are exactly `values` (one per option group, in the product's order). */
export const findVariant = (product: Product, values: string[]): Variant | undefined =>
  product.variants.find((v) => v.optionValues.length === values.length && v.optionValues.every((value, i) => value === values[i]));

/** What the page opens with: the first variant that can be bought, else the first one. */
export const initialVariant = (product: Product): Variant | undefined => product.variants.find((v) => !v.soldOut) ?? product.variants[0];

/** Form fields `option.0`, `option.1`, … name the chosen value of each option group. */
export const optionField = (index: number) => `option.${index}`;

export function variantFromForm(product: Product, form: URLSearchParams): Variant | undefined {
  if (product.options.length === 0) return product.variants[0];
  return findVariant(product, product.options.map((_, i) => form.get(optionField(i)) ?? ''));
}

export const isSoldOut = (product: Product) => product.variants.length === 0 || product.variants.every((v) => v.soldOut);
