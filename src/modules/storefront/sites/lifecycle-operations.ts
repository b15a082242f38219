import { z } from 'zod';
import { defineOperation } from '../../../server/registry.js';
import { changeSlug, disableSite } from './lifecycle.js';
import { siteTarget, write } from './operation-scopes.js';
import { findSite, requireActiveSite } from './sites.js';
import { presentSite, siteSchema } from './presentation.js';
import { slugInput } from './slugs.js';

/** The site's address and its end (spec 02 §4.2): slug change with a 90-day hold, disable with a closing period. */
export const lifecycleOperations = [
  defineOperation({
    ...write,
    operationId: 'changeStorefrontSlug',
    title: '쇼핑몰 주소 변경',
    method: 'PUT',
    path: '/v1/storefront/site/slug',
    summary: "Change the site's address (3 per 30 days); the old address is held 90 days and redirects to the new one",
    agent: 'approval',
    body: z.object({ slug: slugInput }).strict(),
    response: siteSchema,
    errors: {
      404: ['STOREFRONT_SITE_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_SLUG_TAKEN', 'STOREFRONT_SLUG_CHANGE_LIMIT'],
    },
    target: siteTarget,
    preview: async (ctx) => ({ changes: [{ field: 'slug', before: (await findSite(ctx.db, ctx.store!.id))?.slug ?? null, after: ctx.body.slug }] }),
    handler: async (ctx) =>
      presentSite(ctx.services, ctx.db, await changeSlug(ctx.services, ctx.db, await requireActiveSite(ctx.db, ctx.store.id), ctx.body.slug, ctx.now)),
  }),
  defineOperation({
    ...write,
    operationId: 'disableStorefrontSite',
    title: '쇼핑몰 닫기',
    method: 'POST',
    path: '/v1/storefront/site/disable',
    summary:
      'Close the site: visitors see a closing notice for 30 days (versions, source files and custom domains stay readable), then the site is deleted with them and the address freed',
    agent: 'approval',
    ownerApprovalOnly: true,
    idempotent: false,
    body: z.object({ confirmSlug: z.string().min(1).max(100) }).strict(),
    response: siteSchema,
    errors: { 400: ['STOREFRONT_SLUG_CONFIRM_MISMATCH'], 404: ['STOREFRONT_SITE_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'] },
    target: siteTarget,
    preview: async (ctx) => ({ changes: [{ field: 'status', before: (await findSite(ctx.db, ctx.store!.id))?.status ?? null, after: 'CLOSED' }] }),
    handler: async (ctx) =>
      presentSite(ctx.services, ctx.db, await disableSite(ctx.db, await requireActiveSite(ctx.db, ctx.store.id), ctx.body.confirmSlug, ctx.now)),
  }),
];
