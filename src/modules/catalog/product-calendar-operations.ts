import { inArray, sql, type SQL } from 'drizzle-orm';
import { calendarDate, won } from '../../server/responses.js';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { defineOperation } from '../../server/registry.js';
import { datesIn, dayOfWeek } from '../../kernel/dates.js';
import { period, PERIOD_ERRORS } from './dates.js';
import { calendarWrite, dateRange, LIMITS } from './inputs.js';
import { productCalendar, productVariants } from './schema.js';
import { assertPriceUnit } from './prices.js';
import { calendarDays, requireDated } from './product-calendar.js';
import { approvedProductWrite, load, PRODUCT_LOOKUP, productParams, productTarget, tag } from './product-operation-parts.js';
import { touchProduct, type ProductRow } from './product-rows.js';

const calendarStatements = preparedFor((db: Db) => {
  const upsert = (set: { stock?: SQL; price?: SQL }) =>
    db
      .insert(productCalendar)
      .values({
        variantId: sql.placeholder('variantId'),
        date: sql.placeholder('date'),
        storeId: sql.placeholder('storeId'),
        productId: sql.placeholder('productId'),
        stock: sql.placeholder('stock'),
        price: sql.placeholder('price'),
      })
      .onConflictDoUpdate({ target: [productCalendar.variantId, productCalendar.date], set })
      .prepare();
  return {
    both: upsert({ stock: sql`excluded.stock`, price: sql`excluded.price` }),
    stock: upsert({ stock: sql`excluded.stock` }),
    price: upsert({ price: sql`excluded.price` }),
  };
});

/** Variants named by id must be this product's; another store's is TENANT_MISMATCH. */
async function requireVariantsOf(db: Db, product: ProductRow, ids: string[]) {
  const rows = await db
    .select({ id: productVariants.id, storeId: productVariants.storeId, productId: productVariants.productId })
    .from(productVariants)
    .where(inArray(productVariants.id, ids))
    .all();
  for (const id of ids) {
    const row = rows.find((r) => r.id === id);
    if (row && row.storeId !== product.storeId) throw fail(403, 'TENANT_MISMATCH', { variantId: id });
    if (!row || row.productId !== product.id) throw fail(404, 'VARIANT_NOT_FOUND', { productId: product.id, variantId: id });
  }
}

const productCalendarView = z.object({
  productId: z.string(),
  from: calendarDate,
  to: calendarDate,
  variants: z.array(
    z.object({
      variantId: z.string(),
      optionValues: z.array(z.string()),
      days: z.array(
        z.object({
          date: calendarDate,
          stock: z.number().int().describe('0 for a day absent from the calendar (not sold)'),
          price: won.describe("The day's price, else salePrice plus the variant's additional amount"),
          priceSet: z.boolean().describe('Whether the day has a price of its own'),
        }),
      ),
    }),
  ),
});

/** A dated product's calendar: stock and price per variant and day. */
export const productCalendarOperations = [
  defineOperation({
    operationId: 'putProductCalendar',
    title: '날짜별 재고·가격 설정',
    method: 'PUT',
    path: '/v1/products/{productId}/calendar',
    summary: 'Set dated stock and/or price per variant and day (at most 400 days); only sent fields change',
    ...approvedProductWrite,
    body: calendarWrite,
    target: productTarget,
    response: z.object({
      productId: z.string(),
      variantIds: z.array(z.string()),
      from: calendarDate,
      to: calendarDate,
      updatedDays: z.number().int().describe('Days written per variant (daysOfWeek applied)'),
    }),
    errors: {
      400: ['INVALID_PARAMETER', 'RANGE_TOO_WIDE', 'INVALID_PRICE_UNIT'],
      403: ['TENANT_MISMATCH'],
      404: ['PRODUCT_NOT_FOUND', 'VARIANT_NOT_FOUND'],
      409: ['INVENTORY_MODE_NOT_DATED'],
    },
    handler: async (ctx) => {
      const product = await load(ctx);
      requireDated(product);
      const { from, to } = period(ctx.body, ctx.now, LIMITS.calendarDays);
      if (typeof ctx.body.price === 'number') assertPriceUnit('price', ctx.body.price);
      const variantIds = [...new Set(ctx.body.variantIds)];
      await requireVariantsOf(ctx.db, product, variantIds);
      const days = ctx.body.daysOfWeek ? new Set(ctx.body.daysOfWeek) : null;
      const dates = datesIn(from, to).filter((d) => !days || days.has(dayOfWeek(d)));
      const s = calendarStatements(ctx.db);
      const statement = ctx.body.stock !== undefined && ctx.body.price !== undefined ? s.both : ctx.body.stock !== undefined ? s.stock : s.price;
      // A day first written with only a price has no stock yet: absent days have stock 0 (spec 01 §2.6).
      const values = { storeId: ctx.store.id, productId: product.id, stock: ctx.body.stock ?? 0, price: ctx.body.price ?? null };
      for (const variantId of variantIds) for (const date of dates) await statement.run({ ...values, variantId, date });
      await touchProduct(ctx.db, product.id, ctx.now);
      return { productId: product.id, variantIds, from, to, updatedDays: dates.length };
    },
  }),
  defineOperation({
    operationId: 'getProductCalendar',
    method: 'GET',
    path: '/v1/products/{productId}/calendar',
    summary: 'Dated stock and price per variant and day (default: 30 days from today)',
    tag,
    auth: 'store',
    scope: 'product:r',
    params: productParams,
    query: dateRange,
    response: productCalendarView,
    errors: { ...PRODUCT_LOOKUP, ...PERIOD_ERRORS, 409: ['INVENTORY_MODE_NOT_DATED'] },
    handler: async (ctx) => {
      const product = await load(ctx);
      requireDated(product);
      const { from, to } = period(ctx.query, ctx.now, LIMITS.calendarDays);
      const variants = await calendarDays(ctx.db, product, from, to, (add) => product.salePrice + add);
      return {
        productId: product.id,
        from,
        to,
        variants: variants.map(({ variant, days }) => ({ variantId: variant.id, optionValues: variant.optionValues, days })),
      };
    },
  }),
];
