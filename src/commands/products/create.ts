import { Flags, type Command } from '@oclif/core';
import { won } from '../../cli/format.js';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';

/** Product fields as flags; `--data` (inline JSON or @file.json) carries everything else and is merged under them. */
export const productFlags = {
  data: Flags.string({ description: 'Product body as JSON, inline or @file.json (flags override its fields)' }),
  name: Flags.string({ description: 'Name (at most 100 characters)' }),
  'sale-price': Flags.integer({ description: 'Sale price in KRW (at least 10, a multiple of 10)' }),
  'list-price': Flags.integer({ description: 'List price shown to buyers as originalPrice' }),
  category: Flags.string({ description: 'Category id (a lowest-level category)' }),
  status: Flags.option({ options: ['ON_SALE', 'SOLD_OUT', 'SUSPENDED', 'ENDED'] as const, description: 'Sale status' })(),
  stock: Flags.integer({ description: 'Stock of a product without options', min: 0 }),
  image: Flags.string({ description: 'Upload id of an image (repeatable; the first is the representative)', multiple: true }),
  option: Flags.string({ description: 'An option axis as NAME=V1,V2 (repeatable, at most 3)', multiple: true }),
  addon: Flags.string({
    description: 'An add-on group as NAME=V1:PRICE,V2 (price defaults to 0; NAME* makes it required; repeatable; replaces all add-ons)',
    multiple: true,
  }),
  input: Flags.string({
    description: 'A custom input as KEY:LABEL[:MAXLENGTH] or KEY:LABEL=CHOICE1,CHOICE2 (a SELECT; KEY* makes it required; repeatable; replaces all inputs)',
    multiple: true,
  }),
};

type ProductFlagValues = {
  data?: string;
  name?: string;
  'sale-price'?: number;
  'list-price'?: number;
  category?: string;
  status?: string;
  stock?: number;
  image?: string[];
  option?: string[];
  addon?: string[];
  input?: string[];
};

export function parseOptionAxis(spec: string) {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new UsageError(`--option "${spec}" must look like 색상=빨강,파랑`);
  return {
    name: spec.slice(0, eq).trim(),
    values: spec
      .slice(eq + 1)
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  };
}

/** `--addon 쇼핑백*=없음,있음:500`: a group of named values with prices, `*` for a required group. */
export function parseAddon(spec: string) {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new UsageError(`--addon "${spec}" must look like 선물포장=포장함:3000`);
  const head = spec.slice(0, eq).trim();
  const values = spec
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map((v) => {
      const colon = v.lastIndexOf(':');
      const price = colon > 0 ? Number(v.slice(colon + 1)) : 0;
      if (!Number.isInteger(price)) throw new UsageError(`--addon "${spec}": the price of "${v}" must be whole won`);
      return { name: colon > 0 ? v.slice(0, colon).trim() : v, additionalPrice: price };
    });
  return { name: head.replace(/\*$/, '').trim(), required: head.endsWith('*'), values };
}

/** `--input engraving*:각인 문구:10` (text) or `--input card:카드 색=빨강,파랑` (a choice); `*` for a required input. */
export function parseCustomInput(spec: string) {
  const eq = spec.indexOf('=');
  const [key = '', label = '', maxLength] = (eq >= 0 ? spec.slice(0, eq) : spec).split(':').map((p) => p.trim());
  if (!key || !label) throw new UsageError(`--input "${spec}" must look like engraving:각인 문구:10 or card:카드 색=빨강,파랑`);
  const options =
    eq >= 0
      ? spec
          .slice(eq + 1)
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean)
      : [];
  const length = maxLength === undefined ? (options.length ? 50 : 100) : Number(maxLength);
  if (!Number.isInteger(length)) throw new UsageError(`--input "${spec}": the maximum length must be a number`);
  return {
    key: key.replace(/\*$/, ''),
    label,
    placeholder: null,
    maxLength: length,
    required: key.endsWith('*'),
    type: options.length ? 'SELECT' : 'TEXT',
    options,
  };
}

/** Commands that send or show a whole product. */
export abstract class ProductCommand<T extends typeof Command> extends ApiCommand<T> {
  /** The request body: `--data` first, then every given flag on top. */
  protected productBody(f: ProductFlagValues): Record<string, unknown> {
    const body = f.data ? this.readJsonObject(f.data) : {};
    const fromFlags: Record<string, unknown> = {
      name: f.name,
      salePrice: f['sale-price'],
      listPrice: f['list-price'],
      categoryId: f.category,
      status: f.status,
      stockQuantity: f.stock,
      images: f.image,
      options: f.option?.map(parseOptionAxis),
      addons: f.addon?.map(parseAddon),
      customInputs: f.input?.map(parseCustomInput),
    };
    return { ...body, ...Object.fromEntries(Object.entries(fromFlags).filter(([, v]) => v !== undefined)) };
  }

  /** A product id, or a product number (digits) looked up in the chosen store. */
  protected async productPath(ref: string): Promise<string> {
    if (!/^\d+$/.test(ref)) return `/v1/products/${encodeURIComponent(ref)}`;
    const page = await this.storeRequest('GET', '/v1/products', { query: { productNo: ref } });
    if (page.contents.length === 0) throw new UsageError(`no product number ${ref} in this store`);
    return `/v1/products/${page.contents[0].productId}`;
  }

  protected showProduct(p: any) {
    this.log(`${p.name}  (${p.productId}, No. ${p.productNo})`);
    this.log(
      `  ${p.status} · ${won(p.salePrice)}${p.discount ? ` · 할인 ${won(p.discount.discountedPrice)} (${p.discount.startDate}~${p.discount.endDate})` : ''} · ${p.fulfillment.type} · 재고 ${p.stockQuantity}`,
    );
    if (p.options.length) this.log(`  옵션: ${p.options.map((o: any) => `${o.name}=${o.values.join(',')}`).join(' / ')}`);
    for (const a of p.addons ?? [])
      this.log(`  추가 상품${a.required ? '(필수)' : ''}: ${a.name} = ${a.values.map((v: any) => `${v.name} +${won(v.additionalPrice)}`).join(', ')}`);
    for (const c of p.customInputs ?? [])
      this.log(`  입력${c.required ? '(필수)' : ''}: ${c.key} "${c.label}" ${c.type === 'SELECT' ? c.options.join('/') : `최대 ${c.maxLength}자`}`);
    this.table(
      p.variants.map((v: any) => ({ ...v, optionValues: v.optionValues.join(' / ') || '(단일)' })),
      ['variantId', 'variantNo', 'optionValues', 'additionalAmount', 'stockQuantity', 'saleOn'],
      { money: ['additionalAmount'] },
    );
  }
}

export default class ProductsCreate extends ProductCommand<typeof ProductsCreate> {
  static override summary = 'Create a product (every option combination becomes a variant)';
  static override examples = [
    '<%= config.bin %> products create --name "머그컵" --sale-price 12000 --stock 50',
    '<%= config.bin %> products create --name 티셔츠 --sale-price 19900 --option 색상=화이트,블랙 --option 사이즈=S,M,L',
    '<%= config.bin %> products create --name 텀블러 --sale-price 25000 --stock 10 --addon "선물 포장=포장함:3000" --input "engraving*:각인 문구:10"',
    '<%= config.bin %> products create --data @product.json --json',
  ];
  static override flags = productFlags;

  async run() {
    const body = this.productBody(this.flags);
    if (body.name === undefined || body.salePrice === undefined) throw new UsageError('missing --name or --sale-price (or give them in --data)');
    const product = await this.storeRequest('POST', '/v1/products', { body });
    this.output(product, () => this.showProduct(product));
  }
}
