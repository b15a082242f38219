// The order-flow API's shared pieces: its tag and write scope, path params and bodies, response shapes and errors.
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { instant } from '../../server/responses.js';
import { actionSchema, definitionSchema, inputSchema } from './definition.js';
import type { flowVersions } from './schema.js';
import { runningItemCount } from './flow-catalogue.js';

export const tag = 'Order flows';
/** Spec 02 §4.4's scope of item and order actions, moves and events; `order:rw`, which they took before, still grants them. */
export const FLOW_WRITE = { scope: 'flow:rw', alsoScope: 'order:rw' } as const;
export const itemParams = z.object({ orderItemId: z.string() }).strict();
export const itemActionParams = z.object({ orderItemId: z.string(), key: z.string() }).strict();
export const orderActionParams = z.object({ orderId: z.string(), key: z.string() }).strict();
export const actionInput = z.record(z.string(), z.unknown());
export const actionBody = z.object({ input: actionInput.optional() }).strict();

// ---------------------------------------------------------------------------------------------------
// Response shapes

/** The flow editor's layout, kept beside a definition untouched. */
export const graphSchema = z
  .object({
    nodes: z.array(z.object({ id: z.string().min(1).max(100), x: z.number(), y: z.number() }).strict()).max(500),
  })
  .strict();
export const flowRecord = z
  .object({
    flowId: z.string(),
    name: z.string(),
    kind: z.enum(['SHIPPING', 'MANUAL']),
    isDefault: z.boolean(),
    progression: z.enum(['ITEM', 'ORDER']),
    publishedVersion: z.number().int().nullable(),
    draft: definitionSchema.nullable(),
    draftGraph: graphSchema.nullable(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'CommerceFlow' });
export const versionRecord = z.object({
  flowId: z.string(),
  version: z.number().int(),
  definition: definitionSchema,
  graph: graphSchema.nullable(),
  publishedAt: instant,
  runningItemCount: z.number().int(),
});
export const itemFlow = z
  .object({
    orderItemId: z.string(),
    orderId: z.string(),
    flowId: z.string(),
    version: z.number().int(),
    state: z.string(),
    label: z.string(),
    coreStatus: z.string(),
    actions: z.array(
      z.object({
        key: z.string(),
        label: z.string(),
        actor: actionSchema.shape.actor,
        scope: actionSchema.shape.scope,
        enabled: z.boolean(),
        disabled: z.object({ reason: z.string() }).nullable(),
        inputs: z.array(inputSchema),
      }),
    ),
    timers: z.array(
      z.object({
        timerId: z.string(),
        kind: z.enum(['after', 'at']),
        to: z.string(),
        status: z.enum(['PENDING', 'PAUSED']),
        dueAt: instant.nullable(),
        remainingSeconds: z.number().int().nullable(),
      }),
    ),
    groupId: z.string().nullable(),
  })
  .meta({ id: 'OrderItemFlow' });
export const runRecord = z.object({
  runId: z.string(),
  orderId: z.string(),
  orderItemId: z.string(),
  flowId: z.string(),
  version: z.number().int(),
  trigger: z.union([
    z.object({ kind: z.literal('start') }),
    z.object({ kind: z.literal('action'), key: z.string() }),
    z.object({ kind: z.literal('event'), name: z.string() }),
    z.object({ kind: z.literal('timer'), timerId: z.string() }),
    z.object({ kind: z.literal('move'), to: z.string(), reason: z.string() }),
    z.object({ kind: z.literal('migration'), fromVersion: z.number().int(), toVersion: z.number().int() }),
  ]),
  actor: z.object({ type: z.enum(['SELLER', 'BUYER', 'APP', 'TIMER', 'SYSTEM']), id: z.string().nullable() }),
  input: z.record(z.string(), z.unknown()),
  from: z.string().nullable(),
  to: z.string(),
  coreStatus: z.string(),
  notifications: z.array(
    z.object({
      channel: z.string(),
      params: z.record(z.string(), z.unknown()),
      sent: z.boolean(),
      invocationId: z.string().optional(),
      reason: z.string().optional(),
    }),
  ),
  timers: z.array(z.object({ transition: z.number().int(), kind: z.string(), dueAt: instant, to: z.string() })),
  eventIds: z.array(z.string()),
  at: instant,
});
export const orderActionResult = z.object({ orderId: z.string(), status: z.string(), items: z.array(itemFlow) });
/** The cancel claim a buyer's IMMEDIATE_CANCEL action filed in place of the move (spec 02 §4.4). */
const immediateCancelClaim = z
  .object({
    claimId: z.string(),
    claimNo: z.number().int(),
    claimType: z.string(),
    status: z.string(),
    approved: z.boolean(),
    quantity: z.number().int(),
    refundAmount: z.number().int().nullable(),
    refundId: z.string().nullable(),
  })
  .describe('Only for an action with authority IMMEDIATE_CANCEL: the cancel claim filed and approved at once (as the claim endpoint files it)');
export const buyerItemFlow = itemFlow.extend({ claim: immediateCancelClaim.optional() });
export const buyerOrderActionResult = orderActionResult.extend({ items: z.array(buyerItemFlow) });

export const ITEM_ERRORS = { 403: ['TENANT_MISMATCH'], 404: ['ORDER_ITEM_NOT_FOUND'] } as const;
export const ACTION_ERRORS = {
  400: ['FLOW_ACTION_INPUT_INVALID'],
  403: ['TENANT_MISMATCH'],
  404: ['ORDER_ITEM_NOT_FOUND'],
  409: ['ACTION_NOT_AVAILABLE', 'FLOW_MOVE_NOT_ALLOWED'],
} as const;

export const presentVersion = async (db: Db, v: typeof flowVersions.$inferSelect) => ({
  flowId: v.flowId,
  version: v.version,
  definition: v.definition,
  graph: v.graph,
  publishedAt: isoAt(v.publishedAt),
  runningItemCount: await runningItemCount(db, v.flowId, v.version),
});
