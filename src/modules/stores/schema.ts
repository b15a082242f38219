import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { z } from 'zod';
import { ROLES, type Role } from '../../kernel/identity.js';

/**
 * The accounts module's `users` table as the target of `members.user_id`'s foreign key, and nothing more:
 * its key column by name, so this schema needs no other module's table. Never export it (drizzle-kit and
 * the PostgreSQL migrator take every exported table for one of ours); never query it (ask accounts).
 */
const accountsUsers = sqliteTable('users', { id: text('id').primaryKey() });

export const roleSchema = z.enum(ROLES);

export const stores = sqliteTable(
  'stores',
  {
    id: text('id').primaryKey(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    /** Store settings of spec 01 §2.8 that the seller edits, kept as one JSON document. */
    settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    plan: text('plan').notNull(),
    /** Set once the hosted storefront first became public; agent approval exemptions end then. */
    everPublicAt: integer('ever_public_at'),
    /** Set by the first paid order of a live (non-sandbox) payment; agent approval exemptions end then too. */
    firstLiveOrderAt: integer('first_live_order_at'),
    /** The operator suspended the store's hosting (its site shows the suspension page; storefront changes give STORE_SUSPENDED). */
    suspendedAt: integer('suspended_at'),
    suspensionReason: text('suspension_reason'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('stores_code').on(t.code)],
);

export const members = sqliteTable(
  'members',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    userId: text('user_id')
      .notNull()
      .references(() => accountsUsers.id),
    role: text('role').$type<Role>().notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('members_store_user').on(t.storeId, t.userId), index('members_user').on(t.userId)],
);

/** Metered plan usage per store and Korean calendar month (YYYY-MM). */
export const planUsage = sqliteTable(
  'plan_usage',
  {
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    month: text('month').notNull(),
    aiActions: integer('ai_actions').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.month] })],
);

/**
 * A counter per store and scope that SQLite triggers grow on every write to the tables a cached read
 * model is built from (scope `settings`: stores and the payment settings tables), see store-cache.ts.
 */
export const storeVersions = sqliteTable(
  'store_versions',
  {
    storeId: text('store_id').notNull(),
    scope: text('scope').notNull(),
    version: integer('version').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.scope] })],
);

/**
 * An invitation to join a store (spec 01 §5, member invitation): mailed to `email`, accepted by that e-mail's
 * account with the token, which is kept only as its hash. PENDING until accepted or revoked; one past
 * `expiresAt` reads as EXPIRED.
 */
export const memberInvitations = sqliteTable(
  'member_invitations',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id')
      .notNull()
      .references(() => stores.id),
    /** Normalized (lower-case) like account e-mails. */
    email: text('email').notNull(),
    role: text('role').$type<Role>().notNull(),
    tokenHash: text('token_hash').notNull(),
    status: text('status').$type<'PENDING' | 'ACCEPTED' | 'REVOKED'>().notNull(),
    invitedBy: text('invited_by').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** The member the acceptance made. */
    memberId: text('member_id'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [uniqueIndex('member_invitations_token').on(t.tokenHash), index('member_invitations_store').on(t.storeId, t.status)],
);
