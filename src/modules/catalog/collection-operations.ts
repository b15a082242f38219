import { and, asc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { validationFailed, type FieldError } from '../../server/errors.js';
import { stated } from '../../server/formats.js';
import { defineOperation, reply, type StoreCtx } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import { requireOwned } from '../../server/tenancy.js';
import { categories, collections, products } from './schema.js';

const tag = 'Collections';

/** `all` and category ids are collections already (spec 02 §4.3); a seller's slug may not shadow them. */
const slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/, { message: '소문자, 숫자, 하이픈 60자 이하여야 합니다.' })
  .refine((s) => s !== 'all', { message: 'all은 예약된 이름입니다.' })
  .meta({ not: { const: 'all' } });

const collectionBody = z
  .object({
    slug,
    title: z.string().trim().min(1).max(100),
    productIds: z.array(z.string()).max(500).meta(stated.uniqueItems).optional(),
    rule: z.object({ categoryId: z.string() }).strict().optional(),
  })
  .strict()
  .refine((b) => (b.productIds === undefined) !== (b.rule === undefined), {
    message: 'productIds와 rule 중 하나만 보냅니다.',
    path: ['productIds'],
    params: { code: 'ONE_OF' },
  })
  .meta(stated.exactlyOne('productIds', 'rule'));

export const collectionView = z.object({
  collectionId: z.string(),
  slug: z.string(),
  title: z.string(),
  productIds: z.array(z.string()).nullable(),
  rule: z.object({ categoryId: z.string() }).nullable(),
  createdAt: instant,
  updatedAt: instant,
});

type CollectionRow = typeof collections.$inferSelect;
const present = (c: CollectionRow): z.output<typeof collectionView> => ({
  collectionId: c.id,
  slug: c.slug,
  title: c.title,
  productIds: c.productIds,
  rule: c.rule,
  createdAt: isoAt(c.createdAt),
  updatedAt: isoAt(c.updatedAt),
});

/** Products and the category must be this store's; the slug its own. */
async function problems(ctx: StoreCtx<z.output<typeof collectionBody>>, selfId: string | null): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const { productIds, rule } = ctx.body;
  const taken = await ctx.db
    .select({ id: collections.id })
    .from(collections)
    .where(and(eq(collections.storeId, ctx.store.id), eq(collections.slug, ctx.body.slug)))
    .get();
  if (taken && taken.id !== selfId) errors.push({ field: 'slug', code: 'TAKEN', message: '이미 쓰는 slug입니다.' });
  if (productIds?.length) {
    const found = new Set(
      (
        await ctx.db
          .select({ id: products.id })
          .from(products)
          .where(and(eq(products.storeId, ctx.store.id), inArray(products.id, productIds)))
          .all()
      ).map((p) => p.id),
    );
    productIds.forEach((id, i) => found.has(id) || errors.push({ field: `productIds.${i}`, code: 'NOT_FOUND', message: '이 상점에 없는 상품입니다.' }));
    if (new Set(productIds).size !== productIds.length) errors.push({ field: 'productIds', code: 'DUPLICATE', message: '같은 상품이 두 번 들어 있습니다.' });
  }
  if (
    rule &&
    !(await ctx.db
      .select({ id: categories.id })
      .from(categories)
      .where(and(eq(categories.storeId, ctx.store.id), eq(categories.id, rule.categoryId)))
      .get())
  ) {
    errors.push({ field: 'rule.categoryId', code: 'NOT_FOUND', message: '이 상점에 없는 카테고리입니다.' });
  }
  return errors;
}

export const collectionOperations = [
  defineOperation({
    operationId: 'listCollections',
    method: 'GET',
    path: '/v1/collections',
    summary: "The store's collections",
    tag,
    auth: 'store',
    scope: 'product:r',
    response: z.object({ contents: z.array(collectionView) }),
    handler: async (ctx) => ({
      contents: (await ctx.db.select().from(collections).where(eq(collections.storeId, ctx.store.id)).orderBy(asc(collections.slug)).all()).map(present),
    }),
  }),
  defineOperation({
    operationId: 'createCollection',
    method: 'POST',
    path: '/v1/collections',
    summary: 'Create a collection: chosen products, or a category and its sub-categories (rule)',
    tag,
    auth: 'store',
    scope: 'product:rw',
    status: 201,
    body: collectionBody,
    response: collectionView,
    target: () => ({ type: 'COLLECTION', id: null }),
    handler: async (ctx) => {
      const errors = await problems(ctx, null);
      if (errors.length) throw validationFailed(errors);
      const row: CollectionRow = {
        id: newId('col', ctx.now),
        storeId: ctx.store.id,
        slug: ctx.body.slug,
        title: ctx.body.title,
        productIds: ctx.body.productIds ?? null,
        rule: ctx.body.rule ?? null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.db.insert(collections).values(row).run();
      return reply(201, present(row));
    },
  }),
  defineOperation({
    operationId: 'replaceCollection',
    method: 'PUT',
    path: '/v1/collections/{collectionId}',
    summary: 'Replace a collection (slug, title, and its products or rule)',
    tag,
    auth: 'store',
    scope: 'product:rw',
    params: z.object({ collectionId: z.string() }).strict(),
    body: collectionBody,
    response: collectionView,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['COLLECTION_NOT_FOUND'] },
    target: (ctx) => ({ type: 'COLLECTION', id: ctx.params.collectionId }),
    handler: async (ctx) => {
      const found = requireOwned(
        await ctx.db.select().from(collections).where(eq(collections.id, ctx.params.collectionId)).get(),
        ctx.store.id,
        'COLLECTION_NOT_FOUND',
      );
      const errors = await problems(ctx, found.id);
      if (errors.length) throw validationFailed(errors);
      const row: CollectionRow = {
        ...found,
        slug: ctx.body.slug,
        title: ctx.body.title,
        productIds: ctx.body.productIds ?? null,
        rule: ctx.body.rule ?? null,
        updatedAt: ctx.now,
      };
      await ctx.db.update(collections).set(row).where(eq(collections.id, found.id)).run();
      return present(row);
    },
  }),
];
