import { and, count, eq } from 'drizzle-orm';
import { transaction } from '../../../db/client.js';
import { claimEachDue, claimNextDue } from '../../../db/claim.js';
import type { Job } from '../../../server/jobs.js';
import type { Services } from '../../../server/services.js';
import { domains, sites } from '../schema.js';
import { changeSite, requireActiveSite } from '../sites/sites.js';
import { issuerOf, RENEW_BEFORE_MS, storeCertificate, type Issuance } from './certificates.js';
import { dnsOf, type DnsChecker } from './dns.js';
import { holding, requireDomain, restartDomain, TXT_PREFIX, type Domain } from './domains.js';

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
  if (domain.failureCode !== 'DNS_NOT_POINTING')
    return { failureCode: 'DNS_NOT_POINTING', primary: false, waitSince: now, nextAttemptAt: now + PENDING_POLL_MS };
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
const certified = (issued: Extract<Issuance, { ok: true }>, now: number): Step => ({
  certificate: { issuer: issued.issuer, issuedAt: now, expiresAt: issued.expiresAt },
  issuedPem: issued.pem,
});

/** Looks at a claimed domain's DNS and applies what was learned. */
async function checkDomain(services: Services, domain: Domain, now: number) {
  const { issuedPem, ...step } = await examine(services, domain, now);
  await transaction(services.db, async () => {
    const current = await services.db.select().from(domains).where(eq(domains.id, domain.id)).get();
    // Removed or restarted while DNS was asked: the newer state has its own attempt.
    if (!current || current.status !== domain.status || current.waitSince !== domain.waitSince) return;
    // Another store proved the TXT first: this one waits (its add was refused TAKEN had it come later).
    if (step.held && (await holding(services.db, current.hostname, current.storeId))) {
      await services.db
        .update(domains)
        .set({ nextAttemptAt: now + PENDING_POLL_MS, updatedAt: now })
        .where(eq(domains.id, current.id))
        .run();
      return;
    }
    const becameActive = step.status === 'ACTIVE' && current.status !== 'ACTIVE';
    const primaryBefore = (await services.db
      .select({ n: count() })
      .from(domains)
      .where(and(eq(domains.storeId, current.storeId), eq(domains.primary, true)))
      .get())!.n;
    const primary = becameActive && primaryBefore === 0 ? { primary: true } : {};
    await services.db
      .update(domains)
      .set({ ...step, ...primary, updatedAt: now })
      .where(eq(domains.id, current.id))
      .run();
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
