import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { H3, H3Event } from 'h3';
import type { Db } from '../../../db/client.js';
import { preparedFor } from '../../../db/prepared.js';
import type { Services } from '../../../server/services.js';
import type { DnsChecker } from './dns.js';
import { acmeAccounts, acmeChallenges, domainCertificates, domains } from '../schema.js';

const DAY = 86_400_000;
/** Certificates are renewed this long before they expire (Let's Encrypt's advice for 90-day certificates). */
export const RENEW_BEFORE_MS = 30 * DAY;
export const ACME_CHALLENGE_PATH = '/.well-known/acme-challenge/';

export type Issuance = { ok: true; issuer: string; expiresAt: number; pem: { chain: string; key: string } | null } | { ok: false; detail: string };

/** Who issues a connected domain's certificate: ACME for deployments (`SVC_ACME_DIRECTORY`), else svc's local issuer. */
export interface CertificateIssuer {
  issue(services: Services, hostname: string, dns: DnsChecker, now: number): Promise<Issuance>;
}

export const LOCAL_ISSUER = 'svc.local';

/**
 * svc dev's issuer: "issues" at once unless the domain's CAA records name other authorities only — the
 * one refusal a real authority is bound to make that the domain's owner controls. No key material: svc dev
 * serves plain HTTP.
 */
export const localIssuer: CertificateIssuer = {
  async issue(_services, hostname, dns, now) {
    const caa = await dns.caa(hostname);
    if ('error' in caa) return { ok: false, detail: `CAA look-up failed: ${caa.error}` };
    const issuers = 'found' in caa ? caa.found.filter((r) => r.issue !== undefined).map((r) => String(r.issue).split(';')[0].trim()) : [];
    if (issuers.length && !issuers.includes(LOCAL_ISSUER)) return { ok: false, detail: `CAA allows ${issuers.join(', ')} only` };
    return { ok: true, issuer: LOCAL_ISSUER, expiresAt: now + 90 * DAY, pem: null };
  },
};

/** acme-client, loaded by the first issuance: svc dev never needs it, and it adds ~130 ms to a start. */
const acmeClient = () => import('acme-client');

/** The ACME account of `directoryUrl`, made (and its key stored) on first use; concurrent processes end up with one. */
async function acmeAccount(services: Services, directoryUrl: string) {
  const existing = await services.db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl)).get();
  if (existing) return existing;
  const acme = await acmeClient();
  const accountKey = (await acme.crypto.createPrivateEcdsaKey()).toString();
  await services.db.insert(acmeAccounts).values({ directoryUrl, accountKey, accountUrl: null, createdAt: services.clock.now() }).onConflictDoNothing().run();
  return (await services.db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl)).get())!;
}

/**
 * An ACME authority (RFC 8555, through acme-client): orders a certificate for the hostname and proves it
 * with an http-01 challenge, which the service answers at `/.well-known/acme-challenge/{token}` on any
 * host — the domain already points here, which the CNAME check has just seen.
 */
export function acmeIssuer(directoryUrl: string, email: string | null): CertificateIssuer {
  return {
    async issue(services, hostname) {
      try {
        const acme = await acmeClient();
        const account = await acmeAccount(services, directoryUrl);
        const client = new acme.Client({ directoryUrl, accountKey: account.accountKey, accountUrl: account.accountUrl ?? undefined });
        const [key, csr] = await acme.crypto.createCsr({ altNames: [hostname] }, await acme.crypto.createPrivateEcdsaKey());
        const chain = await client.auto({
          csr,
          email: email ?? undefined,
          termsOfServiceAgreed: true,
          challengePriority: ['http-01'],
          // The authority's own look is the one that counts; the domain's CNAME was checked before ordering.
          skipChallengeVerification: true,
          challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
            await services.db
              .insert(acmeChallenges)
              .values({ token: challenge.token, hostname, keyAuthorization, createdAt: services.clock.now() })
              .onConflictDoUpdate({ target: acmeChallenges.token, set: { keyAuthorization } })
              .run();
          },
          challengeRemoveFn: async (_authz, challenge) => {
            await services.db.delete(acmeChallenges).where(eq(acmeChallenges.token, challenge.token)).run();
          },
        });
        if (!account.accountUrl)
          await services.db.update(acmeAccounts).set({ accountUrl: client.getAccountUrl() }).where(eq(acmeAccounts.directoryUrl, directoryUrl)).run();
        const info = acme.crypto.readCertificateInfo(chain);
        return {
          ok: true,
          issuer: info.issuer.commonName ?? new URL(directoryUrl).host,
          expiresAt: info.notAfter.getTime(),
          pem: { chain, key: key.toString() },
        };
      } catch (error) {
        return { ok: false, detail: (error as Error).message };
      }
    },
  };
}

const issuers = new WeakMap<Services, CertificateIssuer>();
export function issuerOf(services: Services): CertificateIssuer {
  let issuer = issuers.get(services);
  if (!issuer) {
    const { acmeDirectory, acmeEmail } = services.config.storefront;
    issuers.set(services, (issuer = acmeDirectory ? acmeIssuer(acmeDirectory, acmeEmail) : localIssuer));
  }
  return issuer;
}

/** Keeps an issued certificate's chain and key for TLS (a renewal replaces them). */
export async function storeCertificate(services: Services, domainId: string, hostname: string, pem: { chain: string; key: string }, now: number) {
  const row = { hostname, domainId, chainPem: pem.chain, keyPem: pem.key, issuedAt: now };
  await services.db.insert(domainCertificates).values(row).onConflictDoUpdate({ target: domainCertificates.hostname, set: row }).run();
}

/** Drops the certificates of removed domains. */
export const deleteCertificates = (db: Db, domainIds: string[]) => db.delete(domainCertificates).where(inArray(domainCertificates.domainId, domainIds)).run();

const q = preparedFor((db) => ({
  /** Read on every TLS handshake. */
  certificate: db
    .select({ chain: domainCertificates.chainPem, key: domainCertificates.keyPem, issuedAt: domainCertificates.issuedAt })
    .from(domainCertificates)
    .innerJoin(domains, eq(domains.id, domainCertificates.domainId))
    .where(and(eq(domainCertificates.hostname, sql.placeholder('hostname')), eq(domains.status, 'ACTIVE'), isNull(domains.failureCode)))
    .prepare(),
}));

/** The chain and key to serve for `hostname` while its domain is connected, or undefined (the service's own certificate then). */
export const certificateFor = (services: Services, hostname: string) => q(services.db).certificate.get({ hostname });

/** The http-01 answers, on every host: the authority asks the domain being validated, which is not serving a site yet. */
export function mountAcmeChallenges(app: H3, services: Services) {
  app.get(`${ACME_CHALLENGE_PATH}:token`, async (event: H3Event) => {
    const token = event.context.params?.token ?? '';
    const row = await services.db
      .select({ keyAuthorization: acmeChallenges.keyAuthorization })
      .from(acmeChallenges)
      .where(eq(acmeChallenges.token, token))
      .get();
    return row ? new Response(row.keyAuthorization, { headers: { 'content-type': 'text/plain' } }) : new Response('not found', { status: 404 });
  });
}
