import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { toNodeHandler } from 'h3/node';
import { manualClock, systemClock } from '../db/clock.js';
import { openDatabase, openPostgresDatabase, withRequestReads } from '../db/client.js';
import { loadSigningKeys, registerFirstPartyClient } from '../modules/accounts/index.js';
import { certificateFor, DAUM_POSTCODE_SCRIPT } from '../modules/storefront/index.js';
import { createApp } from './app.js';
import { CONSOLE_CLIENT, CONSOLE_PATH, loadConsoleFiles, mountConsole } from './console.js';
import { errorEnvelope, newTraceId } from './envelope.js';
import { ApiError } from './errors.js';
import { startJobLoop } from './jobs.js';
import { modules, operations } from './modules.js';
import { bindServices } from './hooks.js';
import { answerClientError, crossOriginWrite, DEV_SITES_DOMAIN, devHostAllowed, oversizedRequest, PARSER_HEAD_LIMIT } from './request-guard.js';
import { createTlsServer, type TlsOptions } from './tls.js';
import { seedDevStore } from './seed.js';
import { serviceUrls, type ServiceConfig, type Services, type StorefrontConfig } from './services.js';

export interface StartOptions {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://… selects PostgreSQL; without it the data dir's SQLite file. The data dir still holds keys and identity. */
  databaseUrl?: string;
  mode: 'dev' | 'serve';
  clock?: 'system' | 'manual';
  seed?: boolean;
  /** The address clients use, when it differs from the listening one (svc serve behind a proxy). */
  publicUrl?: string;
  unsafeWebhookHosts?: string[];
  /** Take the client address from `X-Forwarded-For` (only behind a proxy that sets it). */
  trustProxy?: boolean;
  /** The host under which every app gets its own (`{handle}.{appsHost}`), e.g. apps.example.com. */
  appsHost?: string;
  storefront?: Partial<StorefrontConfig>;
  /** An HTTPS listener too (svc serve: SVC_TLS_PORT, SVC_TLS_CERT, SVC_TLS_KEY); custom domains get their issued certificates. */
  tls?: TlsOptions;
  /** Opens the operator API (`/_operator/v1`) to this bearer secret. */
  operatorToken?: string;
  /** Serves the console at `/console/` (default: in svc dev only). */
  console?: boolean;
}

export interface RunningService {
  url: string;
  /** The HTTPS listener's port, when there is one. */
  tlsPort: number | null;
  services: Services;
  seeded: { storeId: string; ownerToken: string } | null;
  /** The console's address, when it is served. */
  consoleUrl: string | null;
  close(): Promise<void>;
}

/** The port asked for is taken by another program. */
export class PortInUseError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} of ${host} is in use by another program`);
  }
}

/** Starts the whole service: database (migrated), keys, HTTP server, job loop, and the dev seed. */
export async function startService(options: StartOptions): Promise<RunningService> {
  const ownHost = (options.publicUrl ? new URL(options.publicUrl).hostname : options.host).toLowerCase();
  const appsHost = options.appsHost ? appsHostFor(options.appsHost, ownHost) : null;
  const sitesDomain = sitesDomainFor(options, ownHost, appsHost);
  const operatorToken = operatorTokenOf(options.operatorToken);
  const dataDir = resolve(options.dataDir);

  // The handler is bound once the port is known (the origin is part of every token's issuer) and the
  // database is open; a request arriving before waits for it.
  let handle: ReturnType<typeof toNodeHandler> | null = null;
  let handlerBound!: () => void;
  const handlerReady = new Promise<void>((ok) => (handlerBound = ok));
  let docs = '';
  const refuse = (res: ServerResponse, error: ApiError) => {
    res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(errorEnvelope(error, newTraceId(), docs)));
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const oversized = oversizedRequest(req);
    if (oversized) return refuse(res, oversized);
    if (options.mode === 'dev' && !devHostAllowed(req.headers.host, options.host)) return refuse(res, new ApiError(421, 'MISDIRECTED_REQUEST'));
    if (crossOriginWrite(req, (req.url ?? '/').split('?')[0])) return refuse(res, new ApiError(403, 'CROSS_ORIGIN_FORBIDDEN'));
    const route = () => (handle ? handle(req, res) : void handlerReady.then(() => handle!(req, res)));
    if (!servicesReady) return route();
    // Decided at once for most requests (not a hosted site's host); a hosted site's file takes a look-up.
    const early = serveEarly(servicesReady, req, res);
    if (early === false) route();
    else if (early !== true) void early.then((served) => served || route());
  };
  let servicesReady: Services | null = null;
  const earlyServers = modules.flatMap((m) => (m.serveEarly ? [m.serveEarly] : []));
  const failedEarly = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    // Before anything was sent, the full path answers (and reports) it in the envelope; after, the connection goes.
    if (!res.headersSent) return false;
    console.error(`[svc] ${req.method} ${req.url}:`, error);
    res.destroy();
    return true;
  };
  /** Whether a module answered the request before routing: false or true at once when no server had to wait. */
  const serveEarly = (services: Services, req: IncomingMessage, res: ServerResponse, from = 0): boolean | Promise<boolean> => {
    for (let i = from; i < earlyServers.length; i++) {
      let served: boolean | Promise<boolean>;
      try {
        served = earlyServers[i](services, req, res);
      } catch (error) {
        return failedEarly(req, res, error);
      }
      if (served === true) return true;
      if (served !== false)
        return served.then(
          (done) => done || serveEarly(services, req, res, i + 1),
          (error: unknown) => failedEarly(req, res, error),
        );
    }
    return false;
  };
  const servers = [createServer({ maxHeaderSize: PARSER_HEAD_LIMIT }, onRequest)];
  if (options.tls) servers.push(createTlsServer(options.tls, onRequest, () => servicesReady && ((hostname) => certificateFor(servicesReady!, hostname))));
  for (const listener of servers) listener.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, docs));
  const [server] = servers;
  const ports = [options.port, options.tls?.port ?? 0];
  // The ports first: a start that cannot listen leaves nothing behind, not even an empty data dir.
  try {
    for (const [i, listener] of servers.entries()) {
      await new Promise<void>((ok, ko) => {
        listener.once('error', (error: NodeJS.ErrnoException) => ko(error.code === 'EADDRINUSE' ? new PortInUseError(options.host, ports[i]) : error));
        listener.listen(ports[i], options.host, () => ok());
      });
    }
  } catch (error) {
    for (const listener of servers) listener.close();
    throw error;
  }
  let database: ReturnType<typeof openDatabase>;
  let keys: Awaited<ReturnType<typeof loadSigningKeys>>;
  try {
    mkdirSync(dataDir, { recursive: true });
    database = options.databaseUrl ? await openPostgresDatabase(options.databaseUrl) : openDatabase(resolve(dataDir, 'svc.db'));
    keys = await loadSigningKeys(dataDir);
  } catch (error) {
    for (const listener of servers) listener.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const origin = (options.publicUrl ?? `http://${host}:${port}`).replace(/\/$/, '');
  docs = `${origin}/docs/errors`;

  const config: ServiceConfig = {
    origin,
    dataDir,
    mode: options.mode,
    unsafeWebhookHosts: options.unsafeWebhookHosts ?? [],
    trustProxy: options.trustProxy ?? false,
    appsHost,
    operatorToken,
    storefront: {
      hostingOpen: options.mode === 'dev',
      npmRegistry: null,
      advisorySource: null,
      denylist: [],
      buildTimeoutMs: 10 * 60_000,
      installLimitBytes: 512 * 1024 * 1024,
      minimumReleaseAgeMinutes: 1440,
      customDomainsOpen: options.mode === 'dev',
      customDomainLimit: 5,
      editCapacity: 10,
      dnsServers: [],
      domainTarget: 'domains.svc.localhost',
      acmeDirectory: null,
      acmeEmail: null,
      sellerSandbox: options.mode === 'dev' ? 'preferred' : 'required',
      postcodeScript: options.mode === 'dev' ? 'standin' : DAUM_POSTCODE_SCRIPT,
      ...options.storefront,
      sitesDomain,
    },
  };
  const services: Services = {
    config,
    db: database.db,
    clock: options.clock === 'manual' ? manualClock() : systemClock(),
    keys,
    modules,
    operations,
    urls: serviceUrls(origin, serviceIdentity(dataDir, origin, options.publicUrl !== undefined)),
  };
  bindServices(services);
  const withConsole = options.console ?? options.mode === 'dev';
  // The console signs in like any client, as a first-party one of this service (its own origin's callback).
  if (withConsole) registerFirstPartyClient(CONSOLE_CLIENT);
  const consoleFiles = withConsole ? loadConsoleFiles() : null;
  handle = withRequestReads(services.db, toNodeHandler(createApp(services, consoleFiles ? (app) => mountConsole(app, consoleFiles) : undefined)));
  servicesReady = services;
  handlerBound();
  const seeded = options.mode === 'dev' && options.seed !== false ? await seedDevStore(services) : null;
  const stopJobs = startJobLoop(services);

  let closing: Promise<void> | null = null;
  return {
    url: origin,
    tlsPort: options.tls ? (servers[1].address() as AddressInfo).port : null,
    services,
    seeded,
    consoleUrl: withConsole ? `${origin}${CONSOLE_PATH}` : null,
    close() {
      closing ??= new Promise<void>((done) => {
        const jobsStopped = stopJobs();
        const closed = servers.map((listener) => new Promise((ok) => listener.close(ok)));
        void Promise.all(closed).then(async () => {
          // After the last request and the last job run: module resources (the app runtime worker, running
          // checks and builds) may be in use until then.
          await jobsStopped;
          await Promise.all(modules.map((m) => m.onClose?.(services)));
          await database.close();
          done();
        });
        for (const listener of servers) listener.closeIdleConnections();
        setTimeout(() => servers.forEach((listener) => listener.closeAllConnections()), 2000).unref();
      });
      return closing;
    },
  };
}

/** The operator API's bearer secret: long enough that guessing it is out of reach. */
function operatorTokenOf(token: string | undefined): string | null {
  if (token === undefined) return null;
  if (token.length < 32) throw new Error('SVC_OPERATOR_TOKEN must be at least 32 characters (e.g. openssl rand -hex 32)');
  return token;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The apps host, checked: a bare host name, and not the service's own host or a parent of it — an app
 * whose handle named the service's host would otherwise share its origin.
 */
function appsHostFor(raw: string, ownHost: string): string {
  const host = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!HOST_NAME.test(host)) throw new Error(`apps host "${raw}" must be a host name such as apps.example.com (no scheme, port or path)`);
  if (ownHost === host || ownHost.endsWith(`.${host}`))
    throw new Error(
      `apps host "${host}" must not contain the service's own host ${ownHost}: use a name of its own, e.g. apps.example.com beside api.example.com`,
    );
  return host;
}

/**
 * The domain under which each hosted site has an origin of its own, `{slug}.{domain}`: SVC_SITES_DOMAIN in
 * svc serve (none: sites only on their connected custom domains), `localhost` in svc dev — browsers resolve
 * `{slug}.localhost` to loopback, and it is a site apart from 127.0.0.1 and localhost, so the service's
 * cookies and same-origin powers never reach a site's pages. Checked like the apps host: a host name that
 * contains neither the service's own host (which would be taken for a site) nor the apps host's names.
 */
function sitesDomainFor(options: StartOptions, ownHost: string, appsHost: string | null): string | null {
  const given = options.storefront?.sitesDomain === undefined ? (options.mode === 'dev' ? DEV_SITES_DOMAIN : null) : options.storefront.sitesDomain;
  if (given === null) return null;
  const domain = given.trim().toLowerCase().replace(/\.$/, '');
  if (!HOST_NAME.test(domain)) throw new Error(`sites domain "${given}" must be a host name such as shops.example.com (no scheme, port or path)`);
  // The bare `localhost` may name the service: only names under it are sites, and no page can set cookies for it.
  if (ownHost.endsWith(`.${domain}`) || (ownHost === domain && domain !== DEV_SITES_DOMAIN)) {
    throw new Error(
      `sites domain "${domain}" must not contain the service's own host ${ownHost}: use a domain of its own, e.g. shops.example.net beside api.example.com`,
    );
  }
  if (appsHost && (appsHost === domain || appsHost.endsWith(`.${domain}`) || domain.endsWith(`.${appsHost}`)))
    throw new Error(`sites domain "${domain}" and apps host "${appsHost}" must not contain one another`);
  return domain;
}

/**
 * The origin that names this service in its tokens (their issuer). It is recorded in the data dir on the
 * first start and kept, so a restart on another port (`--port 0`) does not change who issued a saved
 * token: a 90-day CI token keeps working. `SVC_PUBLIC_URL` (svc serve) sets it explicitly.
 */
function serviceIdentity(dataDir: string, origin: string, configured: boolean): string {
  const file = join(dataDir, 'identity.json');
  if (!configured && existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { origin: string }).origin;
  writeFileSync(file, JSON.stringify({ origin }));
  return origin;
}
