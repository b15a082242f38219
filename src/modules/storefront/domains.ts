import { isIP } from 'node:net';
import { Resolver } from 'node:dns/promises';
import { domainToASCII, domainToUnicode } from 'node:url';
import { and, count, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { parse as parseDomain } from 'tldts';
import { z } from 'zod';
import { transaction, whenAnswered, type Db } from '../../db/client.js';
import { claimEachDue, claimNextDue } from '../../db/claim.js';
import { isoAt } from '../../db/clock.js';
import { newId, newSecret } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import type { Job } from '../../server/jobs.js';
import { defineMessages } from '../../server/messages.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { DEV_SITES_DOMAIN, hostName } from '../../server/request-guard.js';
import { deleteCertificates, issuerOf, RENEW_BEFORE_MS, storeCertificate, type Issuance } from './certificates.js';
import { domains, sites } from './schema.js';
import { changeSite, requireActiveSite, siteUrl, type Site } from './service.js';

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

const MINUTE = 60_000;
const DAY = 86_400_000;
/** No TXT record within 7 days → FAILED DNS_NOT_CONFIGURED (spec 02 §8). */
export const TXT_WAIT_MS = 7 * DAY;
/** TXT proven but no CNAME or certificate within 72 hours (DNS propagation takes up to 48) → VALIDATION_TIMEOUT. */
export const VALIDATION_WAIT_MS = 72 * 3_600_000;
/** An active domain whose DNS moved away is released after over 7 days. */
export const NOT_POINTING_RELEASE_MS = 7 * DAY;
/** How often pending domains are looked up, and active ones re-checked. */
export const PENDING_POLL_MS = 5 * MINUTE;
export const ACTIVE_POLL_MS = 60 * MINUTE;
/** The id of the default address's entry (the site's `{slug}` address): selecting it as primary drops the custom one. */
export const PLATFORM_DOMAIN_ID = 'dom_platform';
export const TXT_PREFIX = '_svc-verify.';

// ── hostnames ────────────────────────────────────────────────────────────────

type InvalidReason = 'SYNTAX' | 'IP_ADDRESS' | 'WILDCARD' | 'PUBLIC_SUFFIX' | 'SERVICE_DOMAIN' | 'MIXED_SCRIPT' | 'CONFUSABLE';
const invalid = (reason: InvalidReason, hostname: string, extra: Record<string, unknown> = {}) => fail(400, 'STOREFRONT_DOMAIN_INVALID', { reason, hostname, ...extra });
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

const under = (host: string, domain: string | null | undefined) => !!domain && (host === domain || host.endsWith(`.${domain}`));

/**
 * The service's own hosts: its origin, the sites and apps domains and the CNAME target. svc dev's sites
 * domain `localhost` is the exception: only `{slug}.localhost` is a site's (sitesDevHost), deeper names
 * under it are how custom domains are tried locally.
 */
function serviceHosts(services: Services): string[] {
  const { sitesDomain, domainTarget } = services.config.storefront;
  const sites = sitesDomain === DEV_SITES_DOMAIN ? null : sitesDomain;
  return [new URL(services.config.origin).hostname, sites, services.config.appsHost, domainTarget].filter((h): h is string => !!h).map((h) => h.toLowerCase());
}

/** `{label}.localhost` while svc dev serves sites there: a slug's address, never a custom domain. */
const sitesDevHost = (services: Services, host: string) => services.config.storefront.sitesDomain === DEV_SITES_DOMAIN && host.split('.').length === 2 && host.endsWith(`.${DEV_SITES_DOMAIN}`);

/** A hostname a store may connect, in punycode (spec 02 §4.2), or 400 STOREFRONT_DOMAIN_INVALID with the reason. */
export function normalizeHostname(services: Services, input: string): string {
  const raw = input.trim().replace(/\.$/, '');
  if (raw.includes('*')) throw invalid('WILDCARD', input);
  const bare = raw.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) throw invalid('IP_ADDRESS', input);
  const host = domainToASCII(raw).toLowerCase();
  const labels = host.split('.');
  if (!host || host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) throw invalid('SYNTAX', input);
  // All-numeric names read as IPv4 addresses by resolvers and browsers.
  if (/^[0-9.]+$/.test(host)) throw invalid('IP_ADDRESS', input);
  const parsed = parseDomain(host, { allowPrivateDomains: true });
  if (parsed.isIp) throw invalid('IP_ADDRESS', input);
  if (!parsed.domain || parsed.publicSuffix === host) throw invalid('PUBLIC_SUFFIX', input);
  if (serviceHosts(services).some((own) => under(host, own) || under(own, host)) || sitesDevHost(services, host)) throw invalid('SERVICE_DOMAIN', input);
  const spoof = spoofingLabel(domainToUnicode(host));
  if (spoof) throw invalid(spoof.reason, input, { asciiHostname: host, label: spoof.label });
  return host;
}

/**
 * Scripts told apart in a label (UTS #39). Characters of Common (digits, hyphen) and Inherited (combining
 * marks) go with any script; a letter of a script not listed counts as `Other`.
 */
const SCRIPTS = [
  'Latin', 'Greek', 'Cyrillic', 'Armenian', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu',
  'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao', 'Tibetan', 'Myanmar', 'Georgian', 'Hangul', 'Ethiopic', 'Cherokee', 'Khmer', 'Mongolian', 'Hiragana', 'Katakana', 'Bopomofo', 'Han',
].map((name) => ({ name, letter: new RegExp(`^\\p{Script=${name}}$`, 'u') }));
const ANY_SCRIPT = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
/** UTS #39 "highly restrictive": besides one script alone, only these mixes are the way a language is written (Japanese, Chinese, Korean with Latin). */
const WRITING_SYSTEMS = [['Latin', 'Han', 'Hiragana', 'Katakana'], ['Latin', 'Han', 'Bopomofo'], ['Latin', 'Han', 'Hangul']];
/**
 * Cyrillic and Greek letters that look like Latin ones (Cyrillic: Chromium's IDN display list): a label of
 * these alone reads as a Latin name (`аррӏе` for apple).
 */
const LATIN_LOOKALIKES: Record<string, RegExp> = {
  Cyrillic: /^[аысԁеԍһіюјӏорԛѕԝхуъьҽпгѵѡ0-9-]+$/u,
  Greek: /^[αικνορτυχ0-9-]+$/u,
};

const scriptsOf = (label: string) => new Set([...label].filter((ch) => !ANY_SCRIPT.test(ch)).map((ch) => SCRIPTS.find((s) => s.letter.test(ch))?.name ?? 'Other'));

/**
 * The first label of a hostname (in Unicode) that could pass for another name: letters of scripts no
 * language mixes (Latin with Cyrillic: `раypal`), or a Cyrillic or Greek label of Latin look-alikes only
 * under a top-level domain of another script. Korean (Hangul, also with Han and Latin) passes.
 */
function spoofingLabel(hostname: string): { reason: 'MIXED_SCRIPT' | 'CONFUSABLE'; label: string } | null {
  const labels = hostname.split('.');
  const tldScripts = scriptsOf(labels[labels.length - 1]);
  for (const label of labels) {
    const scripts = [...scriptsOf(label)];
    if (scripts.length > 1 && !WRITING_SYSTEMS.some((system) => scripts.every((s) => system.includes(s)))) return { reason: 'MIXED_SCRIPT', label };
    const [only] = scripts;
    if (scripts.length === 1 && LATIN_LOOKALIKES[only]?.test(label) && !tldScripts.has(only)) return { reason: 'CONFUSABLE', label };
  }
  return null;
}

// ── DNS ──────────────────────────────────────────────────────────────────────

/** What a look-up found: `absent` is a definite answer (no such name or record); `error` says nothing. */
type Lookup<T> = { found: T } | { absent: true } | { error: string };
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'NOTFOUND']);

async function lookup<T>(work: () => Promise<T>): Promise<Lookup<T>> {
  try {
    return { found: await work() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    return ABSENT.has(code) ? { absent: true } : { error: code || (error as Error).message };
  }
}

/** DNS through the configured servers (`SVC_DNS_SERVERS`), never cached here: each check asks again. */
export class DnsChecker {
  private readonly resolver = new Resolver({ timeout: 3000, tries: 2 });

  constructor(servers: string[]) {
    if (servers.length) this.resolver.setServers(servers);
  }

  txt(name: string) {
    return lookup(async () => (await this.resolver.resolveTxt(name)).map((chunks) => chunks.join('')));
  }

  caa(name: string) {
    return lookup(() => this.resolver.resolveCaa(name));
  }

  /**
   * Whether `host` points at `target`: its CNAME names it, or (root domains with CNAME flattening) its
   * addresses are the target's.
   */
  async pointsAt(host: string, target: string): Promise<Lookup<boolean>> {
    const cname = await lookup(() => this.resolver.resolveCname(host));
    if ('found' in cname && cname.found.length) return { found: cname.found.some((c) => c.toLowerCase().replace(/\.$/, '') === target) };
    if ('error' in cname) return cname;
    const [own, theirs] = await Promise.all([lookup(() => this.resolver.resolve4(host)), lookup(() => this.resolver.resolve4(target))]);
    if ('error' in own) return own;
    if ('absent' in own) return { absent: true };
    if (!('found' in theirs)) return { found: false };
    return { found: own.found.some((a) => theirs.found.includes(a)) };
  }
}

const checkers = new WeakMap<Services, DnsChecker>();
const dnsOf = (services: Services) => {
  let checker = checkers.get(services);
  if (!checker) checkers.set(services, (checker = new DnsChecker(services.config.storefront.dnsServers)));
  return checker;
};

// ── rows ─────────────────────────────────────────────────────────────────────

/** Domains that hold their hostname: another store may not add them (spec 02 §3, the take-over rule). */
const holding = (db: Db, hostname: string, exceptStore: string) => db.select({ id: domains.id }).from(domains)
  .where(and(eq(domains.hostname, hostname), eq(domains.held, true), ne(domains.storeId, exceptStore))).get();

export const listDomains = (db: Db, storeId: string) => db.select().from(domains).where(eq(domains.storeId, storeId)).orderBy(domains.addedAt, domains.id).all();

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
    id: newId('dom', now), storeId: site.storeId, siteId: site.id, hostname, status: 'PENDING_DNS', failureCode: null, verifyValue: `svc-verify=${newSecret(18)}`,
    primary: false, held: false, certificate: null, waitSince: now, addedAt: now, activatedAt: null, nextAttemptAt: now, updatedAt: now,
  };
  await db.insert(domains).values(domain).run();
  return domain;
}

/** Due now; a failed domain starts over (a new 7-day wait for its TXT record). */
export async function restartDomain(db: Db, domain: Domain, now: number): Promise<Domain> {
  const restarted = domain.status === 'FAILED'
    ? { ...domain, status: 'PENDING_DNS' as const, failureCode: null, held: false, waitSince: now, nextAttemptAt: now, updatedAt: now }
    : { ...domain, nextAttemptAt: now, updatedAt: now };
  await db.update(domains).set(restarted).where(eq(domains.id, domain.id)).run();
  return restarted;
}

/** Makes `domainId` the site's primary address (the PLATFORM entry: the default address). */
export async function setPrimary(db: Db, site: Site, domainId: string, now: number) {
  if (domainId !== PLATFORM_DOMAIN_ID) {
    const domain = await requireDomain(db, site.storeId, domainId);
    if (domain.status !== 'ACTIVE' || domain.failureCode) throw fail(409, 'STOREFRONT_DOMAIN_NOT_ACTIVE', { domainId, status: domain.status, failureCode: domain.failureCode });
  }
  await db.update(domains).set({ primary: false, updatedAt: now }).where(and(eq(domains.storeId, site.storeId), eq(domains.primary, true))).run();
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
export const connectedDomains = async (db: Db, storeId: string) => (await db.select().from(domains)
  .where(and(eq(domains.storeId, storeId), eq(domains.status, 'ACTIVE'))).all()).filter((d) => !d.failureCode);

/** Origins of the store's connected domains, allowed as payment-return and analytics origins. */
export const connectedOrigins = async (db: Db, storeId: string) => (await connectedDomains(db, storeId)).map((d) => `https://${d.hostname}`);

const q = preparedFor((db) => ({
  connectedSite: db.select({ slug: sites.slug }).from(domains).innerJoin(sites, eq(sites.id, domains.siteId))
    .where(and(eq(domains.hostname, sql.placeholder('host')), eq(domains.status, 'ACTIVE'), isNull(domains.failureCode))).prepare(),
}));

/** Custom-domain look-ups of requests, so a request asked twice (early serving, then the full path) reads once. */
const lookedUp = new WeakMap<object, string | null>();

/**
 * The slug of the site a connected custom domain serves, or null: one prepared read per request (`request`,
 * when given, remembers it) on a host other than the service's own, `ownHost`.
 */
export function customDomainSlug(services: Services, hostHeader: string | null, ownHost: string, request?: object): string | null | Promise<string | null> {
  const host = hostName(hostHeader ?? '').replace(/\.$/, '').toLowerCase();
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
  const primary = await db.select({ hostname: domains.hostname, failureCode: domains.failureCode }).from(domains).where(and(eq(domains.siteId, site.id), eq(domains.primary, true))).get();
  if (primary && !primary.failureCode) return `https://${primary.hostname}/`;
  const own = siteUrl(services, site.slug);
  if (own) return own;
  const [first] = await connectedOrigins(db, site.storeId);
  return first ? `${first}/` : null;
}

// ── the domain job ───────────────────────────────────────────────────────────

/** What a look learned: the domain's changes, and the chain and key of a certificate just issued. */
type Step = Partial<Domain> & { issuedPem?: { chain: string; key: string } | null };

/** One look at a domain's DNS (and certificate), as the change to apply; null: nothing definite learned. */
async function examine(services: Services, domain: Domain, now: number): Promise<Step> {
  const dns = dnsOf(services);
  const { domainTarget } = services.config.storefront;
  if (domain.status === 'PENDING_DNS') {
    const txt = await dns.txt(`${TXT_PREFIX}${domain.hostname}`);
    if ('found' in txt && txt.found.includes(domain.verifyValue)) {
      // Proven: the CNAME and certificate are looked at in the same pass (both records are usually set together).
      const proven = { status: 'PENDING_VALIDATION' as const, held: true, waitSince: now };
      return { ...proven, ...(await examine(services, { ...domain, ...proven }, now)) };
    }
    if (now - domain.waitSince > TXT_WAIT_MS) return { status: 'FAILED', failureCode: 'DNS_NOT_CONFIGURED', nextAttemptAt: null };
    return { nextAttemptAt: now + PENDING_POLL_MS };
  }
  if (domain.status === 'PENDING_VALIDATION') {
    const points = await dns.pointsAt(domain.hostname, domainTarget);
    if ('found' in points && points.found) {
      const issued = await issuerOf(services).issue(services, domain.hostname, dns, now);
      if (!issued.ok) {
        console.error(`[svc] certificate for ${domain.hostname} not issued: ${issued.detail}`);
        return { status: 'FAILED', failureCode: 'CERTIFICATE_FAILED', held: false, nextAttemptAt: null };
      }
      return { status: 'ACTIVE', failureCode: null, activatedAt: now, ...certified(issued, now), nextAttemptAt: now + ACTIVE_POLL_MS };
    }
    if (now - domain.waitSince > VALIDATION_WAIT_MS) return { status: 'FAILED', failureCode: 'VALIDATION_TIMEOUT', held: false, nextAttemptAt: null };
    return { nextAttemptAt: now + PENDING_POLL_MS };
  }
  // ACTIVE: still pointing here? A domain that moved away leaves the allowed origins and is released after 7 days.
  const points = await dns.pointsAt(domain.hostname, domainTarget);
  if ('error' in points) return { nextAttemptAt: now + PENDING_POLL_MS };
  const pointing = 'found' in points && points.found;
  if (pointing) return { failureCode: null, waitSince: now, nextAttemptAt: now + ACTIVE_POLL_MS, ...(await renewed(services, domain, dns, now)) };
  if (domain.failureCode !== 'DNS_NOT_POINTING') return { failureCode: 'DNS_NOT_POINTING', primary: false, waitSince: now, nextAttemptAt: now + PENDING_POLL_MS };
  if (now - domain.waitSince > NOT_POINTING_RELEASE_MS) return { status: 'FAILED', held: false, primary: false, nextAttemptAt: null };
  return { nextAttemptAt: now + PENDING_POLL_MS };
}

/** A new certificate when the current one expires within 30 days; a failed renewal is tried again at the next look. */
async function renewed(services: Services, domain: Domain, dns: DnsChecker, now: number): Promise<Step> {
  if (domain.certificate && domain.certificate.expiresAt - now > RENEW_BEFORE_MS) return {};
  const issued = await issuerOf(services).issue(services, domain.hostname, dns, now);
  if (!issued.ok) {
    console.error(`[svc] certificate for ${domain.hostname} not renewed: ${issued.detail}`);
    return {};
  }
  return certified(issued, now);
}

/** The domain's record of an issued certificate, and its chain and key to keep. */
const certified = (issued: Extract<Issuance, { ok: true }>, now: number): Step =>
  ({ certificate: { issuer: issued.issuer, issuedAt: now, expiresAt: issued.expiresAt }, issuedPem: issued.pem });

/** Looks at a claimed domain's DNS and applies what was learned. */
async function checkDomain(services: Services, domain: Domain, now: number) {
  const { issuedPem, ...step } = await examine(services, domain, now);
  await transaction(services.db, async () => {
    const current = await services.db.select().from(domains).where(eq(domains.id, domain.id)).get();
    // Removed or restarted while DNS was asked: the newer state has its own attempt.
    if (!current || current.status !== domain.status || current.waitSince !== domain.waitSince) return;
    // Another store proved the TXT first: this one waits (its add was refused TAKEN had it come later).
    if (step.held && await holding(services.db, current.hostname, current.storeId)) {
      await services.db.update(domains).set({ nextAttemptAt: now + PENDING_POLL_MS, updatedAt: now }).where(eq(domains.id, current.id)).run();
      return;
    }
    const becameActive = step.status === 'ACTIVE' && current.status !== 'ACTIVE';
    const primaryBefore = (await services.db.select({ n: count() }).from(domains).where(and(eq(domains.storeId, current.storeId), eq(domains.primary, true))).get())!.n;
    const primary = becameActive && primaryBefore === 0 ? { primary: true } : {};
    await services.db.update(domains).set({ ...step, ...primary, updatedAt: now }).where(eq(domains.id, current.id)).run();
    if (issuedPem) await storeCertificate(services, current.id, current.hostname, issuedPem, now);
    const servingChanged = becameActive || step.failureCode !== undefined || step.primary !== undefined || step.status === 'FAILED';
    const site = servingChanged ? await services.db.select().from(sites).where(eq(sites.id, current.siteId)).get() : undefined;
    if (site) await changeSite(services.db, site, {}, now);
  });
}

async function advanceDomains(services: Services, now: number): Promise<number> {
  let handled = 0;
  for await (const domain of claimEachDue(services.db, domains, now)) {
    await checkDomain(services, domain, now);
    handled++;
  }
  return handled;
}

/**
 * `…/verify`: looks again now, in the request (a FAILED domain starts over with a new 7-day wait); the
 * domain as it is afterwards. Should the job runner have it at this moment, its answer is the one shown.
 */
export async function verifyDomainNow(services: Services, storeId: string, domainId: string): Promise<Domain> {
  const now = services.clock.now();
  const restarted = await transaction(services.db, async () => {
    await requireActiveSite(services.db, storeId);
    return restartDomain(services.db, await requireDomain(services.db, storeId, domainId), now);
  });
  // Should the job runner have it at this moment, this request leaves it be.
  const claimed = await claimNextDue(services.db, domains, now, { where: eq(domains.id, restarted.id) });
  if (claimed) await checkDomain(services, claimed, now);
  return (await services.db.select().from(domains).where(eq(domains.id, domainId)).get()) ?? restarted;
}

export const domainJob: Job = { name: 'storefront-domains', run: (services, now) => advanceDomains(services, now) };

/** Removes the domains of a disabled site (its hostnames are free again). */
export async function deleteSiteDomains(db: Db, siteIds: string[]) {
  const removed = await db.delete(domains).where(inArray(domains.siteId, siteIds)).returning({ id: domains.id }).all();
  await deleteCertificates(db, removed.map((d) => d.id));
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
    domainId: d.id, hostname: d.hostname, kind: 'CUSTOM', status: d.status, failureCode: d.failureCode as z.output<typeof domainSchema>['failureCode'],
    dnsRecords: [{ type: 'TXT', name: `${TXT_PREFIX}${d.hostname}`, value: d.verifyValue }, { type: 'CNAME', name: d.hostname, value: target }],
    target, primary: d.primary && !d.failureCode, addedAt: isoAt(d.addedAt), activatedAt: d.activatedAt === null ? null : isoAt(d.activatedAt),
  };
}

/** The list: the default address first (PLATFORM, always active; none in svc serve without a sites domain), then the custom domains. */
export async function presentDomainList(services: Services, db: Db, site: Site): Promise<z.output<typeof domainListSchema>> {
  const custom = await listDomains(db, site.storeId);
  const platformPrimary = !custom.some((d) => d.primary && !d.failureCode);
  const own = siteUrl(services, site.slug);
  const platform: z.output<typeof domainSchema>[] = own ? [{
    domainId: PLATFORM_DOMAIN_ID, hostname: new URL(own).host, kind: 'PLATFORM', status: 'ACTIVE', failureCode: null, dnsRecords: [], target: null,
    primary: platformPrimary, addedAt: isoAt(site.createdAt), activatedAt: isoAt(site.createdAt),
  }] : [];
  const { customDomainsOpen, customDomainLimit } = services.config.storefront;
  return { enabled: customDomainsOpen, limit: customDomainLimit, contents: [...platform, ...custom.map((d) => presentDomain(services, d))] };
}
