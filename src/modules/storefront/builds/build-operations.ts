import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { afterCommit, transaction } from '../../../db/client.js';
import { isoAt } from '../../../db/clock.js';
import { fail, validationFailed } from '../../../server/errors.js';
import { defineOperation, type StoreCtx } from '../../../server/registry.js';
import { instant } from '../../../server/responses.js';
import { touchEditing } from '../editing/editing.js';
import { builds, siteFiles, versions } from '../schema.js';
import { readBlob } from '../serving/blobs.js';
import { read, siteTarget, write } from '../sites/operation-scopes.js';
import { requireActiveSite, requireSite } from '../sites/sites.js';
import { presentVersion, versionSchema } from '../sites/versions.js';
import { queueBuild, startDueBuilds } from './build.js';
import { sellerSandboxed } from './seller-sandbox.js';
import { changedPaths, currentFiles, storeFiles } from './site-files.js';
import { readSourceArchive, SOURCE_LIMITS } from './source.js';

const SITE_ERRORS = { 404: ['STOREFRONT_SITE_NOT_FOUND'] } as const;
const ACTIVE_SITE_ERRORS = { 404: ['STOREFRONT_SITE_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'] } as const;

/** Files whose change alters how the site is built: replacing them needs approval for agents (spec 01 §5.6). */
export const BUILD_CONFIG_FILES = ['package.json', 'vite.config.ts', 'svc.storefront.json'];

const buildSchema = z.object({
  buildId: z.string(),
  status: z.enum(['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED']),
  failureStage: z.enum(['VERIFY', 'DEPENDENCIES', 'INSTALL', 'BUILD', 'UPLOAD']).nullable(),
  errorCode: z.string().nullable(),
  logTail: z.string(),
  dependencies: z.object({
    rejected: z.array(
      z.object({ package: z.string(), version: z.string().nullable(), reason: z.string(), detail: z.string(), advisory: z.string().nullable() }),
    ),
    warnings: z.array(
      z.object({ package: z.string(), version: z.string().nullable(), reason: z.string(), detail: z.string(), advisory: z.string().nullable() }),
    ),
  }),
  versionId: z.string().nullable(),
  createdAt: instant,
  finishedAt: instant.nullable(),
});
const presentBuild = (b: typeof builds.$inferSelect): z.output<typeof buildSchema> => ({
  buildId: b.id,
  status: b.status,
  failureStage: b.failureStage,
  errorCode: b.errorCode,
  logTail: b.logTail,
  dependencies: b.dependencies,
  versionId: b.versionId,
  createdAt: isoAt(b.createdAt),
  finishedAt: b.finishedAt === null ? null : isoAt(b.finishedAt),
});

const fileEntry = z.object({ path: z.string(), size: z.number().int(), hash: z.string() });
const fileContent = fileEntry.extend({ encoding: z.enum(['utf8', 'base64']), content: z.string() });
const storedFiles = z.record(z.string(), z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }));

/** The site's source files, the builds made of them and the versions they produce. */
export const buildOperations = [
  defineOperation({
    ...write,
    operationId: 'replaceStorefrontFiles',
    title: '쇼핑몰 소스 교체',
    method: 'PUT',
    path: '/v1/storefront/site/files',
    summary: "Replace the site's source with a .tar.gz of the project (multipart: file); answers the changed paths",
    async: true,
    multipart: {
      maxBytes: SOURCE_LIMITS.bytes + 64 * 1024,
      fields: z.object({ file: z.file().describe('the project as .tar.gz (node_modules, .git and dist are left out)') }),
    },
    body: z.object({ files: storedFiles.optional(), skipped: z.number().int().optional() }).strict(),
    // Changing how the site is built needs approval; other source replacement is exempt while the store never went public.
    agent: async (ctx: StoreCtx) => ((await touchesBuildConfig(ctx)) ? 'approval' : 'direct'),
    agentApprovalExemptWhilePrivate: true,
    response: z.object({
      files: z.number().int(),
      added: z.array(z.string()),
      changed: z.array(z.string()),
      removed: z.array(z.string()),
      skipped: z.number().int(),
    }),
    errors: { ...ACTIVE_SITE_ERRORS, 400: ['STOREFRONT_SOURCE_INVALID'] },
    target: siteTarget,
    precheck: async (ctx) => {
      const c = ctx as StoreCtx;
      await requireActiveSite(c.db, c.store.id);
      if (!c.form) return;
      const file = c.form.get('file');
      if (!(file instanceof File)) throw validationFailed([{ field: 'file', code: 'REQUIRED', message: '프로젝트 .tar.gz 파일을 file로 보내 주세요.' }]);
      const { files, skipped } = await readSourceArchive(new Uint8Array(await file.arrayBuffer()));
      c.body = { files: storeFiles(c.services, files), skipped };
    },
    preview: async (ctx) => {
      const diff = changedPaths(await currentFiles(ctx.db, ctx.store!.id), ctx.body.files ?? {});
      return {
        changes: [
          ...diff.added.map((p) => ({ field: p, before: null, after: 'added' })),
          ...diff.changed.map((p) => ({ field: p, before: 'old', after: 'changed' })),
          ...diff.removed.map((p) => ({ field: p, before: 'old', after: null })),
        ],
      };
    },
    handler: (ctx) =>
      transaction(ctx.db, async () => {
        await requireActiveSite(ctx.db, ctx.store.id);
        const files = ctx.body.files ?? {};
        const diff = changedPaths(await currentFiles(ctx.db, ctx.store.id), files);
        await ctx.db.delete(siteFiles).where(eq(siteFiles.storeId, ctx.store.id)).run();
        for (const [path, file] of Object.entries(files))
          await ctx.db.insert(siteFiles).values({ storeId: ctx.store.id, path, hash: file.hash, size: file.size }).run();
        return { files: Object.keys(files).length, ...diff, skipped: (ctx.body as { skipped?: number }).skipped ?? 0 };
      }),
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontFiles',
    method: 'GET',
    path: '/v1/storefront/site/files',
    summary: "The site's source files (sizes and hashes), or one file with `path`",
    query: z.object({ path: z.string().min(1).max(SOURCE_LIMITS.pathChars).optional() }).strict(),
    response: z.union([z.object({ contents: z.array(fileEntry) }), fileContent]),
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_FILE_NOT_FOUND'] },
    handler: async (ctx) => {
      await requireSite(ctx.db, ctx.store.id);
      const files = await currentFiles(ctx.db, ctx.store.id);
      if (ctx.query.path === undefined) return { contents: Object.entries(files).map(([path, f]) => ({ path, ...f })) };
      // Own keys only: a path such as `valueOf` names no file.
      const file = Object.hasOwn(files, ctx.query.path) ? files[ctx.query.path] : undefined;
      if (!file) throw fail(404, 'STOREFRONT_FILE_NOT_FOUND', { path: ctx.query.path });
      const bytes = readBlob(ctx.services, file.hash);
      const text = bytes.toString('utf8');
      const isText = Buffer.from(text, 'utf8').equals(bytes) && !text.includes('\u0000');
      return { path: ctx.query.path, ...file, encoding: isText ? ('utf8' as const) : ('base64' as const), content: isText ? text : bytes.toString('base64') };
    },
  }),
  defineOperation({
    ...write,
    operationId: 'createStorefrontVersion',
    method: 'POST',
    path: '/v1/storefront/site/versions',
    summary: 'Build a version from the current source files; follow it at GET /v1/storefront/site/builds/{buildId}',
    status: 202,
    agent: 'direct',
    response: z.object({ buildId: z.string() }),
    errors: { ...ACTIVE_SITE_ERRORS, 503: ['SELLER_SANDBOX_UNAVAILABLE'] },
    target: siteTarget,
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      sellerSandboxed(ctx.services.config.storefront.sellerSandbox);
      const build = await queueBuild(ctx.db, site, await currentFiles(ctx.db, ctx.store.id), false, ctx.now);
      await touchEditing(ctx.services, ctx.db, ctx.store.id, ctx.now);
      // Started at once rather than on the next job tick, which also starts it if this start fails.
      afterCommit(ctx.db, () => void startDueBuilds(ctx.services).catch(() => undefined));
      return { buildId: build.id };
    },
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontBuild',
    method: 'GET',
    path: '/v1/storefront/site/builds/{buildId}',
    summary: "A build: status, the stage that failed, the dependency report and the log's tail",
    params: z.object({ buildId: z.string() }).strict(),
    response: buildSchema,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['STOREFRONT_BUILD_NOT_FOUND'] },
    handler: async (ctx) => {
      const build = await ctx.db.select().from(builds).where(eq(builds.id, ctx.params.buildId)).get();
      if (!build || build.storeId !== ctx.store.id) throw fail(404, 'STOREFRONT_BUILD_NOT_FOUND', { buildId: ctx.params.buildId });
      return presentBuild(build);
    },
  }),
  defineOperation({
    ...read,
    operationId: 'listStorefrontVersions',
    method: 'GET',
    path: '/v1/storefront/site/versions',
    summary: "The site's versions, newest first",
    response: z.object({ contents: z.array(versionSchema) }),
    errors: SITE_ERRORS,
    handler: async (ctx) => {
      const site = await requireSite(ctx.db, ctx.store.id);
      return {
        contents: (await ctx.db.select().from(versions).where(eq(versions.siteId, site.id)).orderBy(desc(versions.number)).all()).map((v) =>
          presentVersion(v, site),
        ),
      };
    },
  }),
];

async function touchesBuildConfig(ctx: StoreCtx): Promise<boolean> {
  const diff = changedPaths(await currentFiles(ctx.db, ctx.store.id), (ctx.body as { files?: Record<string, { hash: string; size: number }> }).files ?? {});
  return [...diff.added, ...diff.changed, ...diff.removed].some((p) => BUILD_CONFIG_FILES.includes(p));
}
