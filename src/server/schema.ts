import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** First responses of requests sent with an `Idempotency-Key`, per token. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    tokenId: text('token_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state').$type<'IN_PROGRESS' | 'DONE'>().notNull(),
    status: integer('status'),
    body: text('body'),
    createdAt: integer('created_at').notNull(),
    /** An `IN_PROGRESS` claim lapses at this instant: a process killed mid-request does not hold its key forever. */
    leaseExpiresAt: integer('lease_expires_at').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tokenId, t.key] })],
);

/** Mail the service would send (password resets, approval notices); `svc dev` shows it at /_dev/v1/mail. */
export const mailOutbox = sqliteTable('mail_outbox', {
  id: text('id').primaryKey(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * Attempt counters (sign-ins per account and per address, reset mails per e-mail, guest order look-ups per
 * order number): a fixed window that starts at its first attempt. Attempts are reserved before the costly
 * check they guard (a password hash), so concurrent guesses cannot all be evaluated.
 */
export const attemptThrottles = sqliteTable('attempt_throttles', {
  key: text('key').primaryKey(),
  count: integer('count').notNull(),
  windowStart: integer('window_start').notNull(),
});
