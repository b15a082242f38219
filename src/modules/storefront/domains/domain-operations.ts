import { z } from 'zod';
import { defineOperation, type StoreCtx } from '../../../server/registry.js';
import { verifyDomainNow } from './domain-job.js';
import {
  addDomain,
  domainListSchema,
  domainSchema,
  listDomains,
  PLATFORM_DOMAIN_ID,
  presentDomain,
  presentDomainList,
  removeDomain,
  setPrimary,
} from './domains.js';
import { read, write } from '../sites/operation-scopes.js';
import { findSite, requireActiveSite, requireSite } from '../sites/sites.js';

const domainParams = z.object({ domainId: z.string().min(1).max(64) }).strict();
const domainTarget = (ctx: StoreCtx) => ({ type: 'STOREFRONT_DOMAIN', id: (ctx.params as { domainId?: string }).domainId ?? null });
const currentPrimary = async (ctx: StoreCtx) => (await listDomains(ctx.db, ctx.store!.id)).find((d) => d.primary && !d.failureCode)?.id ?? PLATFORM_DOMAIN_ID;

/** Custom domains of the hosted storefront (spec 02 §4.2): add, DNS guidance, re-check, primary, removal. */
export const domainOperations = [
  defineOperation({
    ...read,
    operationId: 'listStorefrontDomains',
    method: 'GET',
    path: '/v1/storefront/site/domains',
    summary: "The site's addresses: the default one (PLATFORM) and custom domains with their DNS records",
    response: domainListSchema,
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND'] },
    handler: async (ctx) => presentDomainList(ctx.services, ctx.db, await requireSite(ctx.db, ctx.store.id)),
  }),
  defineOperation({
    ...write,
    operationId: 'addStorefrontDomain',
    title: '연결 도메인 추가',
    method: 'POST',
    path: '/v1/storefront/site/domains',
    summary: 'Add a custom domain: set the two DNS records it answers, then it goes PENDING_DNS → PENDING_VALIDATION → ACTIVE',
    status: 201,
    agent: 'approval',
    body: z.object({ hostname: z.string().min(1).max(253) }).strict(),
    response: domainSchema,
    errors: {
      400: ['STOREFRONT_DOMAIN_INVALID'],
      403: ['STOREFRONT_CUSTOM_DOMAINS_DISABLED'],
      404: ['STOREFRONT_SITE_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_DOMAIN_EXISTS', 'STOREFRONT_DOMAIN_TAKEN', 'STOREFRONT_DOMAIN_LIMIT'],
    },
    target: () => ({ type: 'STOREFRONT_DOMAIN', id: null }),
    preview: (ctx) => ({ changes: [{ field: 'domains', before: null, after: ctx.body.hostname }] }),
    handler: async (ctx) => presentDomain(ctx.services, await addDomain(ctx.services, ctx.db, ctx.store.id, ctx.body.hostname, ctx.now)),
  }),
  defineOperation({
    ...write,
    operationId: 'verifyStorefrontDomain',
    method: 'POST',
    path: '/v1/storefront/site/domains/{domainId}/verify',
    summary: "Look at the domain's DNS again now (a FAILED domain starts over); answers the domain as it is afterwards",
    agent: 'direct',
    async: true,
    params: domainParams,
    response: domainSchema,
    errors: { 404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_DOMAIN_NOT_FOUND'], 409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'] },
    target: domainTarget,
    handler: async (ctx) => presentDomain(ctx.services, await verifyDomainNow(ctx.services, ctx.store.id, ctx.params.domainId)),
  }),
  defineOperation({
    ...write,
    operationId: 'setStorefrontPrimaryDomain',
    title: '대표 도메인 변경',
    method: 'POST',
    path: '/v1/storefront/site/domains/{domainId}/primary',
    summary: "Make a connected domain the site's address (the PLATFORM entry's id selects the default address)",
    agent: 'approval',
    params: domainParams,
    response: domainListSchema,
    errors: {
      404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_DOMAIN_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED', 'STOREFRONT_DOMAIN_NOT_ACTIVE'],
    },
    target: domainTarget,
    preview: async (ctx) => ({
      changes: [
        { field: 'primary', before: (await findSite(ctx.db, ctx.store!.id)) ? await currentPrimary(ctx as StoreCtx) : null, after: ctx.params.domainId },
      ],
    }),
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      await setPrimary(ctx.db, site, ctx.params.domainId, ctx.now);
      return presentDomainList(ctx.services, ctx.db, site);
    },
  }),
  defineOperation({
    ...write,
    operationId: 'removeStorefrontDomain',
    title: '연결 도메인 삭제',
    method: 'DELETE',
    path: '/v1/storefront/site/domains/{domainId}',
    summary: 'Remove a custom domain (the default address cannot be removed)',
    agent: 'approval',
    params: domainParams,
    response: domainListSchema,
    errors: {
      400: ['STOREFRONT_DOMAIN_NOT_REMOVABLE'],
      404: ['STOREFRONT_SITE_NOT_FOUND', 'STOREFRONT_DOMAIN_NOT_FOUND'],
      409: ['STOREFRONT_SITE_NOT_ACTIVE', 'STORE_SUSPENDED'],
    },
    target: domainTarget,
    preview: (ctx) => ({ changes: [{ field: 'domains', before: ctx.params.domainId, after: null }] }),
    handler: async (ctx) => {
      const site = await requireActiveSite(ctx.db, ctx.store.id);
      await removeDomain(ctx.db, site, ctx.params.domainId, ctx.now);
      return presentDomainList(ctx.services, ctx.db, site);
    },
  }),
];
