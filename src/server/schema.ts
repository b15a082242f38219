import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** First responses of requests sent with an `Idempotency-Key`, per token. */
export const idempotencyKeys = sqliteTable('idempotency_keys', {
  tokenId: text('token_id').notNull(),
  key: text('key').notNull(),
  fingerprint: text('fingerprint').notNull(),
  state: text('state').$type<'IN_PROGRESS' | 'DONE'>().notNull(),
  status: integer('status'),
  body: text('body'),
  createdAt: integer('created_at').notNull(),
}, (t) => [primaryKey({ columns: [t.tokenId, t.key] })]);

/** Mail the service would send (password resets, approval notices); `svc dev` shows it at /_dev/v1/mail. */
export const mailOutbox = sqliteTable('mail_outbox', {
  id: text('id').primaryKey(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  createdAt: integer('created_at').notNull(),
});
