import { isIP } from 'node:net';
import { and, eq, gt } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../../db/client.js';
import { fail } from '../../../server/errors.js';
import type { Services } from '../../../server/services.js';
import { sites, slugHolds } from '../schema.js';

/** Spec 02 §2.3: lowercase letters and digits, single inner hyphens, 3 to 30 characters. */
const SLUG_FORM = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const isSlug = (value: string) => value.length >= 3 && value.length <= 30 && SLUG_FORM.test(value);
const SLUG_RULE = '영문 소문자·숫자·하이픈 3~30자, 하이픈으로 시작·끝나거나 연달아 쓸 수 없습니다';
// The length as bounds of its own, not a look-ahead in the pattern: the document states both plainly.
export const slugInput = z.string().min(3, SLUG_RULE).max(30, SLUG_RULE).regex(SLUG_FORM, SLUG_RULE);

/**
 * Slugs no store may take: each site is served at `{slug}.{sitesDomain}`, so these would be the operator's
 * own hosts there (api, auth, the CNAME target, …) or names buyers read as the operator's.
 */
const RESERVED_SLUGS = [
  'api',
  'auth',
  'login',
  'www',
  'admin',
  'mail',
  'console',
  'status',
  'cdn',
  'static',
  'assets',
  'app',
  'apps',
  'docs',
  'help',
  'support',
  'dev',
];

/** The reserved slugs of this deployment: the fixed ones, and the first labels of the service's own hosts (the CNAME target's `domains`, …). */
export function reservedSlugs(services: Services): Set<string> {
  const { domainTarget } = services.config.storefront;
  const ownHosts = [domainTarget, services.config.appsHost, new URL(services.config.origin).hostname];
  return new Set([...RESERVED_SLUGS, ...ownHosts.filter((h): h is string => !!h && !isIP(h)).map((h) => h.toLowerCase().split('.')[0])]);
}

export type SlugUnavailable = 'INVALID' | 'RESERVED' | 'TAKEN';

/**
 * A slug is taken while another store's site uses it, a closing site uses it (even the store's own) or
 * another store holds it (an old address); a reserved one is never available.
 */
export async function slugAvailability(
  services: Services,
  db: Db,
  storeId: string,
  slug: string,
  now: number,
): Promise<{ available: boolean; reason: SlugUnavailable | null }> {
  if (!isSlug(slug)) return { available: false, reason: 'INVALID' };
  if (reservedSlugs(services).has(slug)) return { available: false, reason: 'RESERVED' };
  const holder = await db.select({ storeId: sites.storeId, status: sites.status }).from(sites).where(eq(sites.slug, slug)).get();
  const held = await db
    .select({ storeId: slugHolds.storeId })
    .from(slugHolds)
    .where(and(eq(slugHolds.slug, slug), gt(slugHolds.heldUntil, now)))
    .all();
  // A closing site keeps its address until deleted, from its own store's next site too.
  return (holder && (holder.storeId !== storeId || holder.status === 'CLOSED')) || held.some((h) => h.storeId !== storeId)
    ? { available: false, reason: 'TAKEN' }
    : { available: true, reason: null };
}

/** 409 STOREFRONT_SLUG_TAKEN unless the store may take `slug`; `details.reason` tells a reserved slug from a taken one. */
export async function assertSlugAvailable(services: Services, db: Db, storeId: string, slug: string, now: number) {
  const { available, reason } = await slugAvailability(services, db, storeId, slug, now);
  if (!available) throw fail(409, 'STOREFRONT_SLUG_TAKEN', { slug, reason });
}
