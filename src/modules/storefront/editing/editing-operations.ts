import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { fail } from '../../../server/errors.js';
import { defineOperation, type StoreCtx } from '../../../server/registry.js';
import { putBlob } from '../serving/blobs.js';
import { editingSchema, openEditing, presentEditing, startEditing, touchEditing } from './editing.js';
import { BUILD_CONFIG_FILES } from '../builds/build-operations.js';
import { read, siteTarget, write } from '../sites/operation-scopes.js';
import { siteFiles } from '../schema.js';
import { currentFiles } from '../builds/site-files.js';
import { requireActiveSite, requireSite } from '../sites/sites.js';
import { cleanPath, SOURCE_LIMITS } from '../builds/source.js';

/** One project file per request (a whole project still goes through the .tar.gz upload). */
const FILE_BYTES = 5 * 1024 * 1024;

/** `{path}` is one URL-encoded segment (`src%2Fpages%2Fhome.ts`); the stored path rules apply. */
function filePath(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    decoded = '';
  }
  const path = cleanPath(decoded);
  if (path === null || path !== decoded) throw fail(400, 'STOREFRONT_SOURCE_INVALID', { reason: 'PATH_INVALID', path: decoded });
  return path;
}
const pathParams = z
  .object({
    path: z
      .string()
      .min(1)
      .max(SOURCE_LIMITS.pathChars * 3),
  })
  .strict();
/** Changing how the site is built needs approval for agents, as with uploads (spec 01 §5.6). */
const fileAgentRule = (ctx: StoreCtx) => {
  let path = '';
  try {
    path = decodeURIComponent((ctx.params as { path: string }).path);
  } catch {
    /* refused by the handler */
  }
  return BUILD_CONFIG_FILES.includes(path) ? ('approval' as const) : ('direct' as const);
};

/** The editing environment and single-file edits of the site's working files (spec 02 §4.2). */
export const editingOperations = [
  defineOperation({
    ...read,
    operationId: 'getStorefrontEditing',
    method: 'GET',
    path: '/v1/storefront/site/editing',
    summary: 'The editing environment as it is now (null when none is open); looking does not wake it',
    response: editingSchema.nullable(),
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND'] },
    handler: async (ctx) => {
      await requireSite(ctx.db, ctx.store.id);
      const env = await openEditing(ctx.db, ctx.store.id);
      return env ? presentEditing(env) : null;
    },
  }),
  defineOperation({
    ...write,
    operationId: 'startStorefrontEditing',
    title: '쇼핑몰 편집 환경 시작',
    method: 'POST',
    path: '/v1/storefront/site/editing',
    summary:
      'Start (or wake) the editing environment: `url` serves the working files live; sleeps after 15 minutes idle, closes after 30 without a file write, check or build',
    // It builds and runs the store's code on the service's machines: a person decides for an agent.
    agent: 'approval',
    async: true,
    response: editingSchema,
    errors: {
      400: ['STOREFRONT_SOURCE_INVALID'],
      404: ['STOREFRONT_SITE_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'EDIT_CAPACITY_FULL'],
      503: ['SELLER_SANDBOX_UNAVAILABLE'],
    },
    target: siteTarget,
    handler: async (ctx) => presentEditing(await startEditing(ctx.services, ctx.store.id, ctx.principal.userId)),
  }),
  defineOperation({
    ...write,
    operationId: 'putStorefrontFile',
    title: '쇼핑몰 파일 쓰기',
    method: 'PUT',
    path: '/v1/storefront/site/files/{path}',
    summary: 'Write one working file (`path` URL-encoded, e.g. src%2Fpages%2Fhome.ts); keeps the editing environment open',
    agent: fileAgentRule,
    agentApprovalExemptWhilePrivate: true,
    params: pathParams,
    body: z.object({ content: z.string().max(FILE_BYTES * 2), encoding: z.enum(['utf8', 'base64']).default('utf8') }).strict(),
    response: z.object({ path: z.string(), size: z.number().int(), hash: z.string(), created: z.boolean() }),
    errors: { 400: ['STOREFRONT_SOURCE_INVALID'], 404: ['STOREFRONT_SITE_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'] },
    target: siteTarget,
    handler: async (ctx) => {
      await requireActiveSite(ctx.db, ctx.store.id);
      const path = filePath(ctx.params.path);
      const bytes = Buffer.from(ctx.body.content, ctx.body.encoding);
      if (bytes.byteLength > FILE_BYTES) throw fail(400, 'STOREFRONT_SOURCE_INVALID', { reason: 'FILE_TOO_LARGE', path, limit: FILE_BYTES });
      const files = await currentFiles(ctx.db, ctx.store.id);
      const created = !Object.hasOwn(files, path);
      if (created && Object.keys(files).length >= SOURCE_LIMITS.files)
        throw fail(400, 'STOREFRONT_SOURCE_INVALID', { reason: 'TOO_MANY_FILES', limit: SOURCE_LIMITS.files });
      const stored = putBlob(ctx.services, bytes);
      await ctx.db
        .insert(siteFiles)
        .values({ storeId: ctx.store.id, path, ...stored })
        .onConflictDoUpdate({ target: [siteFiles.storeId, siteFiles.path], set: stored })
        .run();
      await touchEditing(ctx.services, ctx.db, ctx.store.id, ctx.now, { path, bytes });
      return { path, ...stored, created };
    },
  }),
  defineOperation({
    ...write,
    operationId: 'deleteStorefrontFile',
    title: '쇼핑몰 파일 삭제',
    method: 'DELETE',
    path: '/v1/storefront/site/files/{path}',
    summary: 'Delete one working file (`path` URL-encoded); keeps the editing environment open',
    agent: fileAgentRule,
    agentApprovalExemptWhilePrivate: true,
    params: pathParams,
    response: z.object({ path: z.string(), deleted: z.literal(true) }),
    errors: {
      400: ['STOREFRONT_SOURCE_INVALID'],
      404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_FILE_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'],
    },
    target: siteTarget,
    handler: async (ctx) => {
      await requireActiveSite(ctx.db, ctx.store.id);
      const path = filePath(ctx.params.path);
      if (
        (
          await ctx.db
            .delete(siteFiles)
            .where(and(eq(siteFiles.storeId, ctx.store.id), eq(siteFiles.path, path)))
            .run()
        ).changes === 0
      )
        throw fail(404, 'STOREFRONT_FILE_NOT_FOUND', { path });
      await touchEditing(ctx.services, ctx.db, ctx.store.id, ctx.now, { path, bytes: null });
      return { path, deleted: true as const };
    },
  }),
];
