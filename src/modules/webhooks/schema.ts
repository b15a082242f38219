import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { ResourceType } from '../events/index.js';

export type WebhookStatus = 'ACTIVE' | 'SUSPENDED';
export type DeliveryStatus = 'PENDING' | 'PENDING_RETRY' | 'SUCCESS' | 'FAILED';

export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    url: text('url').notNull(),
    eventTypes: text('event_types', { mode: 'json' }).$type<string[]>().notNull(),
    secret: text('secret').notNull(),
    /** The secret before the last rotation; signs too (second `v1`) until `oldSecretExpiresAt`. */
    oldSecret: text('old_secret'),
    oldSecretExpiresAt: integer('old_secret_expires_at'),
    status: text('status').$type<WebhookStatus>().notNull(),
    suspendedAt: integer('suspended_at'),
    /** Failure record of spec 01 §3.5: first failure of the current run and the latest failure. */
    failingSince: integer('failing_since'),
    lastFailureAt: integer('last_failure_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhooks_store').on(t.storeId)],
);

/** One row per (event, receiver): the durable queue of the delivery worker and the record sellers read. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    resourceType: text('resource_type').$type<ResourceType>(),
    resourceId: text('resource_id'),
    status: text('status').$type<DeliveryStatus>().notNull(),
    /** Attempts started, written before each send so a crash mid-send still counts it. */
    attemptCount: integer('attempt_count').notNull(),
    /** Set exactly while the record is PENDING or PENDING_RETRY, so "due" is one index range. */
    nextAttemptAt: integer('next_attempt_at'),
    lastAttemptAt: integer('last_attempt_at'),
    responseStatusCode: integer('response_status_code'),
    responseTimeMs: integer('response_time_ms'),
    responseBodyExcerpt: text('response_body_excerpt'),
    errorCode: text('error_code'),
    failureReason: text('failure_reason'),
    redeliveryOf: text('redelivery_of'),
    redeliveredAs: text('redelivered_as'),
    /** Request of the last attempt (spec 01 §6.5 detail). */
    payload: text('payload'),
    payloadTruncated: integer('payload_truncated', { mode: 'boolean' }),
    payloadMasked: integer('payload_masked', { mode: 'boolean' }),
    requestHeaders: text('request_headers', { mode: 'json' }).$type<{ name: string; value: string | null }[]>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.nextAttemptAt, t.webhookId),
    index('webhook_deliveries_webhook_due').on(t.webhookId, t.nextAttemptAt),
    index('webhook_deliveries_webhook').on(t.webhookId, t.id),
    index('webhook_deliveries_event').on(t.eventId),
  ],
);
