import { and, desc, eq, gte, inArray, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import type { Db } from '../../db/client.js';
import { newId, newSecret } from '../../db/ids.js';
import { fail, fieldError, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { requireOwned } from '../../server/tenancy.js';
import { eventIdsAbout, eventPayload } from '../events/index.js';
import { EVENT_TYPES, sampleEvent, type EventType } from '../../kernel/event-types.js';
import { checkWebhookUrl } from '../../kernel/network-address.js';
import { webhookDeliveries, webhooks, type DeliveryStatus } from './schema.js';
import { ERROR_CODE, FAILURE_REASONS, sendOnce, storedPayload } from './send.js';
import { buildRequest, signingSecrets } from './request.js';

export const WEBHOOKS_PER_STORE = 10;
const ROTATION_OVERLAP_MS = 24 * 3600_000;
const RECORDS_SHOWN_MS = 30 * 86400_000;
const BULK_REDELIVERY_MS = 72 * 3600_000;
const BULK_REDELIVERY_MAX = 500;

defineMessages({
  WEBHOOK_NOT_FOUND: '웹훅 구독을 찾을 수 없습니다.',
  WEBHOOK_LIMIT_EXCEEDED: '웹훅 구독은 상점당 최대 10개입니다.',
  WEBHOOK_DELIVERY_NOT_FOUND: '웹훅 전송 기록을 찾을 수 없습니다.',
  DELIVERY_NOT_FAILED: '실패한 전송만 다시 보낼 수 있습니다.',
  DELIVERY_ALREADY_REDELIVERED: '이미 다시 보낸 전송입니다. 재전송은 원본당 한 번입니다.',
  WEBHOOK_SUSPENDED: '일시 중지된 웹훅입니다. 먼저 재개하세요.',
  BLOCKED_ADDRESS: '내부망, 루프백, 링크 로컬, 예약 대역 등 보낼 수 없는 주소로 연결됩니다.',
  HTTPS_REQUIRED: 'https:// 주소만 등록할 수 있습니다.',
  USER_INFO_NOT_ALLOWED: '주소에 사용자 정보(user:password@)를 넣을 수 없습니다.',
  INVALID_URL: '올바른 URL이 아닙니다.',
  DUPLICATE: '같은 값이 두 번 있습니다.',
});

type Webhook = typeof webhooks.$inferSelect;
type Delivery = typeof webhookDeliveries.$inferSelect;

/** A subscription (`presentWebhook`); the secret itself only in the answers that create it. */
export const webhookView = z.object({
  webhookId: z.string(),
  url: z.string(),
  eventTypes: z.array(z.enum(EVENT_TYPES)),
  secretPrefix: z.string().describe('The first 12 characters of the signing secret (`whsec_` and 6 more).'),
  status: z.enum(['ACTIVE', 'SUSPENDED']).describe('SUSPENDED after 24 hours of failures without a success; resume or PUT reactivates it.'),
  suspendedAt: instant.nullable(),
  oldSecretExpiresAt: instant.nullable().describe('While a rotated-out secret still signs along (24 hours after a rotation).'),
  createdAt: instant,
  updatedAt: instant,
});

/** A subscription with its signing secret: shown only when created and when rotated. */
export const webhookWithSecretView = webhookView.extend({ secret: z.string().describe('`whsec_…`: verify signatures with it; it is not shown again.') });

export function presentWebhook(w: Webhook, now: number) {
  const overlap = w.oldSecretExpiresAt !== null && w.oldSecretExpiresAt > now;
  return {
    webhookId: w.id,
    url: w.url,
    eventTypes: w.eventTypes,
    secretPrefix: w.secret.slice(0, 12),
    status: w.status,
    suspendedAt: w.suspendedAt === null ? null : isoAt(w.suspendedAt),
    oldSecretExpiresAt: overlap ? isoAt(w.oldSecretExpiresAt!) : null,
    createdAt: isoAt(w.createdAt),
    updatedAt: isoAt(w.updatedAt),
  };
}

const errorCodes = [...new Set(Object.values(ERROR_CODE))] as [string, ...string[]];

/** A delivery record (spec 01 §6.5): one event to one subscription, its attempts counted. */
export const deliveryView = z.object({
  deliveryId: z.string(),
  webhookId: z.string(),
  eventId: z.string().describe('The same for a redelivery of the same event.'),
  eventType: z.enum(EVENT_TYPES),
  resource: z
    .object({ type: z.enum(['ORDER', 'CLAIM', 'PRODUCT', 'REVIEW', 'INQUIRY']), id: z.string() })
    .nullable()
    .describe('What the event is about; null when not determinable. Types may grow.'),
  status: z.enum(['PENDING', 'PENDING_RETRY', 'SUCCESS', 'FAILED']),
  attemptCount: z.number().int().describe('Attempts started, including ones whose result could not be recorded.'),
  lastAttemptAt: instant.nullable(),
  nextAttemptAt: instant.nullable().describe('Set while PENDING or PENDING_RETRY.'),
  responseStatusCode: z.number().int().nullable(),
  responseTimeMs: z.number().int().nullable(),
  responseBodyExcerpt: z.string().nullable().describe('First 4,096 characters of the answer; token-like keys masked.'),
  errorCode: z.enum(errorCodes).nullable(),
  failureReason: z.enum(FAILURE_REASONS).nullable(),
  redeliveryOf: z.string().nullable(),
  redeliveredAs: z.string().nullable(),
  createdAt: instant,
});

const requestHeadersView = z.array(z.object({ name: z.string(), value: z.string().nullable().describe('Null for Svc-Signature, which records never show.') }));

/** A delivery record with the request of its last attempt. */
export const deliveryDetailView = deliveryView.extend({
  payload: z.string().nullable().describe('The JSON body sent, at most 16 KB, token-like keys masked; null before the first attempt.'),
  payloadTruncated: z.boolean(),
  payloadMasked: z.boolean(),
  requestHeaders: requestHeadersView,
});

export function presentDelivery(d: Delivery) {
  const at = (ms: number | null) => (ms === null ? null : isoAt(ms));
  return {
    deliveryId: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    resource: d.resourceType && d.resourceId ? { type: d.resourceType, id: d.resourceId } : null,
    status: d.status,
    attemptCount: d.attemptCount,
    lastAttemptAt: at(d.lastAttemptAt),
    nextAttemptAt: at(d.nextAttemptAt),
    responseStatusCode: d.responseStatusCode,
    responseTimeMs: d.responseTimeMs,
    responseBodyExcerpt: d.responseBodyExcerpt,
    errorCode: d.errorCode,
    failureReason: d.failureReason,
    redeliveryOf: d.redeliveryOf,
    redeliveredAs: d.redeliveredAs,
    createdAt: isoAt(d.createdAt),
  };
}

export function presentDeliveryDetail(d: Delivery) {
  return {
    ...presentDelivery(d),
    payload: d.payload,
    payloadTruncated: d.payloadTruncated ?? false,
    payloadMasked: d.payloadMasked ?? false,
    requestHeaders: d.requestHeaders ?? [],
  };
}

export const newWebhookSecret = () => newSecret(32, 'whsec_');

export async function loadWebhook(db: Db, storeId: string, webhookId: string): Promise<Webhook> {
  return requireOwned(await db.select().from(webhooks).where(eq(webhooks.id, webhookId)).get(), storeId, 'WEBHOOK_NOT_FOUND');
}

export async function loadDelivery(db: Db, webhook: Webhook, deliveryId: string): Promise<Delivery> {
  const d = requireOwned(
    await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get(),
    webhook.storeId,
    'WEBHOOK_DELIVERY_NOT_FOUND',
  );
  if (d.webhookId !== webhook.id) throw fail(404, 'WEBHOOK_DELIVERY_NOT_FOUND');
  return d;
}

/** 400 VALIDATION_FAILED with a `url` field error when the URL may not be registered (spec 01 §6.5). */
export async function assertWebhookUrl(services: Services, url: string) {
  const problem = await checkWebhookUrl(url, { allowHosts: services.config.unsafeWebhookHosts });
  if (problem) throw validationFailed([fieldError('url', problem)]);
}

export function listDeliveries(
  db: Db,
  webhook: Webhook,
  now: number,
  filter: { status?: DeliveryStatus; eventType?: string; resourceId?: string; limit: number },
) {
  const where = and(
    eq(webhookDeliveries.webhookId, webhook.id),
    gte(webhookDeliveries.createdAt, now - RECORDS_SHOWN_MS),
    filter.status ? eq(webhookDeliveries.status, filter.status) : undefined,
    filter.eventType ? eq(webhookDeliveries.eventType, filter.eventType) : undefined,
    filter.resourceId ? inArray(webhookDeliveries.eventId, eventIdsAbout(db, filter.resourceId)) : undefined,
  );
  return db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.id)).limit(filter.limit).all();
}

async function queueRedelivery(db: Db, original: Delivery, now: number): Promise<Delivery> {
  const copy: Delivery = {
    ...original,
    id: newId('whd', now),
    status: 'PENDING',
    attemptCount: 0,
    nextAttemptAt: now,
    lastAttemptAt: null,
    responseStatusCode: null,
    responseTimeMs: null,
    responseBodyExcerpt: null,
    errorCode: null,
    failureReason: null,
    redeliveryOf: original.id,
    redeliveredAs: null,
    payload: null,
    payloadTruncated: null,
    payloadMasked: null,
    requestHeaders: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(webhookDeliveries).values(copy).run();
  await db.update(webhookDeliveries).set({ redeliveredAs: copy.id, updatedAt: now }).where(eq(webhookDeliveries.id, original.id)).run();
  return copy;
}

export async function redeliver(db: Db, webhook: Webhook, deliveryId: string, now: number): Promise<Delivery> {
  const original = await loadDelivery(db, webhook, deliveryId);
  if (webhook.status === 'SUSPENDED') throw fail(409, 'WEBHOOK_SUSPENDED');
  if (original.status !== 'FAILED') throw fail(409, 'DELIVERY_NOT_FAILED', { status: original.status });
  if (original.redeliveredAs) throw fail(409, 'DELIVERY_ALREADY_REDELIVERED', { redeliveredAs: original.redeliveredAs });
  return queueRedelivery(db, original, now);
}

export async function redeliverFailed(db: Db, webhook: Webhook, now: number): Promise<number> {
  if (webhook.status === 'SUSPENDED') throw fail(409, 'WEBHOOK_SUSPENDED');
  const failed = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhook.id),
        eq(webhookDeliveries.status, 'FAILED'),
        isNull(webhookDeliveries.redeliveredAs),
        gte(webhookDeliveries.createdAt, now - BULK_REDELIVERY_MS),
      ),
    )
    .orderBy(webhookDeliveries.id)
    .limit(BULK_REDELIVERY_MAX)
    .all();
  for (const d of failed) await queueRedelivery(db, d, now);
  return failed.length;
}

/** Rotation keeps at most two valid secrets: the previous one signs along for 24 h, an older one stops at once. */
export async function rotateSecret(db: Db, webhook: Webhook, now: number) {
  const secret = newWebhookSecret();
  await db
    .update(webhooks)
    .set({ secret, oldSecret: webhook.secret, oldSecretExpiresAt: now + ROTATION_OVERLAP_MS, updatedAt: now })
    .where(eq(webhooks.id, webhook.id))
    .run();
  return secret;
}

/** The answer of a test send. */
export const webhookTestView = z.object({
  eventId: z.string(),
  eventType: z.enum(EVENT_TYPES),
  success: z.boolean().describe('The receiver answered 2xx.'),
  responseStatusCode: z.number().int().nullable(),
  responseTimeMs: z.number().int(),
  errorCode: z.enum(errorCodes).nullable(),
  failureReason: z.enum(FAILURE_REASONS).nullable(),
  responseBodyExcerpt: z.string().nullable(),
  requestHeaders: requestHeadersView,
  payload: z.string(),
});

/** A real, signed request with sample data; nothing is recorded and nothing counts toward suspension. */
export async function testSend(services: Services, webhook: Webhook, eventType: EventType) {
  const now = services.clock.now();
  const sample = sampleEvent(eventType, now);
  const event = {
    id: newId('evt_test', now),
    type: eventType,
    createdAt: now,
    storeId: webhook.storeId,
    sequence: null,
    dataJson: JSON.stringify(sample.data),
  };
  const body = eventPayload(event);
  const request = buildRequest(body, event, newId('whd_test', now), signingSecrets(webhook, now), now);
  const result = await sendOnce(webhook.url, body, request.headers, { allowHosts: services.config.unsafeWebhookHosts, poolKey: webhook.id });
  return {
    eventId: event.id,
    eventType,
    success: result.ok,
    responseStatusCode: result.statusCode,
    responseTimeMs: result.timeMs,
    errorCode: result.errorCode,
    failureReason: result.failureReason,
    responseBodyExcerpt: result.bodyExcerpt,
    requestHeaders: request.requestHeaders,
    payload: storedPayload(body).payload,
  };
}
