import { and, eq, inArray, sql } from 'drizzle-orm';
import { pageOf, paginated } from '../../server/paging.js';
import { calendarDate, won } from '../../server/responses.js';
import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation, type Ctx } from '../../server/registry.js';
import { today } from '../../kernel/dates.js';
import { period, PERIOD_ERRORS } from './dates.js';
import { collectionQuery, dateRange, LIMITS } from './inputs.js';
import { calendarDays, requireDated } from './product-calendar.js';
import { categories, collections, products } from './schema.js';
import { preparedFor } from '../../db/prepared.js';
import { storeIdNamedBy } from '../stores/index.js';
import { discountActive, discountedPrice } from './prices.js';
import { cachedPage, pageOf as productPage } from './product-listing.js';
import { findProduct, findProductByNo, variantsOf, type ProductRow } from './product-rows.js';
import { buyerProductView, presentBuyerProduct } from './product-views.js';

defineMessages({ COLLECTION_NOT_FOUND: '컬렉션을 찾을 수 없습니다.' });

const tag = 'Storefront catalog';

/**
 * Buyer requests name their store with `X-Store-Id` (as admin requests do). A product id finds its store by
 * itself; a product number or a collection needs the header. Only products on sale exist for buyers.
 */
const buyerStoreId = async (ctx: Ctx) => {
  const header = ctx.event.req.headers.get('x-store-id');
  return header === null ? null : await storeIdNamedBy(ctx.db, header);
};

async function buyerProduct(ctx: Ctx<unknown, unknown, { productId: string }>): Promise<ProductRow> {
  const storeId = await buyerStoreId(ctx);
  const ref = ctx.params.productId;
  let product: ProductRow | undefined;
  if (/^\d{1,15}$/.test(ref)) {
    if (!storeId) throw fail(400, 'STORE_ID_REQUIRED');
    product = await findProductByNo(ctx.db, storeId, Number(ref));
  } else {
    product = await findProduct(ctx.db, ref);
  }
  if (!product || product.status !== 'ON_SALE' || (storeId !== null && product.storeId !== storeId)) throw fail(404, 'PRODUCT_NOT_FOUND');
  return product;
}

/** Category ids of a collection: the category and everything under it. */
function collectionCategories(all: { id: string; parentId: string | null }[], rootId: string) {
  const ids = [rootId];
  for (let i = 0; i < ids.length; i++) for (const c of all) if (c.parentId === ids[i]) ids.push(c.id);
  return ids;
}

const productParams = z.object({ productId: z.string() }).strict();
/** A buyer's product lookup: a product number needs X-Store-Id; a product not on sale does not exist for buyers. */
const BUYER_PRODUCT_LOOKUP = { 400: ['STORE_ID_REQUIRED'], 404: ['PRODUCT_NOT_FOUND'] } as const;

const buyerCalendarView = z.object({
  productId: z.string(),
  from: calendarDate,
  to: calendarDate,
  variants: z
    .array(
      z.object({
        variantId: z.string(),
        optionId: z.string().describe('= variantId'),
        optionValues: z.array(z.string()),
        days: z.array(
          z.object({
            date: calendarDate,
            available: z.boolean().describe('A night can be booked: stock left and not in the past'),
            price: won.describe('Price of the night'),
          }),
        ),
      }),
    )
    .describe('Variants on sale only'),
});

/** Read on every storefront page that lists products (the page itself is cached): prepared once. */
const q = preparedFor((db) => ({
  collection: db
    .select()
    .from(collections)
    .where(and(eq(collections.storeId, sql.placeholder('storeId')), eq(collections.slug, sql.placeholder('slug'))))
    .prepare(),
}));

export const storefrontOperations = [
  defineOperation({
    operationId: 'storefrontGetProduct',
    method: 'GET',
    path: '/storefront/v1/products/{productId}',
    summary: 'A product on sale, by id or by product number (the number needs X-Store-Id)',
    tag,
    auth: 'none',
    params: productParams,
    response: buyerProductView,
    errors: BUYER_PRODUCT_LOOKUP,
    handler: async (ctx) => {
      const product = await buyerProduct(ctx);
      return presentBuyerProduct(ctx.services.config.origin, product, await variantsOf(ctx.db, product.id), ctx.now);
    },
  }),
  defineOperation({
    operationId: 'storefrontGetProductCalendar',
    method: 'GET',
    path: '/storefront/v1/products/{productId}/calendar',
    summary: 'Availability and price per variant and day of a dated product (at most 120 days; no stock counts)',
    tag,
    auth: 'none',
    params: productParams,
    query: dateRange,
    response: buyerCalendarView,
    errors: { ...BUYER_PRODUCT_LOOKUP, 400: [...BUYER_PRODUCT_LOOKUP[400], ...PERIOD_ERRORS[400]], 409: ['INVENTORY_MODE_NOT_DATED'] },
    handler: async (ctx) => {
      const product = await buyerProduct(ctx);
      requireDated(product);
      const { from, to } = period(ctx.query, ctx.now, LIMITS.buyerCalendarDays);
      const day = today(ctx.now);
      const base = discountActive(product.discount, day) ? discountedPrice(product.salePrice, product.discount) : product.salePrice;
      const variants = (await calendarDays(ctx.db, product, from, to, (add) => base + add)).filter(({ variant }) => variant.saleOn);
      return {
        productId: product.id,
        from,
        to,
        variants: variants.map(({ variant, days }) => ({
          variantId: variant.id,
          optionId: variant.id,
          optionValues: variant.optionValues,
          days: days.map((d) => ({ date: d.date, available: d.stock > 0 && d.date >= day, price: d.price })),
        })),
      };
    },
  }),
  defineOperation({
    operationId: 'storefrontListCollectionProducts',
    method: 'GET',
    path: '/storefront/v1/collections/{slug}/products',
    summary: "Products on sale in a collection: the seller's collection by slug, `all`, or a category id (sub-categories included); needs X-Store-Id",
    tag,
    auth: 'none',
    params: z.object({ slug: z.string() }).strict(),
    query: collectionQuery,
    response: pageOf(buyerProductView),
    errors: { 400: ['STORE_ID_REQUIRED'], 404: ['COLLECTION_NOT_FOUND'] },
    handler: async (ctx) => {
      const storeId = await buyerStoreId(ctx);
      if (!storeId) throw fail(400, 'STORE_ID_REQUIRED');
      const filters = [eq(products.status, 'ON_SALE')];
      const own = await q(ctx.db).collection.get({ storeId, slug: ctx.params.slug });
      const categoryId = own ? own.rule?.categoryId : ctx.params.slug === 'all' ? undefined : ctx.params.slug;
      let categoryIds: string[] = [];
      if (own?.productIds) filters.push(inArray(products.id, own.productIds));
      if (categoryId !== undefined) {
        const all = await ctx.db.select({ id: categories.id, parentId: categories.parentId }).from(categories).where(eq(categories.storeId, storeId)).all();
        if (!all.some((c) => c.id === categoryId)) throw fail(404, 'COLLECTION_NOT_FOUND', { slug: ctx.params.slug });
        categoryIds = collectionCategories(all, categoryId);
        filters.push(inArray(products.categoryId, categoryIds));
      }
      // The category tree and the collection's own version are part of the key: changing either changes the page without touching products.
      return cachedPage(
        ctx.db,
        storeId,
        `collection ${today(ctx.now)} ${ctx.query.page} ${ctx.query.size} ${own ? `${own.id}@${own.updatedAt}` : ''} ${categoryIds.join(',')}`,
        async () => {
          const { rows, variants, page, size, total } = await productPage(ctx.db, storeId, filters, ctx.query.page, ctx.query.size);
          const origin = ctx.services.config.origin;
          return paginated(
            rows.map((p) => presentBuyerProduct(origin, p, variants.get(p.id)!, ctx.now)),
            page,
            size,
            total,
          );
        },
      );
    },
  }),
];
