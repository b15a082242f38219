import { inArray } from 'drizzle-orm';
import { z } from 'zod';
import { join } from 'node:path';
import type { Db } from '../../db/client.js';
import { fail, validationFailed, type FieldError } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { uploads } from './schema.js';

/** What each `purpose` accepts: product images are pictures buyers see; attachments may be any document. */
export const PURPOSES: Record<string, { scope: string; maxBytes: number; types: RegExp }> = {
  'product-image': { scope: 'product:rw', maxBytes: 10 * 1024 * 1024, types: /^image\/(jpeg|png|gif|webp|avif)$/ },
  'flow-attachment': { scope: 'flow:rw', maxBytes: 20 * 1024 * 1024, types: /^(image\/(jpeg|png|gif|webp|avif)|application\/pdf|text\/plain)$/ },
};

export const uploadsDir = (services: Services) => join(services.config.dataDir, 'uploads');
export const uploadUrl = (origin: string, uploadId: string) => `${origin}/files/${uploadId}`;

/** An upload as `POST /v1/uploads` answers it: `url` serves the file to anyone who has it. */
export const uploadSchema = z.object({
  uploadId: z.string(),
  url: z.url(),
  contentType: z.string(),
  size: z.number().int(),
  purpose: z.string(),
  filename: z.string(),
});

export const presentUpload = (origin: string, row: typeof uploads.$inferSelect): z.output<typeof uploadSchema> =>
  ({ uploadId: row.id, url: uploadUrl(origin, row.id), contentType: row.contentType, size: row.size, purpose: row.purpose, filename: row.filename });

/**
 * Product images name uploads of this store with purpose `product-image`: a missing or unfit one is a form
 * error on its position, another store's is 403 TENANT_MISMATCH.
 */
export function requireProductImages(db: Db, storeId: string, ids: string[]) {
  if (ids.length === 0) return;
  const rows = db.select().from(uploads).where(inArray(uploads.id, ids)).all();
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    const row = rows.find((r) => r.id === id);
    if (row && row.storeId !== storeId) throw fail(403, 'TENANT_MISMATCH', { field: `images.${i}`, uploadId: id });
    if (!row) errors.push({ field: `images.${i}`, code: 'UPLOAD_NOT_FOUND', message: '업로드된 파일을 찾을 수 없습니다.' });
    else if (row.purpose !== 'product-image') errors.push({ field: `images.${i}`, code: 'WRONG_PURPOSE', message: 'purpose가 product-image인 업로드만 상품 이미지로 쓸 수 있습니다.' });
    if (ids.indexOf(id) !== i) errors.push({ field: `images.${i}`, code: 'DUPLICATE', message: '같은 이미지가 두 번 들어 있습니다.' });
  });
  if (errors.length) throw validationFailed(errors);
}
