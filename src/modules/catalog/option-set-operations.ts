import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import { defineOperation, type StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { LIMITS, optionSetBody, optionSetListQuery } from './inputs.js';
import { savedOptionSets } from './schema.js';
import { pageOf, paginated } from '../../server/paging.js';
import { instant, won } from '../../server/responses.js';
import { customInputView } from './product-views.js';

const tag = 'Catalog';
const params = z.object({ optionSetId: z.string() }).strict();
const target = (ctx: { params: { optionSetId: string } }) => ({ type: 'OPTION_SET', id: ctx.params.optionSetId });
type OptionSetRow = typeof savedOptionSets.$inferSelect;

const optionSetView = z.object({
  optionSetId: z.string(),
  name: z.string(),
  optionSort: z.enum(['REGISTERED', 'NAME']).describe('Order of option values: as registered, or by name'),
  groups: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['COMBINATION', 'ADDON']).describe('COMBINATION: an axis of variants; ADDON: an extra chosen on top'),
      required: z.boolean(),
      values: z.array(z.object({ name: z.string(), additionalPrice: won })),
    }),
  ),
  customInputs: z.array(customInputView).describe('Text the buyer types or picks when ordering'),
  importedProductCount: z.number().int().describe('Products that imported this set'),
  createdAt: instant,
  updatedAt: instant,
});
const OPTION_SET_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['OPTION_SET_NOT_FOUND'] } as const;

const present = (o: OptionSetRow): z.output<typeof optionSetView> => ({
  optionSetId: o.id,
  name: o.name,
  optionSort: o.optionSort,
  groups: o.groups,
  customInputs: o.customInputs,
  importedProductCount: o.importedProductCount,
  createdAt: isoAt(o.createdAt),
  updatedAt: isoAt(o.updatedAt),
});

const load = async (ctx: StoreCtx<unknown, unknown, { optionSetId: string }>) =>
  requireOwned(await ctx.db.select().from(savedOptionSets).where(eq(savedOptionSets.id, ctx.params.optionSetId)).get(), ctx.store.id, 'OPTION_SET_NOT_FOUND');

/** `composition` (spec 01 §4.2): sets holding combination groups, add-on groups, or custom inputs. */
const COMPOSITION: Record<string, SQL> = {
  combination: sql`exists (select 1 from json_each(${savedOptionSets.groups}) where json_extract(value, '$.kind') = 'COMBINATION')`,
  addon: sql`exists (select 1 from json_each(${savedOptionSets.groups}) where json_extract(value, '$.kind') = 'ADDON')`,
  customInput: sql`json_array_length(${savedOptionSets.customInputs}) > 0`,
};

const SORT = {
  'updatedAt.desc': [desc(savedOptionSets.updatedAt), desc(savedOptionSets.id)],
  'name.asc': [asc(savedOptionSets.name), asc(savedOptionSets.id)],
  'importedProductCount.desc': [desc(savedOptionSets.importedProductCount), desc(savedOptionSets.updatedAt)],
};

export const optionSetOperations = [
  defineOperation({
    operationId: 'listSavedOptionSets',
    method: 'GET',
    path: '/v1/saved-option-sets',
    summary: 'Saved option sets: keyword (name contains), composition, sort',
    tag,
    auth: 'store',
    scope: 'product:r',
    query: optionSetListQuery,
    response: pageOf(optionSetView),
    handler: async (ctx) => {
      const { page, size, keyword, composition, sort } = ctx.query;
      const where = and(
        eq(savedOptionSets.storeId, ctx.store.id),
        keyword ? sql`lower(${savedOptionSets.name}) like ${`%${keyword.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`} escape '\\'` : undefined,
        composition ? COMPOSITION[composition] : undefined,
      );
      const rows = await ctx.db
        .select()
        .from(savedOptionSets)
        .where(where)
        .orderBy(...SORT[sort])
        .limit(size)
        .offset((page - 1) * size)
        .all();
      const total = (await ctx.db.select({ n: count() }).from(savedOptionSets).where(where).get())!.n;
      return paginated(rows.map(present), page, size, total);
    },
  }),
  defineOperation({
    operationId: 'createSavedOptionSet',
    method: 'POST',
    path: '/v1/saved-option-sets',
    summary: 'Save an option set (at most 200 per store)',
    tag,
    auth: 'store',
    scope: 'product:rw',
    status: 201,
    body: optionSetBody,
    target: () => ({ type: 'OPTION_SET', id: null }),
    response: optionSetView,
    errors: { 409: ['OPTION_SET_LIMIT_EXCEEDED'] },
    handler: async (ctx) => {
      if ((await countRows(ctx.db, savedOptionSets, eq(savedOptionSets.storeId, ctx.store.id))) >= LIMITS.optionSets) {
        throw fail(409, 'OPTION_SET_LIMIT_EXCEEDED', { limit: LIMITS.optionSets });
      }
      const row: OptionSetRow = {
        id: newId('opts', ctx.now),
        storeId: ctx.store.id,
        ...ctx.body,
        importedProductCount: 0,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.db.insert(savedOptionSets).values(row).run();
      return present(row);
    },
  }),
  defineOperation({
    operationId: 'getSavedOptionSet',
    method: 'GET',
    path: '/v1/saved-option-sets/{optionSetId}',
    summary: 'A saved option set',
    tag,
    auth: 'store',
    scope: 'product:r',
    params,
    response: optionSetView,
    errors: OPTION_SET_LOOKUP,
    handler: async (ctx) => present(await load(ctx)),
  }),
  defineOperation({
    operationId: 'replaceSavedOptionSet',
    method: 'PUT',
    path: '/v1/saved-option-sets/{optionSetId}',
    summary: 'Replace a saved option set',
    tag,
    auth: 'store',
    scope: 'product:rw',
    params,
    body: optionSetBody,
    target,
    response: optionSetView,
    errors: OPTION_SET_LOOKUP,
    handler: async (ctx) => {
      const row = { ...(await load(ctx)), ...ctx.body, updatedAt: ctx.now };
      await ctx.db.update(savedOptionSets).set(row).where(eq(savedOptionSets.id, row.id)).run();
      return present(row);
    },
  }),
  defineOperation({
    operationId: 'deleteSavedOptionSet',
    method: 'DELETE',
    path: '/v1/saved-option-sets/{optionSetId}',
    summary: 'Delete a saved option set (products that used it keep their options)',
    tag,
    auth: 'store',
    scope: 'product:rw',
    params,
    target,
    response: z.object({ optionSetId: z.string(), deleted: z.literal(true) }),
    errors: OPTION_SET_LOOKUP,
    handler: async (ctx) => {
      const row = await load(ctx);
      await ctx.db.delete(savedOptionSets).where(eq(savedOptionSets.id, row.id)).run();
      return { optionSetId: row.id, deleted: true };
    },
  }),
];
