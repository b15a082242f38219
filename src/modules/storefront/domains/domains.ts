import { and, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import { whenAnswered, type Db } from '../../../db/client.js';
import { isoAt } from '../../../db/clock.js';
import { newId, newSecret } from '../../../db/ids.js';
import { preparedFor } from '../../../db/prepared.js';
import { fail } from '../../../server/errors.js';
import { defineMessages } from '../../../server/messages.js';
import { instant } from '../../../server/responses.js';
import type { Services } from '../../../server/services.js';
import { hostName } from '../../../server/request-guard.js';
import { deleteCertificates } from './certificates.js';
import { normalizeHostname } from './hostnames.js';
import { domains, sites } from '../schema.js';
import { changeSite, requireActiveSite, siteUrl, type Site } from '../sites/sites.js';

defineMessages({
  STOREFRONT_CUSTOM_DOMAINS_DISABLED: '아직 커스텀 도메인을 연결할 수 없습니다.',
  STOREFRONT_DOMAIN_INVALID: '연결할 수 없는 도메인입니다.',
  STOREFRONT_DOMAIN_NOT_FOUND: '도메인을 찾을 수 없습니다.',
  STOREFRONT_DOMAIN_EXISTS: '이미 추가한 도메인입니다.',
  STOREFRONT_DOMAIN_TAKEN: '다른 스토어가 연결했거나 확인한 도메인입니다.',
  STOREFRONT_DOMAIN_LIMIT: '더 이상 도메인을 추가할 수 없습니다.',
  STOREFRONT_DOMAIN_NOT_ACTIVE: '연결이 끝난 도메인만 기본 주소로 정할 수 있습니다.',
  STOREFRONT_DOMAIN_NOT_REMOVABLE: '기본 주소(서비스 주소)는 지울 수 없습니다.',
});

export type Domain = typeof domains.$inferSelect;

/** The id of the default address's entry (the site's `{slug}` address): selecting it as primary drops the custom one. */
export const PLATFORM_DOMAIN_ID = 'dom_platform';
export const TXT_PREFIX = '_svc-verify.';

// ── rows ─────────────────────────────────────────────────────────────────────

/** Domains that hold their hostname: another store may not add them (spec 02 §3, the take-over rule). */
export const holding = (db: Db, hostname: string, exceptStore: string) =>
  db
    .select({ id: domains.id })
    .from(domains)
    .where(and(eq(domains.hostname, hostname), eq(domains.held, true), ne(domains.storeId, exceptStore)))
    .get();

export const listDomains = (db: Db, storeId: string) =>
  db.select().from(domains).where(eq(domains.storeId, storeId)).orderBy(domains.addedAt, domains.id).all();

export async function requireDomain(db: Db, storeId: string, domainId: string): Promise<Domain> {
  const domain = await db.select().from(domains).where(eq(domains.id, domainId)).get();
  if (!domain || domain.storeId !== storeId) throw fail(404, 'STOREFRONT_DOMAIN_NOT_FOUND', { domainId });
  return domain;
}

export async function addDomain(services: Services, db: Db, storeId: string, input: string, now: number): Promise<Domain> {
  const { customDomainsOpen, customDomainLimit } = services.config.storefront;
  if (!customDomainsOpen) throw fail(403, 'STOREFRONT_CUSTOM_DOMAINS_DISABLED');
  const site = await requireActiveSite(db, storeId);
  const hostname = normalizeHostname(services, input);
  const existing = await listDomains(db, site.storeId);
  if (existing.some((d) => d.hostname === hostname)) throw fail(409, 'STOREFRONT_DOMAIN_EXISTS', { hostname });
  if (await holding(db, hostname, site.storeId)) throw fail(409, 'STOREFRONT_DOMAIN_TAKEN', { hostname });
  if (existing.length >= customDomainLimit) throw fail(409, 'STOREFRONT_DOMAIN_LIMIT', { limit: customDomainLimit });
  const domain: Domain = {
    id: newId('dom', now),
    storeId: site.storeId,
    siteId: site.id,
    hostname,
    status: 'PENDING_DNS',
    failureCode: null,
    verifyValue: `svc-verify=${newSecret(18)}`,
    primary: false,
    held: false,
    certificate: null,
    waitSince: now,
    addedAt: now,
    activatedAt: null,
    nextAttemptAt: now,
    updatedAt: now,
  };
  await db.insert(domains).values(domain).run();
  return domain;
}

/** Due now; a failed domain starts over (a new 7-day wait for its TXT record). */
export async function restartDomain(db: Db, domain: Domain, now: number): Promise<Domain> {
  const restarted =
    domain.status === 'FAILED'
      ? { ...domain, status: 'PENDING_DNS' as const, failureCode: null, held: false, waitSince: now, nextAttemptAt: now, updatedAt: now }
      : { ...domain, nextAttemptAt: now, updatedAt: now };
  await db.update(domains).set(restarted).where(eq(domains.id, domain.id)).run();
  return restarted;
}

/** Makes `domainId` the site's primary address (the PLATFORM entry: the default address). */
export async function setPrimary(db: Db, site: Site, domainId: string, now: number) {
  if (domainId !== PLATFORM_DOMAIN_ID) {
    const domain = await requireDomain(db, site.storeId, domainId);
    if (domain.status !== 'ACTIVE' || domain.failureCode)
      throw fail(409, 'STOREFRONT_DOMAIN_NOT_ACTIVE', { domainId, status: domain.status, failureCode: domain.failureCode });
  }
  await db
    .update(domains)
    .set({ primary: false, updatedAt: now })
    .where(and(eq(domains.storeId, site.storeId), eq(domains.primary, true)))
    .run();
  if (domainId !== PLATFORM_DOMAIN_ID) await db.update(domains).set({ primary: true, updatedAt: now }).where(eq(domains.id, domainId)).run();
  await changeSite(db, site, {}, now);
}

export async function removeDomain(db: Db, site: Site, domainId: string, now: number) {
  if (domainId === PLATFORM_DOMAIN_ID) throw fail(400, 'STOREFRONT_DOMAIN_NOT_REMOVABLE', { domainId });
  await requireDomain(db, site.storeId, domainId);
  await db.delete(domains).where(eq(domains.id, domainId)).run();
  await deleteCertificates(db, [domainId]);
  await changeSite(db, site, {}, now);
}

/** The site's connected domains (serving, return and analytics origins): ACTIVE and still pointing at the service. */
export const connectedDomains = async (db: Db, storeId: string) =>
  (
    await db
      .select()
      .from(domains)
      .where(and(eq(domains.storeId, storeId), eq(domains.status, 'ACTIVE')))
      .all()
  ).filter((d) => !d.failureCode);

/** Origins of the store's connected domains, allowed as payment-return and analytics origins. */
export const connectedOrigins = async (db: Db, storeId: string) => (await connectedDomains(db, storeId)).map((d) => `https://${d.hostname}`);

const q = preparedFor((db) => ({
  connectedSite: db
    .select({ slug: sites.slug })
    .from(domains)
    .innerJoin(sites, eq(sites.id, domains.siteId))
    .where(and(eq(domains.hostname, sql.placeholder('host')), eq(domains.status, 'ACTIVE'), isNull(domains.failureCode)))
    .prepare(),
}));

/** Custom-domain look-ups of requests, so a request asked twice (early serving, then the full path) reads once. */
const lookedUp = new WeakMap<object, string | null>();

/**
 * The slug of the site a connected custom domain serves, or null: one prepared read per request (`request`,
 * when given, remembers it) on a host other than the service's own, `ownHost`.
 */
export function customDomainSlug(services: Services, hostHeader: string | null, ownHost: string, request?: object): string | null | Promise<string | null> {
  const host = hostName(hostHeader ?? '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (!host || host === ownHost) return null;
  const known = request && lookedUp.get(request);
  if (known !== undefined) return known;
  return whenAnswered(q(services.db).connectedSite.get({ host }), (row) => {
    const slug = row?.slug ?? null;
    if (request) lookedUp.set(request, slug);
    return slug;
  });
}

/**
 * The address visitors are sent to: the primary custom domain when connected, else `{slug}`'s — and in
 * svc serve without a sites domain, where `{slug}` has none, the first connected domain (null: none yet).
 */
export async function primaryUrl(services: Services, db: Db, site: Site): Promise<string | null> {
  const primary = await db
    .select({ hostname: domains.hostname, failureCode: domains.failureCode })
    .from(domains)
    .where(and(eq(domains.siteId, site.id), eq(domains.primary, true)))
    .get();
  if (primary && !primary.failureCode) return `https://${primary.hostname}/`;
  const own = siteUrl(services, site.slug);
  if (own) return own;
  const [first] = await connectedOrigins(db, site.storeId);
  return first ? `${first}/` : null;
}

/**
 * A store's next site, created while its previous one closes, takes over the store's custom domains: the
 * store holds them, and a visitor at the shop's own domain should reach the shop it runs now.
 */
export async function moveStoreDomains(db: Db, storeId: string, siteId: string, now: number) {
  await db.update(domains).set({ siteId, updatedAt: now }).where(eq(domains.storeId, storeId)).run();
}

/** Removes the domains of a site deleted at the end of its closing period (its hostnames are free again). */
export async function deleteSiteDomains(db: Db, siteIds: string[]) {
  const removed = await db.delete(domains).where(inArray(domains.siteId, siteIds)).returning({ id: domains.id }).all();
  await deleteCertificates(
    db,
    removed.map((d) => d.id),
  );
}

// ── presentation ─────────────────────────────────────────────────────────────

export const domainSchema = z.object({
  domainId: z.string(),
  hostname: z.string().describe('punycode'),
  kind: z.enum(['PLATFORM', 'CUSTOM']),
  status: z.enum(['PENDING_DNS', 'PENDING_VALIDATION', 'ACTIVE', 'FAILED']),
  failureCode: z.enum(['DNS_NOT_CONFIGURED', 'CERTIFICATE_FAILED', 'VALIDATION_TIMEOUT', 'DNS_NOT_POINTING']).nullable(),
  dnsRecords: z.array(z.object({ type: z.enum(['TXT', 'CNAME']), name: z.string(), value: z.string() })),
  target: z.string().nullable(),
  primary: z.boolean(),
  addedAt: instant,
  activatedAt: instant.nullable(),
});
export const domainListSchema = z.object({ enabled: z.boolean(), limit: z.number().int(), contents: z.array(domainSchema) });

export function presentDomain(services: Services, d: Domain): z.output<typeof domainSchema> {
  const target = services.config.storefront.domainTarget;
  return {
    domainId: d.id,
    hostname: d.hostname,
    kind: 'CUSTOM',
    status: d.status,
    failureCode: d.failureCode as z.output<typeof domainSchema>['failureCode'],
    dnsRecords: [
      { type: 'TXT', name: `${TXT_PREFIX}${d.hostname}`, value: d.verifyValue },
      { type: 'CNAME', name: d.hostname, value: target },
    ],
    target,
    primary: d.primary && !d.failureCode,
    addedAt: isoAt(d.addedAt),
    activatedAt: d.activatedAt === null ? null : isoAt(d.activatedAt),
  };
}

/** The list: the default address first (PLATFORM, always active; none in svc serve without a sites domain), then the custom domains. */
export async function presentDomainList(services: Services, db: Db, site: Site): Promise<z.output<typeof domainListSchema>> {
  const custom = await listDomains(db, site.storeId);
  const platformPrimary = !custom.some((d) => d.primary && !d.failureCode);
  const own = siteUrl(services, site.slug);
  const platform: z.output<typeof domainSchema>[] = own
    ? [
        {
          domainId: PLATFORM_DOMAIN_ID,
          hostname: new URL(own).host,
          kind: 'PLATFORM',
          status: 'ACTIVE',
          failureCode: null,
          dnsRecords: [],
          target: null,
          primary: platformPrimary,
          addedAt: isoAt(site.createdAt),
          activatedAt: isoAt(site.createdAt),
        },
      ]
    : [];
  const { customDomainsOpen, customDomainLimit } = services.config.storefront;
  return { enabled: customDomainsOpen, limit: customDomainLimit, contents: [...platform, ...custom.map((d) => presentDomain(services, d))] };
}
