import type { Clock } from '../db/clock.js';
import type { Db } from '../db/client.js';
import type { SigningKeys } from '../kernel/identity.js';
import type { Module } from './module.js';
import type { Operation } from './registry.js';

export interface ServiceConfig {
  /** Scheme, host and port the service is reached at, e.g. http://127.0.0.1:8787. */
  origin: string;
  dataDir: string;
  /** `dev` adds the /_dev helpers and the seed; `serve` is a deployment. */
  mode: 'dev' | 'serve';
  /** Exact hosts exempt from the https and blocked-address rules of webhook URLs (svc dev only). */
  unsafeWebhookHosts: string[];
  /** Behind a reverse proxy: the client address comes from `X-Forwarded-For` (attempt limits). */
  trustProxy: boolean;
  /**
   * `{apps_host}` of spec 02 §2.1 (svc serve): each app's routes and admin page are served at
   * `{handle}.{apps_host}`, never on the service's origin. Null: svc dev serves them under `/apps/{handle}`.
   */
  appsHost: string | null;
  /** The operator's bearer secret for `/_operator/v1` (svc serve: `SVC_OPERATOR_TOKEN`); null: no operator API. */
  operatorToken: string | null;
  storefront: StorefrontConfig;
}

/** The hosted storefront's deployment settings (spec 02 §4.2, §7, §8). */
export interface StorefrontConfig {
  /** Site creation is open (`STOREFRONT_HOSTING_DISABLED` otherwise): always in svc dev, a setting in svc serve. */
  hostingOpen: boolean;
  /**
   * Each site is served at `{slug}.{sitesDomain}`, an origin of its own, and never on the service's own
   * host: SVC_SITES_DOMAIN in svc serve (wildcard DNS; null: sites only on connected custom domains),
   * `localhost` in svc dev (`http://{slug}.localhost:{port}/` on the same listener).
   */
  sitesDomain: string | null;
  /** Registry builds install from (`SVC_NPM_REGISTRY`); null: pnpm's own configuration. */
  npmRegistry: string | null;
  /** OSV advisories: a directory, a zip (OSV's `npm/all.zip`) or a URL; null: the snapshot shipped with svc. */
  advisorySource: string | null;
  /** Packages no build may use (`DENYLISTED`). */
  denylist: string[];
  /** Build time limit (10 minutes; tests shorten it). */
  buildTimeoutMs: number;
  /** Installed packages of one build (512 MiB; INSTALL_TOO_LARGE beyond). */
  installLimitBytes: number;
  /** pnpm's supply-chain delay: package versions younger than this are not installed (1 day; `SVC_MIN_RELEASE_AGE_MINUTES`). */
  minimumReleaseAgeMinutes: number;
  /** Custom domains can be added (`STOREFRONT_CUSTOM_DOMAINS_DISABLED` otherwise): always in svc dev, `SVC_CUSTOM_DOMAINS=1` in svc serve. */
  customDomainsOpen: boolean;
  /** Custom domains per store (spec 01 leaves the number to the plan; `SVC_CUSTOM_DOMAIN_LIMIT`). */
  customDomainLimit: number;
  /** DNS servers domain checks ask (`SVC_DNS_SERVERS`, `host[:port]` comma-separated); empty: the system's. */
  dnsServers: string[];
  /** Editing environments running at once in this service (`SVC_EDIT_CAPACITY`); more get EDIT_CAPACITY_FULL. */
  editCapacity: number;
  /** The host custom domains point their CNAME at (`SVC_DOMAIN_TARGET`); default `domains.{sitesDomain}`. */
  domainTarget: string;
  /** The ACME directory custom domains' certificates are ordered from (`SVC_ACME_DIRECTORY`); null: svc's local issuer (svc dev). */
  acmeDirectory: string | null;
  /** The contact given to the ACME authority (`SVC_ACME_EMAIL`). */
  acmeEmail: string | null;
  /**
   * How seller code (builds, checks, editing) is contained: `required` in svc serve (bubblewrap or refuse),
   * `preferred` in svc dev, `off` only when the operator says so (`SVC_SELLER_SANDBOX=off`).
   */
  sellerSandbox: 'required' | 'preferred' | 'off';
}

/** Everything a handler may reach, created once per server. */
export interface Services {
  config: ServiceConfig;
  db: Db;
  clock: Clock;
  keys: SigningKeys;
  /** Every domain module, and the operation registry built from them (passed in, so modules never import the list). */
  modules: readonly Module[];
  operations: readonly Operation[];
  urls: {
    admin: string;
    storefront: string;
    auth: string;
    /** `iss` of every token; tokens of another issuer are rejected. */
    issuer: string;
  };
}

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
 * SVC_ADVISORY_SOURCE, SVC_DEPENDENCY_DENYLIST (comma-separated), SVC_MIN_RELEASE_AGE_MINUTES, SVC_ACME_DIRECTORY, SVC_ACME_EMAIL and, for svc serve, SVC_STOREFRONT_HOSTING=1
 * (site creation open; svc dev always is), SVC_CUSTOM_DOMAINS=1 (custom domains open) and SVC_SELLER_SANDBOX=off (seller code unsandboxed: the operator's explicit choice).
 */
export function storefrontFromEnv(env: NodeJS.ProcessEnv, mode: ServiceConfig['mode']): Partial<StorefrontConfig> {
  const set = (value: string | undefined) => (value && value.trim() ? value.trim() : undefined);
  const config: Partial<StorefrontConfig> = {};
  if (mode === 'serve') config.hostingOpen = env.SVC_STOREFRONT_HOSTING === '1' || env.SVC_STOREFRONT_HOSTING === 'true';
  if (set(env.SVC_SITES_DOMAIN)) config.sitesDomain = set(env.SVC_SITES_DOMAIN)!.toLowerCase();
  if (set(env.SVC_NPM_REGISTRY)) config.npmRegistry = set(env.SVC_NPM_REGISTRY)!;
  if (set(env.SVC_ADVISORY_SOURCE)) config.advisorySource = set(env.SVC_ADVISORY_SOURCE)!;
  if (set(env.SVC_MIN_RELEASE_AGE_MINUTES) && Number.isInteger(Number(env.SVC_MIN_RELEASE_AGE_MINUTES))) config.minimumReleaseAgeMinutes = Number(env.SVC_MIN_RELEASE_AGE_MINUTES);
  if (mode === 'serve') config.customDomainsOpen = env.SVC_CUSTOM_DOMAINS === '1' || env.SVC_CUSTOM_DOMAINS === 'true';
  if (set(env.SVC_CUSTOM_DOMAIN_LIMIT) && Number.isInteger(Number(env.SVC_CUSTOM_DOMAIN_LIMIT))) config.customDomainLimit = Number(env.SVC_CUSTOM_DOMAIN_LIMIT);
  if (set(env.SVC_EDIT_CAPACITY) && Number.isInteger(Number(env.SVC_EDIT_CAPACITY))) config.editCapacity = Number(env.SVC_EDIT_CAPACITY);
  if (set(env.SVC_DNS_SERVERS)) config.dnsServers = env.SVC_DNS_SERVERS!.split(',').map((s) => s.trim()).filter(Boolean);
  if (set(env.SVC_DOMAIN_TARGET)) config.domainTarget = set(env.SVC_DOMAIN_TARGET)!.toLowerCase();
  else if (config.sitesDomain) config.domainTarget = `domains.${config.sitesDomain}`;
  if (set(env.SVC_ACME_DIRECTORY)) config.acmeDirectory = set(env.SVC_ACME_DIRECTORY)!;
  if (set(env.SVC_ACME_EMAIL)) config.acmeEmail = set(env.SVC_ACME_EMAIL)!;
  if (env.SVC_SELLER_SANDBOX === 'off') config.sellerSandbox = 'off';
  if (set(env.SVC_DEPENDENCY_DENYLIST)) config.denylist = env.SVC_DEPENDENCY_DENYLIST!.split(',').map((p) => p.trim()).filter(Boolean);
  return config;
}
