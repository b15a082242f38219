import type { StoreCtx } from '../../../server/registry.js';
import { findSite } from './sites.js';

const tag = 'Hosted storefront';
/** Shared by every storefront operation file. */
export const read = { auth: 'store' as const, scope: 'storefront:r', tag };
export const write = { auth: 'store' as const, scope: 'storefront:rw', tag };
export const siteTarget = async (ctx: StoreCtx) => ({ type: 'STOREFRONT_SITE', id: (await findSite(ctx.db, ctx.store.id))?.id ?? null });
