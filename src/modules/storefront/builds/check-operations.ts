import { z } from 'zod';
import { defineOperation } from '../../../server/registry.js';
import { checkSchema, presentCheck, queueCheck, requireCheck, verifySchema, verifySite } from './checks.js';
import { read, siteTarget, write } from '../sites/operation-scopes.js';
import { requireActiveSite, requireSite } from '../sites/sites.js';

/** Verify (immediate rules) and checks (type check, lint, tests in a child process) of the site's files (spec 02 §4.2). */
export const checkOperations = [
  defineOperation({
    ...read,
    operationId: 'verifyStorefrontSite',
    method: 'POST',
    path: '/v1/storefront/site/verify',
    summary: "Check the site's files against the immediate rules (manifest, lockfile, entries, limits, the dependency policy's static part)",
    agent: 'direct',
    async: true,
    response: verifySchema,
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND'] },
    target: siteTarget,
    handler: async (ctx) => {
      await requireSite(ctx.db, ctx.store.id);
      return verifySite(ctx.services, ctx.store.id);
    },
  }),
  defineOperation({
    ...write,
    operationId: 'createStorefrontCheck',
    method: 'POST',
    path: '/v1/storefront/site/checks',
    summary: "Run type check, lint and tests on the site's files (one per site at a time; TIMED_OUT after 150 s); follow it at GET …/checks/{checkId}",
    status: 202,
    agent: 'direct',
    response: checkSchema,
    errors: {
      404: ['STOREFRONT_SITE_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'CHECK_RUNNING'],
      503: ['SELLER_SANDBOX_UNAVAILABLE'],
    },
    target: siteTarget,
    handler: async (ctx) => presentCheck(await queueCheck(ctx.services, ctx.db, await requireActiveSite(ctx.db, ctx.store.id), ctx.now)),
  }),
  defineOperation({
    ...read,
    operationId: 'getStorefrontCheck',
    method: 'GET',
    path: '/v1/storefront/site/checks/{checkId}',
    summary: "A check: its status and each step's result and output",
    params: z.object({ checkId: z.string().min(1).max(64) }).strict(),
    response: checkSchema,
    errors: { 404: ['STOREFRONT_CHECK_NOT_FOUND'] },
    handler: async (ctx) => presentCheck(await requireCheck(ctx.db, ctx.store.id, ctx.params.checkId)),
  }),
];
