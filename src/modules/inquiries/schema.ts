import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** A buyer's question: about a product (others may see it unless secret), or one-to-one with the store. */
export const inquiries = sqliteTable(
  'inquiries',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    kind: text('kind').$type<'PRODUCT' | 'PERSONAL'>().notNull(),
    productId: text('product_id'),
    customerId: text('customer_id').notNull(),
    title: text('title').notNull(),
    text: text('text').notNull(),
    secret: integer('secret', { mode: 'boolean' }).notNull(),
    answer: text('answer', { mode: 'json' }).$type<{ text: string; answeredAt: number } | null>(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('inquiries_store').on(t.storeId, t.createdAt)],
);
