import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { isoAt } from '../../../db/clock.js';
import { newId, newSecret } from '../../../db/ids.js';
import { fail } from '../../../server/errors.js';
import { defineOperation, type StoreCtx } from '../../../server/registry.js';
import { instant } from '../../../server/responses.js';
import { hasSellableProduct } from '../../catalog/index.js';
import { findStore } from '../../stores/index.js';
import { sellerSandboxed } from '../builds/seller-sandbox.js';
import { moveStoreDomains, primaryUrl } from '../domains/domains.js';
import { deployments, previewLinks } from '../schema.js';
import { sha256 } from '../serving/blobs.js';
import { PREVIEW_SEGMENT } from '../serving/preview.js';
import { deploymentSchema, presentDeployment, stepsWith } from './deployment.js';
import { read, siteTarget, write } from './operation-scopes.js';
import { noSiteSchema, presentSite, siteSchema } from './presentation.js';
import { createSite, findSite, requireActiveSite, requireSite, setVisibility, siteUrl, type Site } from './sites.js';
import { slugAvailability, slugInput } from './slugs.js';
import { presentTemplate, templates, templateSchema } from './templates.js';
import { previousPublished, publishVersion, requireVersion } from './versions.js';

const SITE_ERRORS = { 404: ['STOREFRONT_SITE_NOT_FOUND'] } as const;
const ACTIVE_SITE_ERRORS = { 404: ['STOREFRONT_SITE_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'] } as const;

/** Preview links open within 5 minutes (spec 02 §8). */
const PREVIEW_LINK_MS = 5 * 60_000;

/** Publish and rollback: guarded by `expectedPublishedVersionId`, approved for agents unless the store never went public. */
async function publishTo(ctx: StoreCtx, site: Site, versionId: string, expected: string | null | undefined, via: 'PUBLISH' | 'ROLLBACK') {
  if (expected !== undefined && expected !== site.publishedVersionId && versionId !== site.publishedVersionId) {
    throw fail(409, 'STOREFRONT_SITE_CHANGED', { expectedPublishedVersionId: expected, publishedVersionId: site.publishedVersionId });
  }
  const version = await requireVersion(ctx.db, ctx.store.id, versionId);
  return presentSite(ctx.services, ctx.db, await publishVersion(ctx.db, site, version, via, ctx.now));
}

/** The site: templates, address, creation and its deployment, visibility, publish and rollback, preview links. */
export const siteOperations = [
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
    errors: {
      403: ['STOREFRONT_HOSTING_DISABLED'],
      404: ['TEMPLATE_NOT_FOUND'],
      409: ['STOREFRONT_SITE_EXISTS', 'STOREFRONT_SLUG_TAKEN', 'STOREFRONT_SITE_CREATE_LIMIT', 'STORE_SUSPENDED'],
      503: ['SELLER_SANDBOX_UNAVAILABLE'],
    },
    target: () => ({ type: 'STOREFRONT_SITE', id: null }),
    handler: async (ctx) => {
      // The deployment builds the template: no site whose first build could never run.
      sellerSandboxed(ctx.services.config.storefront.sellerSandbox);
      const template = templates.find((t) => t.templateId === ctx.body.templateId);
      if (!template) throw fail(404, 'TEMPLATE_NOT_FOUND', { templateId: ctx.body.templateId, templates: templates.map((t) => t.templateId) });
      const { code } = (await findStore(ctx.db, ctx.store.id))!;
      const site = await createSite(ctx.services, ctx.db, ctx.store.id, template, ctx.body.slug ?? code, ctx.now);
      await moveStoreDomains(ctx.db, ctx.store.id, site.id, ctx.now);
      const deployment = (await ctx.db.select().from(deployments).where(eq(deployments.siteId, site.id)).get())!;
      return { ...(await presentSite(ctx.services, ctx.db, site)), deployment: presentDeployment(deployment) };
    },
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontDeployment',
    method: 'GET',
    path: '/v1/storefront/site/deployment',
    summary: "The site's deployment: poll until SUCCEEDED (steps SITE, UPLOAD, PUBLISH)",
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
    errors: {
      ...ACTIVE_SITE_ERRORS,
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_DEPLOYMENT_NOT_RETRYABLE'],
      503: ['SELLER_SANDBOX_UNAVAILABLE'],
    },
    target: siteTarget,
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      sellerSandboxed(ctx.services.config.storefront.sellerSandbox);
      const deployment = (await ctx.db.select().from(deployments).where(eq(deployments.siteId, site.id)).get())!;
      if (deployment.status !== 'FAILED') throw fail(409, 'STOREFRONT_DEPLOYMENT_NOT_RETRYABLE', { status: deployment.status });
      const retried = {
        ...deployment,
        status: 'RUNNING' as const,
        errorCode: null,
        buildId: null,
        nextAttemptAt: ctx.now,
        updatedAt: ctx.now,
        steps: stepsWith(stepsWith(deployment.steps, 'UPLOAD', 'PENDING'), 'PUBLISH', 'PENDING'),
        log: [...deployment.log, `${isoAt(ctx.now)} 다시 시도`],
      };
      await ctx.db.update(deployments).set(retried).where(eq(deployments.siteId, site.id)).run();
      return presentDeployment(retried);
    },
  }),
  defineOperation({
    ...write,
    operationId: 'setStorefrontVisibility',
    title: '쇼핑몰 공개 상태 변경',
    method: 'PUT',
    path: '/v1/storefront/site/visibility',
    summary: 'Open the site to visitors (PUBLIC) or show the coming-soon page (COMING_SOON)',
    agent: 'approval',
    body: z.object({ visibility: z.enum(['COMING_SOON', 'PUBLIC']), expectedVisibility: z.enum(['COMING_SOON', 'PUBLIC']) }).strict(),
    response: siteSchema,
    errors: { ...ACTIVE_SITE_ERRORS, 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_SITE_CHANGED', 'STOREFRONT_NOT_READY'] },
    target: siteTarget,
    preview: async (ctx) => ({
      changes: [{ field: 'visibility', before: (await findSite(ctx.db, ctx.store!.id))?.visibility ?? null, after: ctx.body.visibility }],
    }),
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      if (site.visibility !== ctx.body.expectedVisibility)
        throw fail(409, 'STOREFRONT_SITE_CHANGED', { expectedVisibility: ctx.body.expectedVisibility, visibility: site.visibility });
      return presentSite(
        ctx.services,
        ctx.db,
        await setVisibility(ctx.db, site, ctx.body.visibility, ctx.body.visibility === 'PUBLIC' && (await hasSellableProduct(ctx.db, ctx.store.id)), ctx.now),
      );
    },
  }),
  defineOperation({
    ...write,
    operationId: 'publishStorefrontVersion',
    title: '쇼핑몰 버전 게시',
    method: 'POST',
    path: '/v1/storefront/site/versions/{versionId}/publish',
    summary: 'Publish a version (publishing the published one succeeds); visitors get it once provisioning is SYNCED',
    agent: 'approval',
    agentApprovalExemptWhilePrivate: true,
    params: z.object({ versionId: z.string() }).strict(),
    body: z.object({ expectedPublishedVersionId: z.string().nullable().optional() }).strict(),
    response: siteSchema,
    errors: {
      404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_VERSION_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_SITE_CHANGED'],
    },
    target: siteTarget,
    preview: async (ctx) => ({
      changes: [{ field: 'publishedVersionId', before: (await findSite(ctx.db, ctx.store!.id))?.publishedVersionId ?? null, after: ctx.params.versionId }],
    }),
    handler: async (ctx) => publishTo(ctx, await requireActiveSite(ctx.db, ctx.store.id), ctx.params.versionId, ctx.body.expectedPublishedVersionId, 'PUBLISH'),
  }),
  defineOperation({
    ...write,
    operationId: 'rollbackStorefront',
    title: '쇼핑몰 이전 버전으로 되돌리기',
    method: 'POST',
    path: '/v1/storefront/site/rollback',
    summary: 'Publish an earlier version again (default: the one published just before the current one)',
    agent: 'approval',
    agentApprovalExemptWhilePrivate: true,
    body: z.object({ versionId: z.string().optional(), expectedPublishedVersionId: z.string().nullable().optional() }).strict(),
    response: siteSchema,
    errors: {
      404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_VERSION_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_SITE_CHANGED', 'STOREFRONT_NO_ROLLBACK_TARGET'],
    },
    target: siteTarget,
    preview: async (ctx) => {
      const site = await findSite(ctx.db, ctx.store!.id);
      return {
        changes: [
          {
            field: 'publishedVersionId',
            before: site?.publishedVersionId ?? null,
            after: ctx.body.versionId ?? (site ? await previousPublished(ctx.db, site) : null),
          },
        ],
      };
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
    // Old clients send a template choice: it answers 409 all the same, not a validation error.
    ignoresBody: true,
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
    errors: {
      404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_VERSION_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_NO_ADDRESS'],
    },
    target: siteTarget,
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      const versionId = ctx.body.versionId ?? site.publishedVersionId;
      if (!versionId) throw fail(404, 'STOREFRONT_VERSION_NOT_FOUND', { versionId: null });
      await requireVersion(ctx.db, ctx.store.id, versionId);
      // The preview opens on the site's own origin: `{slug}`'s, else (svc serve without a sites domain) a connected domain.
      const base = siteUrl(ctx.services, site.slug) ?? (await primaryUrl(ctx.services, ctx.db, site));
      if (!base) throw fail(409, 'STOREFRONT_NO_ADDRESS');
      const token = newSecret(24);
      const expiresAt = ctx.now + PREVIEW_LINK_MS;
      await ctx.db
        .insert(previewLinks)
        .values({
          id: newId('prv', ctx.now),
          tokenHash: sha256(token),
          storeId: ctx.store.id,
          versionId,
          createdBy: ctx.principal.userId,
          expiresAt,
          usedAt: null,
          createdAt: ctx.now,
        })
        .run();
      return { url: `${base}${PREVIEW_SEGMENT}open/${token}`, versionId, expiresAt: isoAt(expiresAt) };
    },
  }),
];
