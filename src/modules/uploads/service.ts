import { inArray } from 'drizzle-orm';
import { z } from 'zod';
import { mkdirSync, writeFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed, type FieldError } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { uploads } from './schema.js';

export interface UploadPurpose {
  maxBytes: number;
  types: RegExp;
}

const IMAGES = /^image\/(jpeg|png|gif|webp|avif)$/;

/** What each seller `purpose` accepts and needs: product images are pictures buyers see; attachments may be any document. */
export const PURPOSES: Record<string, UploadPurpose & { scope: string }> = {
  'product-image': { scope: 'product:rw', maxBytes: 10 * 1024 * 1024, types: IMAGES },
  'flow-attachment': { scope: 'flow:rw', maxBytes: 20 * 1024 * 1024, types: /^(image\/(jpeg|png|gif|webp|avif)|application\/pdf|text\/plain)$/ },
};

/** Pictures buyers attach to flow actions (a photo of a custom order's design, a pickup receipt). */
export const ORDER_INPUT = 'order-input';
export const ORDER_INPUT_PURPOSE: UploadPurpose = { maxBytes: 10 * 1024 * 1024, types: IMAGES };

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const startsWith = (bytes: Uint8Array, signature: number[], at = 0) => signature.every((b, i) => bytes[at + i] === b);
const TEXT = new TextDecoder('utf-8', { fatal: true });

/** An ISO-BMFF (`ftyp`) file whose major or compatible brands include one of `brands` (AVIF: `avif`, `avis`). */
function hasBrand(bytes: Uint8Array, brands: string[]) {
  if (!startsWith(bytes, ascii('ftyp'), 4)) return false;
  const boxEnd = Math.min(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0), bytes.length);
  for (let at = 8; at + 4 <= boxEnd; at += at === 8 ? 8 : 4) {
    if (brands.some((brand) => startsWith(bytes, ascii(brand), at))) return true;
  }
  return false;
}

/**
 * Whether a file's bytes are what its declared type says (magic numbers): a declared image that is HTML,
 * SVG or a script is refused, whatever a browser or another consumer would sniff it to be. Plain text has
 * no signature: it must be UTF-8 without NUL bytes.
 */
const CONTENT_CHECKS: Record<string, (bytes: Uint8Array) => boolean> = {
  'image/jpeg': (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  'image/png': (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/gif': (b) => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')),
  'image/webp': (b) => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8),
  'image/avif': (b) => b.length >= 16 && hasBrand(b, ['avif', 'avis']),
  'application/pdf': (b) => startsWith(b, ascii('%PDF-')),
  'text/plain': (b) => {
    if (b.includes(0)) return false;
    try {
      TEXT.decode(b);
      return true;
    } catch {
      return false;
    }
  },
};

export const contentMatchesType = (type: string, bytes: Uint8Array) => CONTENT_CHECKS[type]?.(bytes) ?? false;

/**
 * `Content-Disposition` of a served upload (RFC 6266): an ASCII stand-in in `filename` and the real name
 * in `filename*` (RFC 8187), percent-encoded down to attr-chars, so no client's name reaches the header raw.
 */
export function contentDisposition(filename: string) {
  const fallback = filename.replace(/[^A-Za-z0-9._-]/g, '_');
  const encoded = encodeURIComponent(filename.toWellFormed()).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `inline; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export const uploadsDir = (services: Services) => join(services.config.dataDir, 'uploads');
export const uploadUrl = (origin: string, uploadId: string) => `${origin}/files/${uploadId}`;

type NewUpload = { storeId: string; purpose: string; filename: string; contentType: string; bytes: Uint8Array };

function uploadRow(services: Services, now: number, file: NewUpload) {
  const row = {
    id: newId('upl', now),
    storeId: file.storeId,
    purpose: file.purpose,
    filename: file.filename,
    contentType: file.contentType,
    size: file.bytes.byteLength,
    createdAt: now,
  };
  const dir = uploadsDir(services);
  mkdirSync(dir, { recursive: true });
  return { row, path: join(dir, row.id) };
}

/** Writes checked bytes under the data dir and their row; the file is removed again when the row cannot be written. */
export async function storeUpload(services: Services, db: Db, now: number, file: NewUpload) {
  const { row, path } = uploadRow(services, now, file);
  await writeFile(path, file.bytes);
  try {
    await db.insert(uploads).values(row).run();
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  return row;
}

/**
 * The same inside a transaction (a new store's sample pictures): a SQLite transaction may not wait for I/O,
 * so the small file is written synchronously; a rolled-back store leaves only an unreferenced file.
 */
export async function storeUploadInTransaction(services: Services, db: Db, now: number, file: NewUpload) {
  const { row, path } = uploadRow(services, now, file);
  writeFileSync(path, file.bytes);
  await db.insert(uploads).values(row).run();
  return row;
}

/** An upload as `POST /v1/uploads` answers it: `url` serves the file to anyone who has it. */
export const uploadSchema = z.object({
  uploadId: z.string(),
  url: z.url(),
  contentType: z.string(),
  size: z.number().int(),
  purpose: z.string(),
  filename: z.string(),
});

export const presentUpload = (origin: string, row: typeof uploads.$inferSelect): z.output<typeof uploadSchema> => ({
  uploadId: row.id,
  url: uploadUrl(origin, row.id),
  contentType: row.contentType,
  size: row.size,
  purpose: row.purpose,
  filename: row.filename,
});

/**
 * Image inputs of a flow action name uploads of this store: buyers' order-input pictures, or a seller's
 * flow attachments. Answers the input keys whose upload is missing, another store's or of another purpose.
 */
export async function foreignUploads(db: Db, storeId: string, ids: string[], purposes: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const fit = new Set(
    (await db.select().from(uploads).where(inArray(uploads.id, ids)).all())
      .filter((row) => row.storeId === storeId && purposes.includes(row.purpose))
      .map((row) => row.id),
  );
  return new Set(ids.filter((id) => !fit.has(id)));
}

/**
 * Product images name uploads of this store with purpose `product-image`: a missing or unfit one is a form
 * error on its position, another store's is 403 TENANT_MISMATCH.
 */
export async function requireProductImages(db: Db, storeId: string, ids: string[]) {
  if (ids.length === 0) return;
  const rows = await db.select().from(uploads).where(inArray(uploads.id, ids)).all();
  const errors: FieldError[] = [];
  ids.forEach((id, i) => {
    const row = rows.find((r) => r.id === id);
    if (row && row.storeId !== storeId) throw fail(403, 'TENANT_MISMATCH', { field: `images.${i}`, uploadId: id });
    if (!row) errors.push({ field: `images.${i}`, code: 'UPLOAD_NOT_FOUND', message: '업로드된 파일을 찾을 수 없습니다.' });
    else if (row.purpose !== 'product-image')
      errors.push({ field: `images.${i}`, code: 'WRONG_PURPOSE', message: 'purpose가 product-image인 업로드만 상품 이미지로 쓸 수 있습니다.' });
    if (ids.indexOf(id) !== i) errors.push({ field: `images.${i}`, code: 'DUPLICATE', message: '같은 이미지가 두 번 들어 있습니다.' });
  });
  if (errors.length) throw validationFailed(errors);
}
