// Importing a saved option set (spec 01 §2.7) into a product: its add-on groups and custom inputs join the
// product's, its combination groups become the product's option axes while the product has no sales.
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { LIMITS, type ProductInput, type VariantSettings } from './inputs.js';
import { combinations, writeCtx, writeProduct } from './product-writes.js';
import { loadProduct, variantsOf, type ProductRow } from './product-rows.js';
import { presentProduct, productView } from './product-views.js';
import { optionSetImports, savedOptionSets, type CustomInput, type OptionSetGroup, type ProductAddon } from './schema.js';

defineMessages({
  OPTION_STRUCTURE_LOCKED: '판매 이력이 있는 상품의 옵션 조합은 바꿀 수 없습니다. 추가 상품과 입력 항목만 가져올 수 있습니다.',
});

type OptionSetRow = typeof savedOptionSets.$inferSelect;

/** Items of `incoming` replace those of `current` with the same name (a second import does not double them); others append. */
function mergeBy<T>(current: T[], incoming: T[], keyOf: (item: T) => string): T[] {
  const replaced = current.map((item) => incoming.find((n) => keyOf(n) === keyOf(item)) ?? item);
  return [...replaced, ...incoming.filter((n) => !current.some((c) => keyOf(c) === keyOf(n)))];
}

/** The product write a set makes: merged add-ons and inputs, and the set's combination groups as axes with their prices. */
export function importedInput(product: ProductRow, set: OptionSetRow): ProductInput {
  const addons: ProductAddon[] = set.groups.filter((g) => g.kind === 'ADDON').map(({ name, required, values }) => ({ name, required, values }));
  const input: ProductInput = {
    addons: mergeBy(product.addons, addons, (g) => g.name),
    customInputs: mergeBy<CustomInput>(product.customInputs, set.customInputs, (c) => c.key),
  };
  const axes = set.groups.filter((g) => g.kind === 'COMBINATION');
  if (axes.length === 0) return input;
  if (product.salesCount > 0) throw fail(409, 'OPTION_STRUCTURE_LOCKED', { productId: product.id, optionSetId: set.id });
  const count = axes.reduce((n, g) => n * g.values.length, 1);
  if (count > LIMITS.combinations)
    throw validationFailed([
      { field: 'groups', code: 'TOO_MANY_COMBINATIONS', message: `옵션 조합은 최대 ${LIMITS.combinations}개입니다 (세트: ${count}개).` },
    ]);
  input.options = axes.map((g) => ({ name: g.name, values: g.values.map((v) => v.name) }));
  // A combination costs the sum of its values' additional prices.
  const priceOf = (group: OptionSetGroup, value: string) => group.values.find((v) => v.name === value)!.additionalPrice;
  input.variants = combinations(input.options).map((values): VariantSettings => ({
    optionValues: values,
    additionalAmount: values.reduce((n, v, i) => n + priceOf(axes[i], v), 0),
  }));
  return input;
}

export const optionSetImportOperation = defineOperation({
  operationId: 'importSavedOptionSet',
  title: '저장된 옵션 세트 가져오기',
  method: 'POST',
  path: '/v1/products/{productId}/option-sets/{optionSetId}/import',
  summary: "Copy a saved option set's add-on groups and custom inputs (and combination groups, before any sale) into a product",
  tag: 'Catalog',
  auth: 'store',
  scope: 'product:rw',
  oneWriterPerStore: true,
  agent: 'approval',
  agentApprovalExemptWhilePrivate: true,
  params: z.object({ productId: z.string(), optionSetId: z.string() }).strict(),
  target: (ctx) => ({ type: 'PRODUCT', id: ctx.params.productId }),
  response: productView,
  errors: {
    400: ['INVALID_PRICE_UNIT'],
    403: ['TENANT_MISMATCH'],
    404: ['PRODUCT_NOT_FOUND', 'OPTION_SET_NOT_FOUND'],
    409: ['OPTION_STRUCTURE_LOCKED', 'PRODUCT_CHANGED', 'VARIANT_IN_ORDER'],
  },
  handler: async (ctx) => {
    const product = await loadProduct(ctx.db, ctx.store.id, ctx.params.productId);
    const set = requireOwned(
      await ctx.db.select().from(savedOptionSets).where(eq(savedOptionSets.id, ctx.params.optionSetId)).get(),
      ctx.store.id,
      'OPTION_SET_NOT_FOUND',
    );
    const { product: written } = await writeProduct(writeCtx(ctx), 'patch', product, importedInput(product, set));
    const first = await ctx.db
      .insert(optionSetImports)
      .values({ optionSetId: set.id, productId: product.id, storeId: ctx.store.id, importedAt: ctx.now })
      .onConflictDoNothing()
      .run();
    if (first.changes === 1)
      await ctx.db
        .update(savedOptionSets)
        .set({ importedProductCount: sql`${savedOptionSets.importedProductCount} + 1` })
        .where(eq(savedOptionSets.id, set.id))
        .run();
    return presentProduct(ctx.services.config.origin, written, await variantsOf(ctx.db, written.id), ctx.now);
  },
});
