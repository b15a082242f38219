// What a buyer chose of a product's add-on groups and custom inputs (issue 30), checked against the product.
import { validationFailed, type FieldError } from '../../server/errors.js';
import type { ProductRow } from './product-rows.js';

/** A buyer's pick of one add-on group: the group's and the value's names. */
export interface AddonSelection {
  name: string;
  value: string;
}

/** What the order item keeps (spec 01 §6.2 `itemOptions`): each pick with its price, each input with its label. */
export interface ItemOptions {
  optionSelections: { name: string; value: string; additionalPrice: number }[];
  customInputs: { key: string; label: string; value: string }[];
}

/** The buyer's request for a line: picks by group name, input text by key. */
export interface ItemOptionsRequest {
  addonSelections?: AddonSelection[] | null;
  customInputs?: Record<string, string> | null;
}

export const NO_ITEM_OPTIONS: ItemOptions = { optionSelections: [], customInputs: [] };

/** Won the picks add to one unit. */
export const addonAmountOf = (options: ItemOptions) => options.optionSelections.reduce((n, s) => n + s.additionalPrice, 0);

/**
 * Checks a line's picks and inputs against the product: every required group picked, every required input
 * filled, nothing unknown, text within `maxLength`, a SELECT value among its options. All problems at once,
 * as 400 VALIDATION_FAILED whose fields sit under `field` (e.g. `directItem`).
 */
export function chooseItemOptions(product: Pick<ProductRow, 'addons' | 'customInputs'>, request: ItemOptionsRequest, field: string): ItemOptions {
  const at = (rest: string) => (field ? `${field}.${rest}` : rest);
  const errors: FieldError[] = [];
  const optionSelections: ItemOptions['optionSelections'] = [];
  const picked = new Set<string>();
  (request.addonSelections ?? []).forEach((selection, i) => {
    const group = product.addons.find((g) => g.name === selection.name);
    if (!group) return errors.push({ field: at(`addonSelections.${i}.name`), code: 'UNKNOWN_ADDON', message: '상품에 없는 추가 상품입니다.' });
    if (picked.has(group.name))
      return errors.push({ field: at(`addonSelections.${i}.name`), code: 'DUPLICATE', message: '같은 추가 상품을 두 번 골랐습니다.' });
    picked.add(group.name);
    const value = group.values.find((v) => v.name === selection.value);
    if (!value) return errors.push({ field: at(`addonSelections.${i}.value`), code: 'NOT_IN_OPTIONS', message: '추가 상품에 없는 값입니다.' });
    optionSelections.push({ name: group.name, value: value.name, additionalPrice: value.additionalPrice });
  });
  for (const group of product.addons) {
    if (group.required && !picked.has(group.name))
      errors.push({ field: at('addonSelections'), code: 'REQUIRED', message: `필수 추가 상품 "${group.name}"을(를) 고르세요.` });
  }

  const given = request.customInputs ?? {};
  for (const key of Object.keys(given)) {
    if (!product.customInputs.some((c) => c.key === key))
      errors.push({ field: at(`customInputs.${key}`), code: 'UNKNOWN_FIELD', message: '상품에 없는 입력 항목입니다.' });
  }
  const customInputs: ItemOptions['customInputs'] = [];
  for (const input of product.customInputs) {
    const value = (given[input.key] ?? '').trim();
    const fieldOf = at(`customInputs.${input.key}`);
    if (value === '') {
      if (input.required) errors.push({ field: fieldOf, code: 'REQUIRED', message: `"${input.label}"을(를) 입력하세요.` });
      continue;
    }
    if ([...value].length > input.maxLength)
      errors.push({ field: fieldOf, code: 'TOO_LONG', message: `"${input.label}"은(는) ${input.maxLength}자까지 쓸 수 있습니다.` });
    else if (input.type === 'SELECT' && !input.options.includes(value))
      errors.push({ field: fieldOf, code: 'NOT_IN_OPTIONS', message: `"${input.label}"의 선택지가 아닙니다.` });
    else customInputs.push({ key: input.key, label: input.label, value });
  }
  if (errors.length) throw validationFailed(errors);
  return { optionSelections, customInputs };
}
