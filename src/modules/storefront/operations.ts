import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { afterCommit, transaction } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId, newSecret } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineOperation, type StoreCtx } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import { products } from '../catalog/schema.js';
import { stores } from '../stores/schema.js';
import { readBlob, sha256 } from './blobs.js';
import { startDueBuilds } from './build.js';
import { primaryUrl } from './domains.js';
import { touchEditing } from './editing.js';
import { sellerSandboxed } from './seller-sandbox.js';
import { builds, deployments, previewLinks, siteFiles, versions } from './schema.js';
import {
  changedPaths, createSite, currentFiles, deploymentSchema, findSite, noSiteSchema, presentDeployment, presentSite, presentTemplate, presentVersion, previousPublished,
  publishVersion, queueBuild, requireActiveSite, requireSite, requireVersion, setVisibility, siteSchema, siteUrl, slugAvailability, slugInput, stepsWith,
  storeFiles, templates, templateSchema, versionSchema, type Site,
} from './service.js';
import { PREVIEW_SEGMENT } from './serving.js';
import { readSourceArchive, SOURCE_LIMITS } from './source.js';

const tag = 'Hosted storefront';
/** Shared by every storefront operation file. */
export const read = { auth: 'store' as const, scope: 'storefront:r', tag };
export const write = { auth: 'store' as const, scope: 'storefront:rw', tag };
const SITE_ERRORS = { 404: ['STOREFRONT_SITE_NOT_FOUND'] } as const;
const ACTIVE_SITE_ERRORS = { 404: ['STOREFRONT_SITE_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'] } as const;
export const siteTarget = async (ctx: StoreCtx) => ({ type: 'STOREFRONT_SITE', id: (await findSite(ctx.db, ctx.store.id))?.id ?? null });

/** Preview links open within 5 minutes (spec 02 §8). */
const PREVIEW_LINK_MS = 5 * 60_000;
/** Files whose change alters how the site is built: replacing them needs approval for agents (spec 01 §5.6). */
export const BUILD_CONFIG_FILES = ['package.json', 'vite.config.ts', 'svc.storefront.json'];

const buildSchema = z.object({
  buildId: z.string(),
  status: z.enum(['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED']),
  failureStage: z.enum(['VERIFY', 'DEPENDENCIES', 'INSTALL', 'BUILD', 'UPLOAD']).nullable(),
  errorCode: z.string().nullable(),
  logTail: z.string(),
  dependencies: z.object({
    rejected: z.array(z.object({ package: z.string(), version: z.string().nullable(), reason: z.string(), detail: z.string(), advisory: z.string().nullable() })),
    warnings: z.array(z.object({ package: z.string(), version: z.string().nullable(), reason: z.string(), detail: z.string(), advisory: z.string().nullable() })),
  }),
  versionId: z.string().nullable(),
  createdAt: instant,
  finishedAt: instant.nullable(),
});
const presentBuild = (b: typeof builds.$inferSelect): z.output<typeof buildSchema> => ({
  buildId: b.id, status: b.status, failureStage: b.failureStage, errorCode: b.errorCode, logTail: b.logTail, dependencies: b.dependencies, versionId: b.versionId,
  createdAt: isoAt(b.createdAt), finishedAt: b.finishedAt === null ? null : isoAt(b.finishedAt),
});

const fileEntry = z.object({ path: z.string(), size: z.number().int(), hash: z.string() });
const fileContent = fileEntry.extend({ encoding: z.enum(['utf8', 'base64']), content: z.string() });
const storedFiles = z.record(z.string(), z.object({ hash: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }));

const hasSellableProduct = async (ctx: StoreCtx) => (await ctx.db.select({ id: products.id }).from(products)
  .where(and(eq(products.storeId, ctx.store.id), eq(products.status, 'ON_SALE'), eq(products.isSample, false))).limit(1).get()) !== undefined;

/** Publish and rollback: guarded by `expectedPublishedVersionId`, approved for agents unless the store never went public. */
async function publishTo(ctx: StoreCtx, site: Site, versionId: string, expected: string | null | undefined, via: 'PUBLISH' | 'ROLLBACK') {
  if (expected !== undefined && expected !== site.publishedVersionId && versionId !== site.publishedVersionId) {
    throw fail(409, 'STOREFRONT_SITE_CHANGED', { expectedPublishedVersionId: expected, publishedVersionId: site.publishedVersionId });
  }
  const version = await requireVersion(ctx.db, ctx.store.id, versionId);
  return presentSite(ctx.services, ctx.db, await publishVersion(ctx.db, site, version, via, ctx.now));
}

export const storefrontOperations = [
  defineOperation({
    ...read,
    operationId: 'listStorefrontTemplates',
    method: 'GET',
    path: '/v1/storefront/templates',
    summary: 'Templates a site can start from',
    response: z.object({ contents: z.array(templateSchema) }),
    handler: () => ({ contents: templates.map(presentTemplate) }),
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontSlugAvailability',
    method: 'GET',
    path: '/v1/storefront/slug-availability',
    summary: 'Whether a site address (slug) can be used by this store',
    query: z.object({ slug: z.string().min(1).max(100) }).strict(),
    response: z.object({ slug: z.string(), available: z.boolean(), reason: z.enum(['INVALID', 'RESERVED', 'TAKEN']).nullable() }),
    handler: async (ctx) => ({ slug: ctx.query.slug, ...(await slugAvailability(ctx.services, ctx.db, ctx.store.id, ctx.query.slug, ctx.now)) }),
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontSite',
    method: 'GET',
    path: '/v1/storefront/site',
    summary: 'The hosted storefront site (before creation: `enabled` says whether one can be created)',
    response: z.union([siteSchema, noSiteSchema]),
    handler: async (ctx) => {
      const site = await findSite(ctx.db, ctx.store.id);
      return site ? await presentSite(ctx.services, ctx.db, site) : { enabled: ctx.services.config.storefront.hostingOpen, siteId: null };
    },
  }),
  defineOperation({
    ...write,
    operationId: 'createStorefrontSite',
    method: 'POST',
    path: '/v1/storefront/site',
    summary: 'Create the site from a template; its deployment (upload, first build, publish) continues afterwards',
    status: 201,
    agent: 'direct',
    body: z.object({ templateId: z.string().min(1), slug: slugInput.optional() }).strict(),
    response: siteSchema.extend({ deployment: deploymentSchema }),
    errors: { 403: ['STOREFRONT_HOSTING_DISABLED'], 404: ['TEMPLATE_NOT_FOUND'], 409: ['STOREFRONT_SITE_EXISTS', 'STOREFRONT_SLUG_TAKEN', 'STOREFRONT_SITE_CREATE_LIMIT', 'STORE_SUSPENDED'], 503: ['SELLER_SANDBOX_UNAVAILABLE'] },
    target: () => ({ type: 'STOREFRONT_SITE', id: null }),
    handler: async (ctx) => {
      // The deployment builds the template: no site whose first build could never run.
      sellerSandboxed(ctx.services.config.storefront.sellerSandbox);
      const template = templates.find((t) => t.templateId === ctx.body.templateId);
      if (!template) throw fail(404, 'TEMPLATE_NOT_FOUND', { templateId: ctx.body.templateId, templates: templates.map((t) => t.templateId) });
      const { code } = (await ctx.db.select({ code: stores.code }).from(stores).where(eq(stores.id, ctx.store.id)).get())!;
      const site = await createSite(ctx.services, ctx.db, ctx.store.id, template, ctx.body.slug ?? code, ctx.now);
      const deployment = (await ctx.db.select().from(deployments).where(eq(deployments.siteId, site.id)).get())!;
      return { ...(await presentSite(ctx.services, ctx.db, site)), deployment: presentDeployment(deployment) };
    },
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontDeployment',
    method: 'GET',
    path: '/v1/storefront/site/deployment',
    summary: 'The site\'s deployment: poll until SUCCEEDED (steps SITE, UPLOAD, PUBLISH)',
    response: deploymentSchema,
    errors: SITE_ERRORS,
    handler: async (ctx) => {
      const site = await requireSite(ctx.db, ctx.store.id);
      return presentDeployment((await ctx.db.select().from(deployments).where(eq(deployments.siteId, site.id)).get())!);
    },
  }),
  defineOperation({
    ...write,
    operationId: 'retryStorefrontDeployment',
    method: 'POST',
    path: '/v1/storefront/site/deployment/retry',
    summary: 'Run a failed deployment again from its failed step',
    status: 202,
    agent: 'direct',
    response: deploymentSchema,
    errors: { ...ACTIVE_SITE_ERRORS, 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_DEPLOYMENT_NOT_RETRYABLE'], 503: ['SELLER_SANDBOX_UNAVAILABLE'] },
    target: siteTarget,
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      sellerSandboxed(ctx.services.config.storefront.sellerSandbox);
      const deployment = (await ctx.db.select().from(deployments).where(eq(deployments.siteId, site.id)).get())!;
      if (deployment.status !== 'FAILED') throw fail(409, 'STOREFRONT_DEPLOYMENT_NOT_RETRYABLE', { status: deployment.status });
      const retried = {
        ...deployment, status: 'RUNNING' as const, errorCode: null, buildId: null, nextAttemptAt: ctx.now, updatedAt: ctx.now,
        steps: stepsWith(stepsWith(deployment.steps, 'UPLOAD', 'PENDING'), 'PUBLISH', 'PENDING'), log: [...deployment.log, `${isoAt(ctx.now)} 다시 시도`],
      };
      await ctx.db.update(deployments).set(retried).where(eq(deployments.siteId, site.id)).run();
      return presentDeployment(retried);
    },
  }),
  defineOperation({
    ...write,
    operationId: 'setStorefrontVisibility',
    method: 'PUT',
    path: '/v1/storefront/site/visibility',
    summary: 'Open the site to visitors (PUBLIC) or show the coming-soon page (COMING_SOON)',
    agent: 'approval',
    body: z.object({ visibility: z.enum(['COMING_SOON', 'PUBLIC']), expectedVisibility: z.enum(['COMING_SOON', 'PUBLIC']) }).strict(),
    response: siteSchema,
    errors: { ...ACTIVE_SITE_ERRORS, 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_SITE_CHANGED', 'STOREFRONT_NOT_READY'] },
    target: siteTarget,
    preview: async (ctx) => ({ changes: [{ field: 'visibility', before: (await findSite(ctx.db, ctx.store!.id))?.visibility ?? null, after: ctx.body.visibility }] }),
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      if (site.visibility !== ctx.body.expectedVisibility) throw fail(409, 'STOREFRONT_SITE_CHANGED', { expectedVisibility: ctx.body.expectedVisibility, visibility: site.visibility });
      return presentSite(ctx.services, ctx.db, await setVisibility(ctx.db, site, ctx.body.visibility, ctx.body.visibility === 'PUBLIC' && (await hasSellableProduct(ctx)), ctx.now));
    },
  }),
  defineOperation({
    ...write,
    operationId: 'publishStorefrontVersion',
    method: 'POST',
    path: '/v1/storefront/site/versions/{versionId}/publish',
    summary: 'Publish a version (publishing the published one succeeds); visitors get it once provisioning is SYNCED',
    agent: 'approval',
    agentApprovalExemptWhilePrivate: true,
    params: z.object({ versionId: z.string() }).strict(),
    body: z.object({ expectedPublishedVersionId: z.string().nullable().optional() }).strict(),
    response: siteSchema,
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_VERSION_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_SITE_CHANGED'] },
    target: siteTarget,
    preview: async (ctx) => ({ changes: [{ field: 'publishedVersionId', before: (await findSite(ctx.db, ctx.store!.id))?.publishedVersionId ?? null, after: ctx.params.versionId }] }),
    handler: async (ctx) => publishTo(ctx, await requireActiveSite(ctx.db, ctx.store.id), ctx.params.versionId, ctx.body.expectedPublishedVersionId, 'PUBLISH'),
  }),
  defineOperation({
    ...write,
    operationId: 'rollbackStorefront',
    method: 'POST',
    path: '/v1/storefront/site/rollback',
    summary: 'Publish an earlier version again (default: the one published just before the current one)',
    agent: 'approval',
    agentApprovalExemptWhilePrivate: true,
    body: z.object({ versionId: z.string().optional(), expectedPublishedVersionId: z.string().nullable().optional() }).strict(),
    response: siteSchema,
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_VERSION_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_SITE_CHANGED', 'STOREFRONT_NO_ROLLBACK_TARGET'] },
    target: siteTarget,
    preview: async (ctx) => {
      const site = await findSite(ctx.db, ctx.store!.id);
      return { changes: [{ field: 'publishedVersionId', before: site?.publishedVersionId ?? null, after: ctx.body.versionId ?? (site ? await previousPublished(ctx.db, site) : null) }] };
    },
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      const target = ctx.body.versionId ?? (await previousPublished(ctx.db, site));
      if (!target) throw fail(409, 'STOREFRONT_NO_ROLLBACK_TARGET');
      return publishTo(ctx, site, target, ctx.body.expectedPublishedVersionId, 'ROLLBACK');
    },
  }),
  defineOperation({
    ...write,
    operationId: 'changeStorefrontTemplate',
    method: 'POST',
    path: '/v1/storefront/site/template',
    summary: 'Retired: a site keeps its template (always 409 TEMPLATE_CHANGE_NOT_SUPPORTED)',
    agent: 'direct',
    idempotent: false,
    response: z.never(),
    errors: { 409: ['TEMPLATE_CHANGE_NOT_SUPPORTED'] },
    handler: () => {
      throw fail(409, 'TEMPLATE_CHANGE_NOT_SUPPORTED');
    },
  }),
  defineOperation({
    ...write,
    operationId: 'createStorefrontPreviewLink',
    method: 'POST',
    path: '/v1/storefront/site/preview-link',
    summary: 'A one-time preview link (opens within 5 minutes; trusts that browser for 12 hours); default the published version',
    roles: ['OWNER', 'ADMIN'],
    callers: ['storePlatform'],
    agent: 'denied',
    body: z.object({ versionId: z.string().optional() }).strict(),
    response: z.object({ url: z.string(), versionId: z.string(), expiresAt: instant }),
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_VERSION_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_NO_ADDRESS'] },
    target: siteTarget,
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      const versionId = ctx.body.versionId ?? site.publishedVersionId;
      if (!versionId) throw fail(404, 'STOREFRONT_VERSION_NOT_FOUND', { versionId: null });
      await requireVersion(ctx.db, ctx.store.id, versionId);
      // The preview opens on the site's own origin: `{slug}`'s, else (svc serve without a sites domain) a connected domain.
      const base = siteUrl(ctx.services, site.slug) ?? await primaryUrl(ctx.services, ctx.db, site);
      if (!base) throw fail(409, 'STOREFRONT_NO_ADDRESS');
      const token = newSecret(24);
      const expiresAt = ctx.now + PREVIEW_LINK_MS;
      await ctx.db.insert(previewLinks).values({ id: newId('prv', ctx.now), tokenHash: sha256(token), storeId: ctx.store.id, versionId, createdBy: ctx.principal.userId, expiresAt, usedAt: null, createdAt: ctx.now }).run();
      return { url: `${base}${PREVIEW_SEGMENT}open/${token}`, versionId, expiresAt: isoAt(expiresAt) };
    },
  }),
  defineOperation({
    ...write,
    operationId: 'replaceStorefrontFiles',
    method: 'PUT',
    path: '/v1/storefront/site/files',
    summary: 'Replace the site\'s source with a .tar.gz of the project (multipart: file); answers the changed paths',
    async: true,
    multipart: { maxBytes: SOURCE_LIMITS.bytes + 64 * 1024, fields: z.object({ file: z.file().describe('the project as .tar.gz (node_modules, .git and dist are left out)') }) },
    body: z.object({ files: storedFiles.optional(), skipped: z.number().int().optional() }).strict(),
    // Changing how the site is built needs approval; other source replacement is exempt while the store never went public.
    agent: async (ctx: StoreCtx) => ((await touchesBuildConfig(ctx)) ? 'approval' : 'direct'),
    agentApprovalExemptWhilePrivate: true,
    response: z.object({ files: z.number().int(), added: z.array(z.string()), changed: z.array(z.string()), removed: z.array(z.string()), skipped: z.number().int() }),
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
      return { changes: [...diff.added.map((p) => ({ field: p, before: null, after: 'added' })), ...diff.changed.map((p) => ({ field: p, before: 'old', after: 'changed' })), ...diff.removed.map((p) => ({ field: p, before: 'old', after: null }))] };
    },
    handler: (ctx) => transaction(ctx.db, async () => {
      await requireActiveSite(ctx.db, ctx.store.id);
      const files = ctx.body.files ?? {};
      const diff = changedPaths(await currentFiles(ctx.db, ctx.store.id), files);
      await ctx.db.delete(siteFiles).where(eq(siteFiles.storeId, ctx.store.id)).run();
      for (const [path, file] of Object.entries(files)) await ctx.db.insert(siteFiles).values({ storeId: ctx.store.id, path, hash: file.hash, size: file.size }).run();
      return { files: Object.keys(files).length, ...diff, skipped: (ctx.body as { skipped?: number }).skipped ?? 0 };
    }),
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontFiles',
    method: 'GET',
    path: '/v1/storefront/site/files',
    summary: 'The site\'s source files (sizes and hashes), or one file with `path`',
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
      return { path: ctx.query.path, ...file, encoding: isText ? 'utf8' as const : 'base64' as const, content: isText ? text : bytes.toString('base64') };
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
    summary: 'A build: status, the stage that failed, the dependency report and the log\'s tail',
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
    summary: 'The site\'s versions, newest first',
    response: z.object({ contents: z.array(versionSchema) }),
    errors: SITE_ERRORS,
    handler: async (ctx) => {
      const site = await requireSite(ctx.db, ctx.store.id);
      return { contents: (await ctx.db.select().from(versions).where(eq(versions.siteId, site.id)).orderBy(desc(versions.number)).all()).map((v) => presentVersion(v, site)) };
    },
  }),
];

async function touchesBuildConfig(ctx: StoreCtx): Promise<boolean> {
  const diff = changedPaths(await currentFiles(ctx.db, ctx.store.id), (ctx.body as { files?: Record<string, { hash: string; size: number }> }).files ?? {});
  return [...diff.added, ...diff.changed, ...diff.removed].some((p) => BUILD_CONFIG_FILES.includes(p));
}
