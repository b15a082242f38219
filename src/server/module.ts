import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3 } from 'h3';
import type { Db } from '../db/client.js';
import type { BuyerContext, Principal } from '../kernel/identity.js';
import type { Outgoing } from './envelope.js';
import type { Job } from './jobs.js';
import type { Operation, RawRequest, StoreContext, StoreCtx, Target } from './registry.js';
import type { Services } from './services.js';

/**
 * A domain module as the server sees it. Tables live in the module's schema.ts (picked up by
 * drizzle-kit), rules in its service, and everything the server must wire up is declared here.
 */
export interface Module {
  name: string;
  operations?: Operation[];
  /** Periodic work run by the clock-driven job loop (and at once by /_dev/v1/jobs/run). */
  jobs?: Job[];
  /** Defaults a new store needs from this module, inside the store-creating transaction. */
  onStoreCreated?(services: Services, storeId: string): void | Promise<void>;
  /** Sample data for the seeded dev store, on its first start. */
  onSeed?(services: Services, storeId: string): void | Promise<void>;
  /**
   * An order item moved to another flow state (the order-flow engine calls every module's hook inside the
   * transaction that moved it): points earned on purchase decision, review eligibility, analytics facts.
   */
  onOrderItemMoved?(services: Services, db: Db, move: OrderItemMove): void | Promise<void>;
  /** The buyer withdrew an open claim with the flow action WITHDRAW_REQUEST (inside the move's transaction). */
  onClaimWithdrawn?(services: Services, db: Db, withdrawal: { storeId: string; orderItemId: string; at: number }): void | Promise<void>;
  /** A buyer signed up as a member of a store (inside the sign-up transaction): sign-up coupons, welcome points. */
  onCustomerSignedUp?(services: Services, db: Db, signUp: { storeId: string; customerId: string; at: number }): void | Promise<void>;
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

const HOOK_NAMES = Object.keys({
  principalOf: true, storeAccess: true, buyerOf: true, storeNeverPublic: true, assertAiActionsLeft: true, holdForApproval: true, aiActionDone: true, requestAnswered: true,
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
    if (owners.length !== 1) throw new Error(`request hook ${name}: registered by ${owners.length} modules (${owners.map((m) => m.name).join(', ')}), expected one`);
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

export interface OrderItemMove {
  storeId: string;
  orderId: string;
  orderItemId: string;
  /** Flow state keys before and after the move. */
  from: string;
  to: string;
  /** Core statuses (PAID, CONFIRMED, DISPATCHED, DELIVERED, FULFILLED, PURCHASE_DECIDED, CANCELED, …). */
  previousCoreStatus: string;
  coreStatus: string;
  at: number;
}
