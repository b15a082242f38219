import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { instant } from '../../server/responses.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineOperation, type StoreCtx } from '../../server/registry.js';
import { categoryCreate, categoryPatch } from './inputs.js';
import { categories, products } from './schema.js';
import { hasChildCategory, loadCategory } from './product-rows.js';
import { requireFlowId } from './references.js';

const tag = 'Catalog';
const params = z.object({ categoryId: z.string() }).strict();
const target = (ctx: { params: { categoryId: string } }) => ({ type: 'CATEGORY', id: ctx.params.categoryId });
type CategoryRow = typeof categories.$inferSelect;

const hasProducts = async (db: Db, storeId: string, categoryId: string) =>
  (await db
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.storeId, storeId), eq(products.categoryId, categoryId)))
    .limit(1)
    .get()) !== undefined;

const categoryView = z.object({
  categoryId: z.string(),
  name: z.string(),
  parentId: z.string().nullable().describe('null for a top-level category'),
  flowId: z.string().nullable().describe('Order flow assigned to the category (lowest-level categories only)'),
  leaf: z.boolean().describe('True when the category has no sub-category: only such a category takes products and flows'),
  createdAt: instant,
  updatedAt: instant,
});
/** A category named by id: missing, or another store's. */
const CATEGORY_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['CATEGORY_NOT_FOUND'] } as const;
/** Writes look up the category or its new parent, and refuse one in use (a parent holding products or a flow, a deleted category holding anything). */
const CATEGORY_WRITE = { ...CATEGORY_LOOKUP, 404: ['CATEGORY_NOT_FOUND', 'FLOW_NOT_FOUND'], 409: ['CATEGORY_IN_USE'] } as const;

async function present(db: Db, c: CategoryRow): Promise<z.output<typeof categoryView>> {
  return {
    categoryId: c.id,
    name: c.name,
    parentId: c.parentId,
    flowId: c.flowId,
    leaf: !(await hasChildCategory(db, c.id)),
    createdAt: isoAt(c.createdAt),
    updatedAt: isoAt(c.updatedAt),
  };
}

/**
 * Products and flows sit only on lowest-level categories (spec 01 §2.2, spec 02 §4.4), so a category that
 * holds either cannot become a parent (409 CATEGORY_IN_USE).
 */
async function requireParent(ctx: StoreCtx, parentId: string, movingId?: string) {
  const parent = await loadCategory(ctx.db, ctx.store.id, parentId);
  for (let at: CategoryRow | undefined = parent; at; at = at.parentId ? await loadCategory(ctx.db, ctx.store.id, at.parentId) : undefined) {
    if (at.id === movingId)
      throw validationFailed([{ field: 'parentId', code: 'CATEGORY_CYCLE', message: '자기 자신이나 하위 카테고리 아래로 옮길 수 없습니다.' }]);
  }
  if (parent.flowId || (await hasProducts(ctx.db, ctx.store.id, parent.id)))
    throw fail(409, 'CATEGORY_IN_USE', { categoryId: parent.id, reason: parent.flowId ? 'HAS_FLOW' : 'HAS_PRODUCTS' });
}

export const categoryOperations = [
  defineOperation({
    operationId: 'createCategory',
    method: 'POST',
    path: '/v1/categories',
    summary: 'Create a category, optionally under a parent',
    tag,
    auth: 'store',
    scope: 'category:rw',
    status: 201,
    body: categoryCreate,
    target: () => ({ type: 'CATEGORY', id: null }),
    response: categoryView,
    errors: CATEGORY_WRITE,
    handler: async (ctx) => {
      if (ctx.body.parentId) await requireParent(ctx, ctx.body.parentId);
      await requireFlowId(ctx.db, ctx.store.id, ctx.body.flowId);
      const row: CategoryRow = {
        id: newId('cat', ctx.now),
        storeId: ctx.store.id,
        name: ctx.body.name,
        parentId: ctx.body.parentId ?? null,
        flowId: ctx.body.flowId ?? null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.db.insert(categories).values(row).run();
      return present(ctx.db, row);
    },
  }),
  defineOperation({
    operationId: 'listCategories',
    method: 'GET',
    path: '/v1/categories',
    summary: 'Every category of the store (a flat list; build the tree from parentId)',
    tag,
    auth: 'store',
    scope: 'category:r',
    response: z.object({ contents: z.array(categoryView) }),
    handler: async (ctx) => ({
      contents: await Promise.all(
        (await ctx.db.select().from(categories).where(eq(categories.storeId, ctx.store.id)).orderBy(asc(categories.id)).all()).map((c) => present(ctx.db, c)),
      ),
    }),
  }),
  defineOperation({
    operationId: 'getCategory',
    method: 'GET',
    path: '/v1/categories/{categoryId}',
    summary: 'A category',
    tag,
    auth: 'store',
    scope: 'category:r',
    params,
    response: categoryView,
    errors: CATEGORY_LOOKUP,
    handler: async (ctx) => present(ctx.db, await loadCategory(ctx.db, ctx.store.id, ctx.params.categoryId)),
  }),
  defineOperation({
    operationId: 'updateCategory',
    method: 'PATCH',
    path: '/v1/categories/{categoryId}',
    summary: 'Rename, move or assign an order flow (lowest-level categories only)',
    tag,
    auth: 'store',
    scope: 'category:rw',
    params,
    body: categoryPatch,
    target,
    response: categoryView,
    errors: { ...CATEGORY_WRITE, 400: ['CATEGORY_NOT_LEAF'] },
    handler: async (ctx) => {
      const row = await loadCategory(ctx.db, ctx.store.id, ctx.params.categoryId);
      if (ctx.body.parentId) await requireParent(ctx, ctx.body.parentId, row.id);
      await requireFlowId(ctx.db, ctx.store.id, ctx.body.flowId);
      if (ctx.body.flowId && (await hasChildCategory(ctx.db, row.id))) throw fail(400, 'CATEGORY_NOT_LEAF', { categoryId: row.id });
      const next: CategoryRow = {
        ...row,
        name: ctx.body.name ?? row.name,
        parentId: ctx.body.parentId === undefined ? row.parentId : ctx.body.parentId,
        flowId: ctx.body.flowId === undefined ? row.flowId : ctx.body.flowId,
        updatedAt: ctx.now,
      };
      await ctx.db.update(categories).set(next).where(eq(categories.id, row.id)).run();
      return present(ctx.db, next);
    },
  }),
  defineOperation({
    operationId: 'deleteCategory',
    method: 'DELETE',
    path: '/v1/categories/{categoryId}',
    summary: 'Delete an empty category (no sub-categories, no products)',
    tag,
    auth: 'store',
    scope: 'category:rw',
    params,
    target,
    response: z.object({ categoryId: z.string(), deleted: z.literal(true) }),
    errors: CATEGORY_WRITE,
    handler: async (ctx) => {
      const row = await loadCategory(ctx.db, ctx.store.id, ctx.params.categoryId);
      if (await hasChildCategory(ctx.db, row.id)) throw fail(409, 'CATEGORY_IN_USE', { categoryId: row.id, reason: 'HAS_CHILDREN' });
      if (await hasProducts(ctx.db, ctx.store.id, row.id)) throw fail(409, 'CATEGORY_IN_USE', { categoryId: row.id, reason: 'HAS_PRODUCTS' });
      await ctx.db.delete(categories).where(eq(categories.id, row.id)).run();
      return { categoryId: row.id, deleted: true };
    },
  }),
];
