import type { H3Event } from 'h3';
import type { z } from 'zod';
import type { Clock } from '../db/clock.js';
import type { Db } from '../db/client.js';
import type { BuyerContext, Principal, Role } from '../kernel/identity.js';
import type { Services } from './services.js';

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
  tag: string;
  /**
   * `none`: public; `account`: a token, no store; `store`: a token and `X-Store-Id`; `buyer`: the buyer
   * API — `X-Store-Id` and, for a member, a buyer token of that store (a guest sends none).
   */
  auth: 'none' | 'account' | 'store' | 'buyer';
  /** Store scope (`product:rw`) for store operations; account scope (`stores:read`) for account ones. */
  scope?: string;
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

type HandlerCtx<A, B, Q, P> = A extends 'store' ? StoreCtx<B, Q, P> : A extends 'buyer' ? BuyerCtx<B, Q, P> : Ctx<B, Q, P>;

/** Declares one operation; the type parameters come from its zod schemas. */
export function defineOperation<
  A extends Operation['auth'],
  BS extends z.ZodType = z.ZodType<undefined>,
  QS extends z.ZodType = z.ZodType<Record<string, never>>,
  PS extends z.ZodType = z.ZodType<Record<string, never>>,
>(op: Omit<Operation, 'auth' | 'body' | 'query' | 'params' | 'handler' | 'target' | 'preview' | 'precheck' | 'agent'> & {
  auth: A;
  body?: BS;
  query?: QS;
  params?: PS;
  target?: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => Target | null | Promise<Target | null>;
  preview?: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => Preview | Promise<Preview>;
  precheck?: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => Promise<void>;
  agent?: AgentPolicy | ((ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => AgentPolicy | Promise<AgentPolicy>);
  handler: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => unknown;
}): Operation {
  return op as Operation;
}

const REPLY = Symbol('reply');
export function reply(status: number, data: unknown, extra: Partial<Pick<Reply, 'code' | 'headers'>> = {}): Reply {
  return { [REPLY]: true, status, data, ...extra } as Reply;
}
export const isReply = (value: unknown): value is Reply =>
  typeof value === 'object' && value !== null && REPLY in value;
