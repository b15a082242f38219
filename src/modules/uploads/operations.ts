import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { H3 } from 'h3';
import { transaction } from '../../db/client.js';
import { errorResponse, newTraceId } from '../../server/envelope.js';
import { fail, validationFailed, type FieldError } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation, reply, type Ctx } from '../../server/registry.js';
import { reserveAttempt } from '../../server/throttle.js';
import { clientAddress } from '../accounts/index.js';
import type { Services } from '../../server/services.js';
import { roleAllows, tokenAllows } from '../../kernel/scopes.js';
import { uploads } from './schema.js';
import {
  contentDisposition,
  contentMatchesType,
  ORDER_INPUT,
  ORDER_INPUT_PURPOSE,
  presentUpload,
  PURPOSES,
  storeUpload,
  uploadSchema,
  uploadsDir,
  type UploadPurpose,
} from './service.js';

defineMessages({ UPLOAD_NOT_FOUND: '파일을 찾을 수 없습니다.', UPLOAD_THROTTLED: '업로드가 너무 많습니다. details.retryAfterSeconds 후에 다시 시도하세요.' });

const SELLER_FIELDS = new Set(['file', 'purpose']);
const BUYER_FIELDS = new Set(['file']);
const MAX_BYTES = Math.max(...Object.values(PURPOSES).map((p) => p.maxBytes));
/** Buyer uploads are anonymous for guests, so each client address gets a budget per store. */
const ORDER_INPUT_UPLOADS = { limit: 60, windowMs: 60 * 60 * 1000 };

/** The form as the OpenAPI document shows it; the handler checks it field by field. */
const uploadForm = z
  .object({
    file: z.file().meta({
      description: `The file; what each purpose takes: ${Object.entries(PURPOSES)
        .map(([name, p]) => `${name} ${p.types.source} up to ${p.maxBytes} bytes`)
        .join('; ')}.`,
    }),
    purpose: z.enum(Object.keys(PURPOSES) as [string, ...string[]]),
  })
  .strict();
const orderInputForm = z
  .object({
    file: z.file().meta({ description: `A picture (${ORDER_INPUT_PURPOSE.types.source}) up to ${ORDER_INPUT_PURPOSE.maxBytes} bytes.` }),
  })
  .strict();

/** Fields the form may not carry: unknown ones and repeated ones. */
function formProblems(form: FormData, fields: Set<string>): FieldError[] {
  const errors: FieldError[] = [];
  for (const key of new Set(form.keys())) {
    if (!fields.has(key)) errors.push({ field: key, code: 'UNKNOWN_FIELD', message: '알 수 없는 필드입니다. 이 필드는 받지 않습니다.' });
    else if (form.getAll(key).length > 1) errors.push({ field: key, code: 'REPEATED', message: '한 번만 보낼 수 있습니다.' });
  }
  return errors;
}

function fileProblems(file: FormDataEntryValue | null, purpose: UploadPurpose | undefined): FieldError[] {
  if (!(file instanceof File)) return [{ field: 'file', code: 'REQUIRED', message: '파일이 필요합니다.' }];
  if (purpose && !purpose.types.test(file.type))
    return [{ field: 'file', code: 'UNSUPPORTED_TYPE', message: `이 용도에 받지 않는 형식입니다 (${file.type || '알 수 없음'}).` }];
  if (purpose && file.size > purpose.maxBytes) return [{ field: 'file', code: 'TOO_LARGE', message: `${purpose.maxBytes} 바이트 이하여야 합니다.` }];
  if (file.size === 0) return [{ field: 'file', code: 'EMPTY', message: '빈 파일입니다.' }];
  return [];
}

/** Checks the bytes against the declared type, then stores the file and its row. */
async function saveUpload(ctx: Ctx, storeId: string, purpose: string, file: File) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!contentMatchesType(file.type, bytes))
    throw validationFailed([{ field: 'file', code: 'CONTENT_TYPE_MISMATCH', message: `파일 내용이 ${file.type} 형식이 아닙니다.` }]);
  // Cut by characters, not UTF-16 units: half a surrogate pair is no name.
  const filename = [...file.name].slice(0, 200).join('') || 'file';
  const row = await storeUpload(ctx.services, ctx.db, ctx.now, { storeId, purpose, filename, contentType: file.type, bytes });
  return reply(201, presentUpload(ctx.services.config.origin, row));
}

export const uploadOperations = [
  defineOperation({
    operationId: 'createUpload',
    method: 'POST',
    path: '/v1/uploads',
    summary: 'Upload a file (multipart: file, purpose = product-image | flow-attachment); answers its id and URL',
    tag: 'Uploads',
    auth: 'store',
    agent: 'direct',
    status: 201,
    async: true,
    // Room for the largest file plus the multipart framing.
    multipart: { maxBytes: MAX_BYTES + 64 * 1024, fields: uploadForm },
    response: uploadSchema,
    target: () => ({ type: 'UPLOAD', id: null }),
    handler: async (ctx) => {
      const form = ctx.form!;
      const purposeName = form.get('purpose');
      const file = form.get('file');
      const purpose = typeof purposeName === 'string' ? PURPOSES[purposeName] : undefined;
      const errors = formProblems(form, SELLER_FIELDS);
      if (!purpose)
        errors.push({ field: 'purpose', code: purposeName === null ? 'REQUIRED' : 'INVALID_VALUE', message: `허용 값: ${Object.keys(PURPOSES).join(', ')}` });
      errors.push(...fileProblems(file, purpose));
      if (errors.length) throw validationFailed(errors);
      // The purpose decides the permission: product images need product:rw, flow attachments flow:rw.
      if (!roleAllows(ctx.store.role, purpose!.scope) || !tokenAllows(ctx.principal.scopes, purpose!.scope))
        throw fail(403, 'INSUFFICIENT_ROLE', { requiredScope: purpose!.scope });
      return saveUpload(ctx, ctx.store.id, purposeName as string, file as File);
    },
  }),
  defineOperation({
    operationId: 'storefrontUploadOrderInput',
    method: 'POST',
    path: '/storefront/v1/uploads/order-inputs',
    summary: 'Upload a picture for an image input of a flow action (multipart: file); pass its uploadId as the input value',
    tag: 'Storefront orders',
    auth: 'buyer',
    status: 201,
    async: true,
    multipart: { maxBytes: ORDER_INPUT_PURPOSE.maxBytes + 64 * 1024, fields: orderInputForm },
    response: uploadSchema,
    errors: { 429: ['UPLOAD_THROTTLED'] },
    handler: async (ctx) => {
      const form = ctx.form!;
      const file = form.get('file');
      const errors = [...formProblems(form, BUYER_FIELDS), ...fileProblems(file, ORDER_INPUT_PURPOSE)];
      if (errors.length) throw validationFailed(errors);
      const uploader = ctx.buyer.customer ? `customer:${ctx.buyer.customer.id}` : `address:${clientAddress(ctx.event, ctx.services)}`;
      await transaction(ctx.db, () => reserveAttempt(ctx.db, `order-input:${ctx.buyer.storeId}:${uploader}`, ORDER_INPUT_UPLOADS, ctx.now, 'UPLOAD_THROTTLED'));
      return saveUpload(ctx, ctx.buyer.storeId, ORDER_INPUT, file as File);
    },
  }),
];

/** Uploaded files are public by their unguessable id (product images appear on storefronts), never listable. */
export function mountFiles(app: H3, services: Services) {
  app.get('/files/:uploadId', async (event) => {
    const uploadId = event.context.params?.uploadId ?? '';
    const row = await services.db.select().from(uploads).where(eq(uploads.id, uploadId)).get();
    const bytes = row ? await readFile(join(uploadsDir(services), row.id)).catch(() => null) : null;
    if (!row || !bytes) return errorResponse(fail(404, 'UPLOAD_NOT_FOUND'), newTraceId(), `${services.config.origin}/docs/errors`);
    return new Response(bytes, {
      headers: {
        'content-type': row.contentType,
        'content-length': String(bytes.length),
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'content-disposition': contentDisposition(row.filename),
      },
    });
  });
}
