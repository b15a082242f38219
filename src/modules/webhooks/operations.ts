import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { mergeErrors } from '../../server/contract.js';
import { fail } from '../../server/errors.js';
import { stated } from '../../server/formats.js';
import { defineOperation, type StoreCtx } from '../../server/registry.js';
import { EVENT_TYPES } from '../../kernel/event-types.js';
import { webhooks } from './schema.js';
import { dropConnections } from './send.js';
import {
  assertWebhookUrl,
  deliveryDetailView,
  deliveryView,
  listDeliveries,
  loadDelivery,
  loadWebhook,
  newWebhookSecret,
  presentDelivery,
  presentDeliveryDetail,
  presentWebhook,
  redeliver,
  redeliverFailed,
  rotateSecret,
  testSend,
  webhookTestView,
  webhookView,
  webhookWithSecretView,
  WEBHOOKS_PER_STORE,
} from './service.js';

const tag = 'Webhook';
const eventType = z.enum(EVENT_TYPES);
const subscription = z
  .object({
    // checkWebhookUrl's rules that need no look-up: an https URL without user info (spec 01 §6.5).
    url: z.string().min(1).max(2048).meta({ format: 'uri', pattern: '^https://[^/?#@]+(?:[/?#].*)?$' }),
    eventTypes: z
      .array(eventType)
      .min(1)
      .max(EVENT_TYPES.length)
      .superRefine((types, ctx) => {
        types.forEach((t, i) => {
          if (types.indexOf(t) !== i) ctx.addIssue({ code: 'custom', path: [i], message: '같은 이벤트 유형이 두 번 있습니다.', params: { code: 'DUPLICATE' } });
        });
      })
      .meta(stated.uniqueItems),
  })
  .strict();
type Subscription = z.infer<typeof subscription>;

const webhookParams = z.object({ webhookId: z.string() });
const deliveryParams = z.object({ webhookId: z.string(), deliveryId: z.string() });
const webhookTarget = (ctx: { params: { webhookId: string } }) => ({ type: 'WEBHOOK', id: ctx.params.webhookId });
const webhookRead = { tag, auth: 'store' as const, scope: 'webhook:r' };
const webhookWrite = { tag, auth: 'store' as const, scope: 'webhook:rw' };
const deliveryTarget = (ctx: { params: { deliveryId: string } }) => ({ type: 'WEBHOOK_DELIVERY', id: ctx.params.deliveryId });
const load = (ctx: StoreCtx<unknown, unknown, { webhookId: string }>) => loadWebhook(ctx.db, ctx.store.id, ctx.params.webhookId);
/** Errors of `load`: no such subscription, or another store's. */
const webhookNotFound = { 403: ['TENANT_MISMATCH'], 404: ['WEBHOOK_NOT_FOUND'] };
const deliveryNotFound = { 403: ['TENANT_MISMATCH'], 404: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND'] };

export const webhookOperations = [
  defineOperation({
    operationId: 'createWebhook',
    title: '웹훅 등록',
    method: 'POST',
    path: '/v1/webhooks',
    summary: 'Subscribe a URL to event types; the secret is shown only in this response',
    ...webhookWrite,
    agent: 'approval',
    status: 201,
    body: subscription,
    preview: (ctx) => ({
      changes: [
        { field: 'url', before: null, after: ctx.body.url },
        { field: 'eventTypes', before: null, after: ctx.body.eventTypes },
      ],
    }),
    // The URL check resolves DNS: done before the write (and before dry runs and approval requests).
    precheck: (ctx) => assertWebhookUrl(ctx.services, ctx.body.url),
    response: webhookWithSecretView,
    errors: { 409: ['WEBHOOK_LIMIT_EXCEEDED'] },
    handler: async (ctx) => {
      if ((await countRows(ctx.db, webhooks, eq(webhooks.storeId, ctx.store.id))) >= WEBHOOKS_PER_STORE)
        throw fail(409, 'WEBHOOK_LIMIT_EXCEEDED', { limit: WEBHOOKS_PER_STORE });
      const row = {
        id: newId('wh', ctx.now),
        storeId: ctx.store.id,
        url: ctx.body.url,
        eventTypes: ctx.body.eventTypes,
        secret: newWebhookSecret(),
        oldSecret: null,
        oldSecretExpiresAt: null,
        status: 'ACTIVE' as const,
        suspendedAt: null,
        failingSince: null,
        lastFailureAt: null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.db.insert(webhooks).values(row).run();
      return { ...presentWebhook(row, ctx.now), secret: row.secret };
    },
  }),
  defineOperation({
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/v1/webhooks',
    summary: 'Subscriptions of the store (secret prefix only)',
    ...webhookRead,
    response: z.object({ contents: z.array(webhookView) }),
    handler: async (ctx) => ({
      contents: (await ctx.db.select().from(webhooks).where(eq(webhooks.storeId, ctx.store.id)).orderBy(webhooks.id).all()).map((w) =>
        presentWebhook(w, ctx.now),
      ),
    }),
  }),
  defineOperation({
    operationId: 'getWebhook',
    method: 'GET',
    path: '/v1/webhooks/{webhookId}',
    summary: 'One subscription',
    ...webhookRead,
    params: webhookParams,
    response: webhookView,
    errors: webhookNotFound,
    handler: async (ctx) => presentWebhook(await load(ctx), ctx.now),
  }),
  defineOperation({
    operationId: 'updateWebhook',
    title: '웹훅 변경',
    method: 'PUT',
    path: '/v1/webhooks/{webhookId}',
    summary: 'Replace URL and event types; also reactivates a suspended subscription and resets its failures',
    ...webhookWrite,
    agent: 'approval',
    params: webhookParams,
    body: subscription,
    target: webhookTarget,
    preview: async (ctx) => {
      const w = await load(ctx);
      return {
        changes: (['url', 'eventTypes'] as const)
          .filter((f) => JSON.stringify(w[f]) !== JSON.stringify(ctx.body[f]))
          .map((field) => ({ field, before: w[field], after: ctx.body[field] })),
      };
    },
    precheck: async (ctx) => {
      await load(ctx);
      await assertWebhookUrl(ctx.services, ctx.body.url);
    },
    response: webhookView,
    errors: webhookNotFound,
    handler: async (ctx) => {
      const w = await load(ctx);
      const patch: Partial<typeof webhooks.$inferInsert> & Subscription = {
        url: ctx.body.url,
        eventTypes: ctx.body.eventTypes,
        status: 'ACTIVE',
        suspendedAt: null,
        failingSince: null,
        lastFailureAt: null,
        updatedAt: ctx.now,
      };
      await ctx.db.update(webhooks).set(patch).where(eq(webhooks.id, w.id)).run();
      dropConnections(w.id);
      return presentWebhook({ ...w, ...patch }, ctx.now);
    },
  }),
  defineOperation({
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/v1/webhooks/{webhookId}',
    summary: 'Delete a subscription, its delivery records and its pending sends',
    ...webhookWrite,
    params: webhookParams,
    target: webhookTarget,
    response: z.object({ webhookId: z.string(), deleted: z.literal(true) }),
    errors: webhookNotFound,
    handler: async (ctx) => {
      const w = await load(ctx);
      // Records go with the subscription (foreign key cascade); sends under way find no row to report to.
      await ctx.db.delete(webhooks).where(eq(webhooks.id, w.id)).run();
      dropConnections(w.id);
      return { webhookId: w.id, deleted: true };
    },
  }),
  defineOperation({
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/v1/webhooks/{webhookId}/rotate-secret',
    summary: 'New secret; the previous one keeps signing for 24 hours',
    ...webhookWrite,
    agent: 'denied',
    params: webhookParams,
    target: webhookTarget,
    response: webhookWithSecretView,
    errors: webhookNotFound,
    handler: async (ctx) => {
      const secret = await rotateSecret(ctx.db, await load(ctx), ctx.now);
      return { ...presentWebhook(await load(ctx), ctx.now), secret };
    },
  }),
  defineOperation({
    operationId: 'resumeWebhook',
    method: 'POST',
    path: '/v1/webhooks/{webhookId}/resume',
    summary: 'Reactivate a suspended subscription (already active: no change)',
    ...webhookWrite,
    params: webhookParams,
    target: webhookTarget,
    response: webhookView,
    errors: webhookNotFound,
    handler: async (ctx) => {
      const w = await load(ctx);
      if (w.status === 'ACTIVE') return presentWebhook(w, ctx.now);
      await ctx.db
        .update(webhooks)
        .set({ status: 'ACTIVE', suspendedAt: null, failingSince: null, lastFailureAt: null, updatedAt: ctx.now })
        .where(eq(webhooks.id, w.id))
        .run();
      return presentWebhook(await load(ctx), ctx.now);
    },
  }),
  defineOperation({
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhooks/{webhookId}/deliveries',
    summary: 'Delivery records of the last 30 days, newest first',
    ...webhookRead,
    params: webhookParams,
    query: z
      .object({
        status: z.enum(['PENDING', 'PENDING_RETRY', 'SUCCESS', 'FAILED']).optional(),
        eventType: eventType.optional(),
        resourceId: z.string().min(1).max(100).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(50),
      })
      .strict(),
    response: z.object({ contents: z.array(deliveryView) }),
    errors: webhookNotFound,
    handler: async (ctx) => ({ contents: (await listDeliveries(ctx.db, await load(ctx), ctx.now, ctx.query)).map(presentDelivery) }),
  }),
  defineOperation({
    operationId: 'getWebhookDelivery',
    method: 'GET',
    path: '/v1/webhooks/{webhookId}/deliveries/{deliveryId}',
    summary: 'One delivery record with the request of its last attempt',
    ...webhookRead,
    params: deliveryParams,
    response: deliveryDetailView,
    errors: deliveryNotFound,
    handler: async (ctx) => presentDeliveryDetail(await loadDelivery(ctx.db, await load(ctx), ctx.params.deliveryId)),
  }),
  defineOperation({
    operationId: 'redeliverWebhookDelivery',
    method: 'POST',
    path: '/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    summary: 'Send a FAILED delivery again, once, as a new record with the same event id',
    ...webhookWrite,
    params: deliveryParams,
    target: deliveryTarget,
    status: 202,
    response: deliveryView.describe('The new record, PENDING, with the same eventId.'),
    errors: mergeErrors(deliveryNotFound, { 409: ['WEBHOOK_SUSPENDED', 'DELIVERY_NOT_FAILED', 'DELIVERY_ALREADY_REDELIVERED'] }),
    handler: async (ctx) => presentDelivery(await redeliver(ctx.db, await load(ctx), ctx.params.deliveryId, ctx.now)),
  }),
  defineOperation({
    operationId: 'redeliverFailedWebhookDeliveries',
    method: 'POST',
    path: '/v1/webhooks/{webhookId}/deliveries/redeliver-failed',
    summary: 'Queue every unredelivered FAILED record of the last 72 hours (at most 500, oldest first)',
    ...webhookWrite,
    params: webhookParams,
    target: webhookTarget,
    status: 202,
    response: z.object({ queued: z.number().int().describe('Records queued again (at most 500).') }),
    errors: mergeErrors(webhookNotFound, { 409: ['WEBHOOK_SUSPENDED'] }),
    handler: async (ctx) => ({ queued: await redeliverFailed(ctx.db, await load(ctx), ctx.now) }),
  }),
  defineOperation({
    operationId: 'testWebhook',
    method: 'POST',
    path: '/v1/webhooks/{webhookId}/test',
    summary: "Send a signed sample event now and return the receiver's answer (not recorded, no retry)",
    ...webhookWrite,
    params: webhookParams,
    body: z.object({ eventType }).strict(),
    target: webhookTarget,
    async: true,
    response: webhookTestView,
    errors: webhookNotFound,
    handler: async (ctx) => testSend(ctx.services, await load(ctx), ctx.body.eventType),
  }),
];
