import { won } from './format.js';
import { html } from './html.js';
import type { Product } from './types.js';

/**
 * The product's add-on groups and custom inputs as form fields: `addon.<group>` holds the chosen value's
 * name (empty: none), `input.<key>` the buyer's text. The buyer API checks them again and answers
 * `fieldErrors` such as `directItem.customInputs.<key>`.
 */
export function itemOptionFields(product: Product, form?: URLSearchParams) {
  const addons = product.addons.map((group) => {
    const chosen = form?.get(`addon.${group.name}`) ?? '';
    return html`<label class="field"><span>${group.name}${group.required ? ' (필수)' : ''}</span>
<select name="addon.${group.name}" data-addon${group.required ? html` required` : ''}>
<option value="">${group.required ? '선택하세요' : '선택 안 함'}</option>
${group.values.map((v) => html`<option value="${v.name}" data-price="${v.additionalPrice}"${chosen === v.name ? html` selected` : ''}>${v.name}${v.additionalPrice ? ` (+${won(v.additionalPrice)})` : ''}</option>`)}
</select></label>`;
  });
  const inputs = product.customInputs.map((input) => {
    const name = `input.${input.key}`;
    const value = form?.get(name) ?? '';
    const label = html`<span>${input.label}${input.required ? ' (필수)' : ''}</span>`;
    const required = input.required ? html` required` : '';
    if (input.type === 'SELECT')
      return html`<label class="field">${label}<select name="${name}"${required}><option value="">선택하세요</option>${input.options.map((o) => html`<option value="${o}"${value === o ? html` selected` : ''}>${o}</option>`)}</select></label>`;
    if (input.type === 'TEXTAREA')
      return html`<label class="field">${label}<textarea name="${name}" maxlength="${input.maxLength}" placeholder="${input.placeholder ?? ''}"${required}>${value}</textarea></label>`;
    return html`<label class="field">${label}<input type="text" name="${name}" value="${value}" maxlength="${input.maxLength}" placeholder="${input.placeholder ?? ''}"${required}></label>`;
  });
  return [addons, inputs];
}

/** `addonSelections` and `customInputs` of a cart add or direct item, from the submitted form (only what was filled). */
export function itemOptionsFromForm(product: Product, form: URLSearchParams) {
  const addonSelections = product.addons.flatMap((g) => {
    const value = form.get(`addon.${g.name}`);
    return value ? [{ name: g.name, value }] : [];
  });
  const customInputs = Object.fromEntries(product.customInputs.flatMap((c) => {
    const value = (form.get(`input.${c.key}`) ?? '').trim();
    return value ? [[c.key, value]] : [];
  }));
  return {
    ...(addonSelections.length ? { addonSelections } : {}),
    ...(Object.keys(customInputs).length ? { customInputs } : {}),
  };
}

/** Won the chosen add-ons add to one unit, to show the price the sheet will charge. */
export function addonAmountOf(product: Product, form: URLSearchParams) {
  return product.addons.reduce((n, g) => n + (g.values.find((v) => v.name === form.get(`addon.${g.name}`))?.additionalPrice ?? 0), 0);
}

/** A line's picks and inputs as the cart, checkout and order-complete pages show them: `선물 포장: 포장함 · 각인 문구: 사랑해`. */
export const chosenOptionsLabel = (item: { optionSelections: { name: string; value: string }[]; customInputs: { label: string; value: string }[] }) =>
  [...item.optionSelections.map((s) => `${s.name}: ${s.value}`), ...item.customInputs.map((c) => `${c.label}: ${c.value}`)].join(' · ');
