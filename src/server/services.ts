import type { Clock } from '../db/clock.js';
import type { Db, Sqlite } from '../db/client.js';
import type { SigningKeys } from '../modules/accounts/keys.js';
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
}

/** Everything a handler may reach, created once per server. */
export interface Services {
  config: ServiceConfig;
  db: Db;
  sqlite: Sqlite;
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
