import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * A buyer of one store. `uid` is the seller's own member id (buyer delegation); members who signed up on
 * the storefront have a password. Withdrawal erases the personal fields and keeps the row (orders name it).
 */
export const customers = sqliteTable(
  'customers',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    uid: text('uid'),
    email: text('email'),
    name: text('name'),
    /** Mobile number, digits only (storefront sign-up). */
    phone: text('phone'),
    passwordHash: text('password_hash'),
    createdAt: integer('created_at').notNull(),
    /** Set when the buyer withdraws; their tokens stop working. */
    withdrawnAt: integer('withdrawn_at'),
  },
  (t) => [uniqueIndex('customers_store_uid').on(t.storeId, t.uid), uniqueIndex('customers_store_email').on(t.storeId, t.email)],
);

/** How buyers of a store may sign in (store-platform OWNER/ADMIN only); no row = the defaults. */
export const buyerLoginSettings = sqliteTable('buyer_login_settings', {
  storeId: text('store_id').primaryKey(),
  /** Storefront sign-up and login with e-mail and password. */
  emailPassword: integer('email_password', { mode: 'boolean' }).notNull(),
  updatedAt: integer('updated_at').notNull(),
});
