import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3, H3Event } from 'h3';
import type { z } from 'zod';
import type { Clock } from '../db/clock.js';
import type { Db } from '../db/client.js';
import type { BuyerContext, Principal, Role, SigningKeys } from '../kernel/identity.js';
import type { Outgoing } from './envelope.js';

// The contract between the kernel and the modules: what a module declares (Module, its operations, jobs and
// hooks) and what it is given (Services, the operation contexts). These types refer to each other, so they
// share this file; services.ts, registry.ts and jobs.ts re-export them next to their runtime code.

/**
 * A domain module as the server sees it. Tables live in the module's schema.ts (picked up by
 * drizzle-kit), rules in its service, and everything the server must wire up is declared here.
 */
export interface Module {
  name: string;
  operations?: Operation[];
  /** Periodic work run by the clock-driven job loop (and at once by /_dev/v1/jobs/run). */
  jobs?: Job[];
  /** Sample data for the seeded dev store, on its first start. */
  onSeed?(services: Services, storeId: string): void | Promise<void>;
  /**
   * What this module does when another announces something (`announce` in hooks.ts): in module order, inside
   * the announcing transaction, so the reaction commits or rolls back with what caused it.
   */
  on?: { [K in keyof Happenings]?: (services: Services, happening: Happenings[K]) => unknown };
  /** The questions of `Questions` this module answers for the modules below it (each answered by exactly one). */
  answers?: Partial<Questions>;
  /** Routes outside the registry (HTML pages, OAuth, file serving); keep these rare. */
  mount?(app: H3, services: Services): void;
  /**
   * Answers a request before the API's framework sees it (after the service's own request guards); true
   * when answered. Only for answers that need no routing — a few look-ups and one write, such as a site's
   * static files; anything it cannot answer whole goes on to the framework untouched.
   */
  serveEarly?(services: Services, req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean>;
  /** Releases what the module holds outside the database (child processes) when the service stops. */
  onClose?(services: Services): void | Promise<void>;
  /** The module's part of every API request: each hook of `RequestHooks` is registered by exactly one module. */
  requestHooks?: Partial<RequestHooks>;
  /**
   * Principals of the account-token kinds (`typ`) this module issues, beyond the login and access tokens
   * of accounts: called with the token's subject once its signature and expiry are checked.
   */
  tokenPrincipals?: Record<string, TokenPrincipal>;
}

export type TokenPrincipal = (services: Services, subject: string) => Promise<Principal>;

/**
 * What the request pipeline hands to the module that owns the work, at its fixed points (pipeline.ts
 * calls them in the order spec 01 §5.6 and §7 demand). A hook answers synchronously when it can: a cached
 * read must stay one synchronous call.
 */
export interface RequestHooks {
  /** The principal behind `Authorization: Bearer …` (401 otherwise). */
  principalOf(services: Services, authorization: string | null): Principal | Promise<Principal>;
  /** The store `X-Store-Id` names (an id or code), within the principal's store scope and membership. */
  storeAccess(services: Services, principal: Principal, storeHeader: string | null): StoreContext | Promise<StoreContext>;
  /** The buyer API's store (`X-Store-Id`) and, for a buyer token, its member buyer. */
  buyerOf(services: Services, storeHeader: string | null, authorization: string | null): BuyerContext | Promise<BuyerContext>;
  /** The store never had a public storefront nor a live payment order: some agent operations skip approval. */
  storeNeverPublic(services: Services, storeId: string): Promise<boolean>;
  /** An agent write (or approval request) past the plan's monthly AI-action limit is refused. */
  assertAiActionsLeft(services: Services, storeId: string, now: number): Promise<void>;
  /** An agent's approval-required write is held for the store's approvers (202, or the decision of an earlier hold). */
  holdForApproval(services: Services, held: HeldRequest): Promise<Outgoing & { approvalId: string }>;
  /** An agent write succeeded: it counts against the plan's monthly AI actions. */
  aiActionDone(services: Services, storeId: string, now: number): Promise<void>;
  /** A store request was answered (the handler's result, a refusal, a dry run or a hold). */
  requestAnswered(services: Services, record: AnsweredRequest): Promise<void>;
  /**
   * Any store request, read or write, went out (the API log): synchronous and cheap — the record is kept
   * for a later batch write, never written on the request's path.
   */
  requestFinished(services: Services, record: FinishedRequest): void;
}

/** The hooks of a module list as the request pipeline and accounts call them. */
export interface ResolvedHooks extends RequestHooks {
  /** Principals of the token kinds other modules issue (their `tokenPrincipals`), by kind. */
  tokenPrincipals: ReadonlyMap<string, TokenPrincipal>;
}

/** An agent's write that waits for approval, with what it takes to run it later. */
export interface HeldRequest {
  op: Operation;
  ctx: StoreCtx;
  raw: RawRequest;
  target: Target | null;
  reason: string;
  idempotencyKey: string | null;
  fingerprint: string;
}

/** How an answered store request ended (the audit record's `result`, spec 01 §5.9). */
export type RequestResult = 'SUCCEEDED' | 'FAILED' | 'PENDING_APPROVAL' | 'DENIED' | 'DRY_RUN';

/** The REQUEST record of one answered store request (spec 01 §5.9). */
export interface AnsweredRequest {
  storeId: string;
  kind: 'REQUEST';
  actor: { type: string; id: string; name: string };
  source: string;
  action: string;
  target: Target | null;
  statusCode: number;
  result: RequestResult;
  errorCode: string | null;
  requestId: string;
  traceId: string;
  idempotencyKey: string | null;
  approvalId: string | null;
  metadata: Record<string, unknown>;
}

/** One store request as the API log keeps it (spec 01 §7, §8): never its body, query string or token. */
export interface FinishedRequest {
  storeId: string;
  operationId: string;
  method: string;
  /** The path alone: a query string may carry secrets. */
  path: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  actor: { type: string; id: string };
  traceId: string;
  requestId: string;
  idempotencyKey: string | null;
  at: number;
}

const HOOK_NAMES = Object.keys({
  principalOf: true,
  storeAccess: true,
  buyerOf: true,
  storeNeverPublic: true,
  assertAiActionsLeft: true,
  holdForApproval: true,
  aiActionDone: true,
  requestAnswered: true,
  requestFinished: true,
} satisfies Record<keyof RequestHooks, true>) as (keyof RequestHooks)[];
const resolved = new WeakMap<readonly Module[], ResolvedHooks>();

/**
 * The hooks of a module list as plain function references, worked out once per list (at startup): a
 * request calls them with no lookup. A hook or token kind that no module or two modules register is a
 * wiring error.
 */
export function requestHooks(modules: readonly Module[]): ResolvedHooks {
  const known = resolved.get(modules);
  if (known) return known;
  const found: Partial<Record<keyof RequestHooks, unknown>> = {};
  for (const name of HOOK_NAMES) {
    const owners = modules.filter((m) => m.requestHooks?.[name]);
    if (owners.length !== 1)
      throw new Error(`request hook ${name}: registered by ${owners.length} modules (${owners.map((m) => m.name).join(', ')}), expected one`);
    found[name] = owners[0]!.requestHooks![name];
  }
  const tokenPrincipals = new Map<string, TokenPrincipal>();
  for (const module of modules) {
    for (const [kind, resolve] of Object.entries(module.tokenPrincipals ?? {})) {
      if (tokenPrincipals.has(kind)) throw new Error(`token kind ${kind}: registered twice (again by ${module.name})`);
      tokenPrincipals.set(kind, resolve);
    }
  }
  const hooks = { ...found, tokenPrincipals } as ResolvedHooks;
  resolved.set(modules, hooks);
  return hooks;
}

/**
 * What one module announces and others act on, by name: declared by the announcing module in its index.ts
 * (`declare module '../../server/module.js' { interface Happenings { orderPlaced: PlacedOrder } }`), so the
 * payload types stay with their module and the kernel imports none. A lower module tells higher ones what
 * happened this way instead of importing them.
 */
export interface Happenings {}

/**
 * What a lower module must learn from a higher one (an order item's flow for the order view, whether a flow
 * id exists): declared like `Happenings` by the module that asks, answered by exactly one module.
 */
export interface Questions {}

// ── Services: everything a handler may reach ─────────────────────────────────────────────────────

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
  /**
   * What shops' address search loads at `/_svc/postcode.v2.js` (`SVC_POSTCODE_SCRIPT`): `standin`, an offline
   * stand-in with the postcode service's interface (svc dev), else the address of the real script (svc serve: Daum's).
   */
  postcodeScript: string;
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

// ── Operations: one HTTP operation of the registry, and the context its handler gets ─────────────────

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an operation, by the kind of token presented:
 * - `storePlatform`: a login token of the service's own clients (store platform, CLI);
 * - `login`: a login token of any OAuth client (includes storePlatform);
 * - `access`: an account access token;
 * - `installation`: an app's installation token.
 */
export type CallerKind = 'storePlatform' | 'login' | 'access' | 'installation';

/** How AI-agent requests are treated (spec 01 §5.6). */
export type AgentPolicy = 'direct' | 'approval' | 'denied';

export interface Target {
  type: string;
  id: string | null;
}

export interface StoreContext {
  id: string;
  role: Role;
  memberId: string;
}

/** A request as received, before validation; approval requests keep it to run it later. */
export interface RawRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  body: string;
}

export interface Change {
  field: string;
  before: unknown;
  after: unknown;
}

export interface Preview {
  changes: Change[];
  facts?: Record<string, unknown>;
  targetName?: string | null;
}

export interface Ctx<B = any, Q = any, P = any> {
  services: Services;
  db: Db;
  clock: Clock;
  /** The request's instant, read once from the clock. */
  now: number;
  body: B;
  query: Q;
  params: P;
  principal: Principal | null;
  store: StoreContext | null;
  requestId: string;
  traceId: string;
  event: H3Event;
  /** The parsed body of `multipart` operations. */
  form?: FormData;
  /** Buyer-API operations (`auth: 'buyer'`): the store and the member buyer, or null for a guest. */
  buyer?: BuyerContext;
  /**
   * What the handler adds to the `metadata` of this request's audit record, known only once it ran
   * (buyer delegation's `onBehalfOf`, spec 01 §5.9).
   */
  auditMetadata?: Record<string, unknown>;
}

/** A store-scoped context: the pipeline guarantees principal and store for `auth: 'store'`. */
/** A buyer-API context: the pipeline guarantees `buyer` for `auth: 'buyer'`. */
export interface BuyerCtx<B = any, Q = any, P = any> extends Ctx<B, Q, P> {
  buyer: BuyerContext;
}

export interface StoreCtx<B = any, Q = any, P = any> extends Ctx<B, Q, P> {
  principal: Principal;
  store: StoreContext;
}

export interface Reply {
  status: number;
  data: unknown;
  code?: string;
  headers?: Record<string, string>;
}

export interface Operation<B = any, Q = any, P = any> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path with `{param}` segments. */
  path: string;
  summary: string;
  /**
   * What a person reads for the operation (Korean): the approval request's `operationName` and page. Every
   * operation an agent may be held on names one (a test holds this); others read `summary`.
   */
  title?: string;
  tag: string;
  /**
   * `none`: public; `account`: a token, no store; `store`: a token and `X-Store-Id`; `buyer`: the buyer
   * API — `X-Store-Id` and, for a member, a buyer token of that store (a guest sends none).
   */
  auth: 'none' | 'account' | 'store' | 'buyer';
  /** Store scope (`product:rw`) for store operations; account scope (`stores:read`) for account ones. */
  scope?: string;
  /**
   * A second scope that also grants the operation: one tokens relied on before the spec named `scope`
   * (flow actions took `order:rw` before spec 02 §4.4's `flow:rw`), so existing tokens keep working.
   */
  alsoScope?: string;
  /** Roles allowed beyond what the scope already demands (e.g. OWNER only). */
  roles?: Role[];
  callers?: CallerKind[];
  /** For account operations: the login must be at most this many seconds old. */
  freshLoginSeconds?: number;
  /**
   * Approval is skipped for agents while the store never had a public storefront nor a live payment
   * order (the exemption list of spec 01 §5.6).
   */
  agentApprovalExemptWhilePrivate?: boolean;
  /** Only an OWNER may approve this operation's approval requests (e.g. storefront hosting disable). */
  ownerApprovalOnly?: boolean;
  /**
   * Trade processing (order confirmation, dispatch, delivery, supply): agent writes still count, but the
   * plan's monthly AI-action limit never blocks them (spec 01 §5.6).
   */
  tradeProcessing?: boolean;
  /** AI-agent treatment; a function when it depends on the request (e.g. which store fields change). */
  agent?: AgentPolicy | ((ctx: any) => AgentPolicy | Promise<AgentPolicy>);
  /** The 403 code a denied agent gets where the spec names its own (default `AGENT_OPERATION_DENIED`). */
  agentDeniedCode?: string;
  /** A retired write answers the same whatever an old client sends: its body is neither read nor validated. */
  ignoresBody?: boolean;
  /** Non-GET operations honour `Idempotency-Key` unless this is false. */
  idempotent?: boolean;
  body?: z.ZodType<B>;
  query?: z.ZodType<Q>;
  params?: z.ZodType<P>;
  /**
   * The envelope's `data` on success (zod, documentation only: it is never run on the hot path, but the
   * OpenAPI document publishes it and the contract test checks live answers against it).
   */
  response?: z.ZodType;
  /**
   * Error codes this operation answers with, by status, beyond the ones the pipeline gives every operation
   * of its kind (`operationErrors` in contract.ts): published in the OpenAPI document and checked in tests.
   */
  errors?: Partial<Record<number, readonly string[]>>;
  /** Success status; default 200. */
  status?: number;
  /** Other success statuses the handler may `reply()` with (e.g. 200 when a create finds the record existing). */
  alternateStatuses?: number[];
  /** The resource the request acts on, for audit and dry run. */
  target?: (ctx: Ctx<B, Q, P>) => Target | null | Promise<Target | null>;
  /** What a dry run shows would change; default no listed changes. */
  preview?: (ctx: Ctx<B, Q, P>) => Preview | Promise<Preview>;
  /**
   * Checks that need outside work (DNS lookups): run after validation and before the agent policy, dry
   * run and approval requests, so a request that would fail refuses alike there (spec 01 §5.6), and
   * again before an approved request runs. The handler can then stay one synchronous transaction.
   */
  precheck?: (ctx: Ctx<B, Q, P>) => Promise<void>;
  /**
   * Business rules only. Writes run inside one transaction unless `async` is set (then the handler
   * awaits outside work and opens its own short transactions with `transaction(ctx.db, …)`).
   * Returns the `data` of the envelope, a full `Reply` via `reply()`, or a web `Response` sent as is
   * (streams, such as server-sent events).
   */
  handler: (ctx: any) => unknown;
  async?: boolean;
  /**
   * Every write of this operation updates the same row of its store (the catalog's numbers and version). On
   * PostgreSQL two such SERIALIZABLE transactions at once always conflict and one runs again, so this process
   * runs them one after another per store instead.
   */
  oneWriterPerStore?: boolean;
  /** Largest JSON body accepted, in bytes; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The body is multipart/form-data of at most `maxBytes`: the pipeline reads it into `ctx.form`; `fields`
   * describes the form's fields for the OpenAPI document (the handler checks them).
   */
  multipart?: { maxBytes: number; fields: z.ZodType };
  /**
   * The success answer is a stream of this media type instead of the envelope (the handler returns a web
   * `Response`); `response` then describes the `data` of each message.
   */
  streams?: 'text/event-stream';
}

// ── Jobs ───────────────────────────────────────────────────────────────────────────────────────────

/**
 * Periodic work (expiries, retries, clean-up) runs from one clock-driven loop. Each job reads what is due
 * from the database, so a killed process loses nothing and picks up on restart. Under `--clock manual`,
 * POST /_dev/v1/jobs/run runs them at once after the clock moved.
 */
export interface Job {
  name: string;
  /** Does what is due at `now`; returns how many items it handled. */
  run(services: Services, now: number): number | Promise<number>;
}
