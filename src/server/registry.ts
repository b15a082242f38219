import type { z } from 'zod';
import type { AgentPolicy, BuyerCtx, Ctx, Operation, Preview, Reply, StoreCtx, Target } from './module.js';

// The operation types live with the rest of the module contract in module.ts (they refer to each other).
export type {
  HttpMethod,
  CallerKind,
  AgentPolicy,
  Target,
  StoreContext,
  RawRequest,
  Change,
  Preview,
  Ctx,
  BuyerCtx,
  StoreCtx,
  Reply,
  Operation,
} from './module.js';

type HandlerCtx<A, B, Q, P> = A extends 'store' ? StoreCtx<B, Q, P> : A extends 'buyer' ? BuyerCtx<B, Q, P> : Ctx<B, Q, P>;

/** Declares one operation; the type parameters come from its zod schemas. */
export function defineOperation<
  A extends Operation['auth'],
  BS extends z.ZodType = z.ZodType<undefined>,
  QS extends z.ZodType = z.ZodType<Record<string, never>>,
  PS extends z.ZodType = z.ZodType<Record<string, never>>,
>(
  op: Omit<Operation, 'auth' | 'body' | 'query' | 'params' | 'handler' | 'target' | 'preview' | 'precheck' | 'agent'> & {
    auth: A;
    body?: BS;
    query?: QS;
    params?: PS;
    target?: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => Target | null | Promise<Target | null>;
    preview?: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => Preview | Promise<Preview>;
    precheck?: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => Promise<void>;
    agent?: AgentPolicy | ((ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => AgentPolicy | Promise<AgentPolicy>);
    handler: (ctx: HandlerCtx<A, z.output<BS>, z.output<QS>, z.output<PS>>) => unknown;
  },
): Operation {
  return op as Operation;
}

const REPLY = Symbol('reply');
export function reply(status: number, data: unknown, extra: Partial<Pick<Reply, 'code' | 'headers'>> = {}): Reply {
  return { [REPLY]: true, status, data, ...extra } as Reply;
}
export const isReply = (value: unknown): value is Reply => typeof value === 'object' && value !== null && REPLY in value;
