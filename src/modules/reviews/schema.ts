import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A member's review of one order item they received: once per item, with the seller's reply and visibility. */
export const reviews = sqliteTable(
  'reviews',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    productId: text('product_id').notNull(),
    orderItemId: text('order_item_id').notNull(),
    customerId: text('customer_id').notNull(),
    rating: integer('rating').notNull(),
    text: text('text').notNull(),
    /** Upload ids of the buyer's pictures (order-input uploads). */
    images: text('images', { mode: 'json' }).$type<string[]>().notNull(),
    reply: text('reply', { mode: 'json' }).$type<{ text: string; repliedAt: number } | null>(),
    hidden: integer('hidden', { mode: 'boolean' }).notNull(),
    testOrder: integer('test_order', { mode: 'boolean' }).notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('reviews_order_item').on(t.orderItemId),
    index('reviews_store').on(t.storeId, t.createdAt),
    index('reviews_product').on(t.productId, t.createdAt),
  ],
);
