import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A buyer of one store. `uid` is the seller's own member id (buyer delegation); e-mail is optional. */
export const customers = sqliteTable('customers', {
  id: text('id').primaryKey(),
  storeId: text('store_id').notNull(),
  uid: text('uid'),
  email: text('email'),
  name: text('name'),
  createdAt: integer('created_at').notNull(),
  /** Set when the buyer withdraws; their tokens stop working. */
  withdrawnAt: integer('withdrawn_at'),
}, (t) => [uniqueIndex('customers_store_uid').on(t.storeId, t.uid), uniqueIndex('customers_store_email').on(t.storeId, t.email)]);
