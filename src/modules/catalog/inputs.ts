import { z } from 'zod';
import { stated } from '../../server/formats.js';
import { pageQuery } from '../../server/paging.js';
import { dateInput } from '../../server/validation.js';

/** Request schemas of the catalog (spec 01 §2.2–2.7 and the field names fixed by issue 3). */

const krw = z.number().int().min(0).max(1_000_000_000);
/**
 * Prices are checked for their unit in the handler: a wrong unit is `INVALID_PRICE_UNIT`, not a form error.
 * The OpenAPI document states the unit (and a full price's 10-won minimum) as the handler enforces them.
 */
const price = z.number().int().min(-1_000_000_000).max(1_000_000_000);
const fullPrice = price.meta({ minimum: 10, multipleOf: 10 });
const addOnAmount = price.meta({ multipleOf: 10 });
const id = z.string().min(1).max(64);

export const LIMITS = {
  axes: 3,
  valuesPerAxis: 100,
  combinations: 500,
  images: 10,
  nameLength: 100,
  bulk: 100,
  calendarDays: 400,
  buyerCalendarDays: 120,
  stayNights: 30,
  optionSets: 200,
  addonGroups: 20,
  customInputs: 20,
  stockQuantity: 1_000_000_000,
} as const;
/** A variant's (or a dated day's) stock as a seller sets it; adjustments are held to the same bound (stock.ts). */
const stock = z.number().int().min(0).max(LIMITS.stockQuantity);

export const productStatus = z.enum(['ON_SALE', 'SOLD_OUT', 'SUSPENDED', 'ENDED']);
export const inventoryMode = z.enum(['STANDARD', 'DATED']);

const optionValue = z.string().trim().min(1).max(50);

const duplicates = (values: string[]) => values.filter((v, i) => values.indexOf(v) !== i);

export const optionAxes = z
  .array(
    z
      .object({
        name: z.string().trim().min(1).max(30),
        values: z.array(optionValue).min(1).max(LIMITS.valuesPerAxis).meta(stated.uniqueItems),
      })
      .strict(),
  )
  .max(LIMITS.axes)
  .superRefine((axes, ctx) => {
    for (const name of duplicates(axes.map((a) => a.name)))
      ctx.addIssue({ code: 'custom', path: [], message: `옵션 이름 "${name}"이(가) 중복되었습니다.`, params: { code: 'DUPLICATE' } });
    axes.forEach((axis, i) => {
      for (const value of duplicates(axis.values))
        ctx.addIssue({ code: 'custom', path: [i, 'values'], message: `옵션 값 "${value}"이(가) 중복되었습니다.`, params: { code: 'DUPLICATE' } });
    });
    const combinations = axes.reduce((n, a) => n * a.values.length, 1);
    if (combinations > LIMITS.combinations) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `옵션 조합은 최대 ${LIMITS.combinations}개입니다 (요청: ${combinations}개).`,
        params: { code: 'TOO_MANY_COMBINATIONS' },
      });
    }
  });

const sku = z
  .object({
    barcode: z.string().max(64).nullable().optional(),
    sellerCode: z.string().max(64).nullable().optional(),
    cost: krw.nullable().optional(),
    weight: z.number().int().min(0).max(1_000_000_000).nullable().optional(),
  })
  .strict();

export const variantSettings = z
  .object({
    optionValues: z.array(optionValue).max(LIMITS.axes),
    additionalAmount: addOnAmount.optional(),
    stockQuantity: stock.optional(),
    saleOn: z.boolean().optional(),
    sku: sku.nullable().optional(),
  })
  .strict();
export type VariantSettings = z.infer<typeof variantSettings>;

/** What `shippingRules` checks, as the document states it. */
const SHIPPING_RULES = {
  allOf: [
    stated.when('deliveryType', ['FREE'], { properties: { deliveryFee: { const: 0 } } }),
    stated.when('deliveryType', ['CONDITIONAL_FREE'], { properties: { conditionalFreeAmount: { not: { type: 'null' } } } }),
  ],
};

const shipping = z
  .object({
    deliveryType: z.enum(['FREE', 'PAID', 'CONDITIONAL_FREE']),
    deliveryFee: krw,
    conditionalFreeAmount: krw.nullable(),
    shippingAddressId: id.nullable(),
    returnAddressId: id.nullable(),
  })
  .strict()
  .meta(SHIPPING_RULES);

const shippingRules = (s: Partial<z.infer<typeof shipping>> | undefined, ctx: z.RefinementCtx) => {
  if (!s) return;
  if (s.deliveryType === 'CONDITIONAL_FREE' && s.conditionalFreeAmount === null) {
    ctx.addIssue({
      code: 'custom',
      path: ['shipping', 'conditionalFreeAmount'],
      message: '조건부 무료 배송에는 무료 기준 금액이 필요합니다.',
      params: { code: 'REQUIRED' },
    });
  }
  if (s.deliveryType === 'FREE' && s.deliveryFee !== undefined && s.deliveryFee !== 0) {
    ctx.addIssue({ code: 'custom', path: ['shipping', 'deliveryFee'], message: '무료 배송의 배송비는 0이어야 합니다.', params: { code: 'INVALID_VALUE' } });
  }
};

const manual = z.object({ type: z.literal('MANUAL') }).strict();

/** PUT and PATCH: a given `fulfillment` replaces the whole object, so every inner field is required (rule 2). */
export const fulfillmentReplace = z
  .discriminatedUnion('type', [z.object({ type: z.literal('SHIPPING'), shipping }).strict(), manual])
  .superRefine((f, ctx) => shippingRules(f.type === 'SHIPPING' ? f.shipping : undefined, ctx));

/** Creation: omitted inner fields take the store defaults of that moment (rule 1). */
export const fulfillmentCreate = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('SHIPPING'), shipping: shipping.partial().strict().meta(SHIPPING_RULES).optional() }).strict(),
    manual,
  ])
  .superRefine((f, ctx) => shippingRules(f.type === 'SHIPPING' ? f.shipping : undefined, ctx));

export type FulfillmentInput = z.infer<typeof fulfillmentCreate>;

export const refundOverride = z
  .object({
    returnDeliveryFee: krw.nullable().optional(),
    exchangeDeliveryFee: krw.nullable().optional(),
    preShipmentDeliveryFeeRefund: z.boolean().nullable().optional(),
  })
  .strict();

const customInput = z
  .object({
    label: z.string().trim().min(1).max(50),
    placeholder: z.string().max(100).nullable(),
    maxLength: z.number().int().min(1).max(1000),
    required: z.boolean(),
    key: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,39}$/),
    type: z.enum(['TEXT', 'TEXTAREA', 'SELECT']),
    options: z.array(z.string().min(1).max(50)).max(50),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.type === 'SELECT' && c.options.length === 0)
      ctx.addIssue({ code: 'custom', path: ['options'], message: '선택형 입력에는 선택지가 필요합니다.', params: { code: 'REQUIRED' } });
  })
  .meta(stated.when('type', ['SELECT'], { properties: { options: { minItems: 1 } } }));

/** Custom inputs of a product or a saved set: keys are unique, since an order's text is keyed by them. */
export const customInputs = z
  .array(customInput)
  .max(LIMITS.customInputs)
  .superRefine((inputs, ctx) => {
    for (const key of duplicates(inputs.map((c) => c.key)))
      ctx.addIssue({ code: 'custom', path: [], message: `입력 키 "${key}"이(가) 중복되었습니다.`, params: { code: 'DUPLICATE' } });
  });

/** A product's add-on group (issue 30): extras on top of the variant, priced from 0 in 10-won units (checked by the write). */
const addonGroup = z
  .object({
    name: z.string().trim().min(1).max(30),
    required: z.boolean(),
    values: z
      .array(z.object({ name: optionValue, additionalPrice: price.min(0).meta({ multipleOf: 10 }) }).strict())
      .min(1)
      .max(LIMITS.valuesPerAxis),
  })
  .strict();

export const productAddons = z
  .array(addonGroup)
  .max(LIMITS.addonGroups)
  .superRefine((groups, ctx) => {
    for (const name of duplicates(groups.map((g) => g.name)))
      ctx.addIssue({ code: 'custom', path: [], message: `추가 상품 이름 "${name}"이(가) 중복되었습니다.`, params: { code: 'DUPLICATE' } });
    groups.forEach((group, i) => {
      for (const value of duplicates(group.values.map((v) => v.name)))
        ctx.addIssue({ code: 'custom', path: [i, 'values'], message: `추가 상품 값 "${value}"이(가) 중복되었습니다.`, params: { code: 'DUPLICATE' } });
    });
  });

const productFields = {
  name: z.string().trim().min(1).max(LIMITS.nameLength),
  salePrice: fullPrice,
  listPrice: krw.nullable(),
  categoryId: id.nullable(),
  images: z.array(id).max(LIMITS.images),
  status: productStatus,
  stockQuantity: stock,
  options: optionAxes,
  variants: z.array(variantSettings).max(LIMITS.combinations),
  fulfillment: fulfillmentReplace,
  refundPolicy: refundOverride.nullable(),
  inventoryMode,
  flowId: id.nullable(),
  pointEarnRateBp: z.number().int().min(0).max(10_000).nullable(),
  isSample: z.boolean(),
  addons: productAddons,
  customInputs,
};

const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const { name, salePrice, ...rest } = productFields;

/**
 * The write's stock rules (service.ts), stated for the document: a product with options keeps its stock per
 * variant, and `stockQuantity` is not sent beside the stock of the variant without options.
 */
const STOCK_PER_VARIANT = {
  allOf: [
    { if: { properties: { options: { minItems: 1 } }, required: ['options'] }, then: { not: { required: ['stockQuantity'] } } },
    {
      not: {
        required: ['stockQuantity', 'variants'],
        properties: { variants: { contains: { properties: { optionValues: { maxItems: 0 } }, required: ['stockQuantity'] } } },
      },
    },
  ],
};
export const productCreate = z
  .object({ name, salePrice, ...optional(rest), fulfillment: fulfillmentCreate.optional() })
  .strict()
  .meta(STOCK_PER_VARIANT);
export const productReplace = z
  .object({ name, salePrice, ...optional(rest) })
  .strict()
  .meta(STOCK_PER_VARIANT);
export const productPatch = z.object(optional(productFields)).strict().meta(STOCK_PER_VARIANT);

export type ProductPatch = z.infer<typeof productPatch>;
/** Every product write after parsing: creation and replacement fill omitted fields, a patch does not. */
export type ProductInput = Omit<ProductPatch, 'fulfillment'> & { fulfillment?: FulfillmentInput };

export const optionsReplace = z.object({ options: optionAxes, variants: z.array(variantSettings).max(LIMITS.combinations).optional() }).strict();

export const stockChange = z
  .object({ stockQuantity: stock.optional(), adjustment: z.number().int().min(-LIMITS.stockQuantity).max(LIMITS.stockQuantity).optional() })
  .strict()
  .superRefine((b, ctx) => {
    if ((b.stockQuantity === undefined) === (b.adjustment === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'stockQuantity와 adjustment 중 정확히 하나를 보내야 합니다.',
        params: { code: 'EXACTLY_ONE_REQUIRED' },
      });
    }
  })
  .meta(stated.exactlyOne('stockQuantity', 'adjustment'));

export const discountBody = z
  .object({
    method: z.enum(['PERCENT', 'AMOUNT']),
    value: z.number().int().min(1).max(1_000_000_000),
    startDate: dateInput,
    endDate: dateInput,
  })
  .strict()
  // checkDiscount's rules of the request alone (an amount must also stay below the product's price).
  .meta(stated.when('method', ['PERCENT'], { properties: { value: { maximum: 99 } } }, { properties: { value: { minimum: 10, multipleOf: 10 } } }));

export const calendarWrite = z
  .object({
    variantIds: z.array(id).min(1).max(LIMITS.combinations),
    from: dateInput,
    to: dateInput,
    stock: stock.optional(),
    price: fullPrice.nullable().optional(),
    daysOfWeek: z.array(z.number().int().min(0).max(6)).min(1).max(7).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.stock === undefined && b.price === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'stock 또는 price 중 하나 이상을 보내야 합니다.', params: { code: 'NOTHING_TO_CHANGE' } });
    }
  })
  .meta(stated.atLeastOne('stock', 'price'));

export const dateRange = z.object({ from: dateInput.optional(), to: dateInput.optional() }).strict();

export const productListQuery = z
  .object({
    ...pageQuery(100),
    productNo: z.coerce.number().int().min(1).optional(),
    keyword: z.string().trim().min(1).max(100).optional(),
    status: z
      .string()
      .transform((s) => s.split(',').map((v) => v.trim()))
      .pipe(z.array(productStatus).min(1))
      .optional(),
    categoryId: id.optional(),
    inventoryMode: inventoryMode.optional(),
  })
  .strict();
export type ProductListQuery = z.infer<typeof productListQuery>;

export const bulkStatus = z.object({ productIds: z.array(id).min(1).max(LIMITS.bulk), status: productStatus }).strict();

export const categoryCreate = z
  .object({ name: z.string().trim().min(1).max(50), parentId: id.nullable().optional(), flowId: id.nullable().optional() })
  .strict();
export const categoryPatch = categoryCreate.partial().strict();

const optionSetGroup = z
  .object({
    name: z.string().trim().min(1).max(30),
    kind: z.enum(['COMBINATION', 'ADDON']),
    required: z.boolean(),
    values: z
      .array(z.object({ name: optionValue, additionalPrice: price }).strict())
      .min(1)
      .max(LIMITS.valuesPerAxis),
  })
  .strict();

export const optionSetBody = z
  .object({
    name: z.string().trim().min(1).max(50),
    optionSort: z.enum(['REGISTERED', 'NAME']).default('REGISTERED'),
    groups: z.array(optionSetGroup).max(LIMITS.axes + 10),
    customInputs: customInputs.default([]),
  })
  .strict()
  .superRefine((b, ctx) => {
    const combos = b.groups.filter((g) => g.kind === 'COMBINATION');
    if (combos.length > LIMITS.axes)
      ctx.addIssue({ code: 'custom', path: ['groups'], message: `조합형 옵션은 최대 ${LIMITS.axes}개입니다.`, params: { code: 'TOO_LONG' } });
  });

export const optionSetListQuery = z
  .object({
    ...pageQuery(200),
    keyword: z.string().trim().min(1).max(50).optional(),
    composition: z.enum(['combination', 'addon', 'customInput']).optional(),
    sort: z.enum(['updatedAt.desc', 'name.asc', 'importedProductCount.desc']).default('updatedAt.desc'),
  })
  .strict();

export const collectionQuery = z.object(pageQuery(100)).strict();
