import type { ServiceConfig, Services, StorefrontConfig } from './module.js';

// The service types live with the rest of the module contract in module.ts (they refer to each other).
export type { ServiceConfig, Services, StorefrontConfig };

/** Addresses at `origin` (where the service is reached now); `identity` is the recorded origin tokens are issued under. */
export function serviceUrls(origin: string, identity = origin): Services['urls'] {
  return {
    admin: `${origin}/v1`,
    storefront: `${origin}/storefront/v1`,
    auth: `${origin}/auth`,
    issuer: `${identity}/auth`,
  };
}

/**
 * The storefront settings a deployment takes from its environment: SVC_SITES_DOMAIN, SVC_NPM_REGISTRY, SVC_DNS_SERVERS, SVC_DOMAIN_TARGET, SVC_CUSTOM_DOMAIN_LIMIT, SVC_EDIT_CAPACITY,
 * SVC_ADVISORY_SOURCE, SVC_DEPENDENCY_DENYLIST (comma-separated), SVC_MIN_RELEASE_AGE_MINUTES, SVC_ACME_DIRECTORY, SVC_ACME_EMAIL, SVC_POSTCODE_SCRIPT (`standin` or a script address) and, for svc serve, SVC_STOREFRONT_HOSTING=1
 * (site creation open; svc dev always is), SVC_CUSTOM_DOMAINS=1 (custom domains open) and SVC_SELLER_SANDBOX=off (seller code unsandboxed: the operator's explicit choice).
 */
export function storefrontFromEnv(env: NodeJS.ProcessEnv, mode: ServiceConfig['mode']): Partial<StorefrontConfig> {
  const set = (value: string | undefined) => (value && value.trim() ? value.trim() : undefined);
  const config: Partial<StorefrontConfig> = {};
  if (mode === 'serve') config.hostingOpen = env.SVC_STOREFRONT_HOSTING === '1' || env.SVC_STOREFRONT_HOSTING === 'true';
  if (set(env.SVC_SITES_DOMAIN)) config.sitesDomain = set(env.SVC_SITES_DOMAIN)!.toLowerCase();
  if (set(env.SVC_NPM_REGISTRY)) config.npmRegistry = set(env.SVC_NPM_REGISTRY)!;
  if (set(env.SVC_ADVISORY_SOURCE)) config.advisorySource = set(env.SVC_ADVISORY_SOURCE)!;
  if (set(env.SVC_MIN_RELEASE_AGE_MINUTES) && Number.isInteger(Number(env.SVC_MIN_RELEASE_AGE_MINUTES)))
    config.minimumReleaseAgeMinutes = Number(env.SVC_MIN_RELEASE_AGE_MINUTES);
  if (mode === 'serve') config.customDomainsOpen = env.SVC_CUSTOM_DOMAINS === '1' || env.SVC_CUSTOM_DOMAINS === 'true';
  if (set(env.SVC_CUSTOM_DOMAIN_LIMIT) && Number.isInteger(Number(env.SVC_CUSTOM_DOMAIN_LIMIT))) config.customDomainLimit = Number(env.SVC_CUSTOM_DOMAIN_LIMIT);
  if (set(env.SVC_EDIT_CAPACITY) && Number.isInteger(Number(env.SVC_EDIT_CAPACITY))) config.editCapacity = Number(env.SVC_EDIT_CAPACITY);
  if (set(env.SVC_DNS_SERVERS))
    config.dnsServers = env
      .SVC_DNS_SERVERS!.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (set(env.SVC_DOMAIN_TARGET)) config.domainTarget = set(env.SVC_DOMAIN_TARGET)!.toLowerCase();
  else if (config.sitesDomain) config.domainTarget = `domains.${config.sitesDomain}`;
  if (set(env.SVC_ACME_DIRECTORY)) config.acmeDirectory = set(env.SVC_ACME_DIRECTORY)!;
  if (set(env.SVC_ACME_EMAIL)) config.acmeEmail = set(env.SVC_ACME_EMAIL)!;
  if (env.SVC_SELLER_SANDBOX === 'off') config.sellerSandbox = 'off';
  if (set(env.SVC_POSTCODE_SCRIPT)) config.postcodeScript = set(env.SVC_POSTCODE_SCRIPT)!;
  if (set(env.SVC_DEPENDENCY_DENYLIST))
    config.denylist = env
      .SVC_DEPENDENCY_DENYLIST!.split(',')
      .map((p) => p.trim())
      .filter(Boolean);
  return config;
}
