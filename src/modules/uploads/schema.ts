import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Files sellers uploaded (product images, flow attachments); bytes live under `{dataDir}/uploads/{id}`. */
export const uploads = sqliteTable(
  'uploads',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    purpose: text('purpose').notNull(),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('uploads_store').on(t.storeId, t.id)],
);
