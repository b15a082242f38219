import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { mkdirSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { H3 } from 'h3';
import { newId } from '../../db/ids.js';
import { errorResponse, newTraceId } from '../../server/envelope.js';
import { fail, validationFailed, type FieldError } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation, reply } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { roleAllows, tokenAllows } from '../accounts/scopes.js';
import { uploads } from './schema.js';
import { contentDisposition, contentMatchesType, presentUpload, PURPOSES, uploadSchema, uploadsDir } from './service.js';

defineMessages({ UPLOAD_NOT_FOUND: '파일을 찾을 수 없습니다.' });

const FORM_FIELDS = new Set(['file', 'purpose']);
const MAX_BYTES = Math.max(...Object.values(PURPOSES).map((p) => p.maxBytes));

/** The form as the OpenAPI document shows it; the handler checks it field by field. */
const uploadForm = z.object({
  file: z.file().meta({
    description: `The file; what each purpose takes: ${Object.entries(PURPOSES).map(([name, p]) => `${name} ${p.types.source} up to ${p.maxBytes} bytes`).join('; ')}.`,
  }),
  purpose: z.enum(Object.keys(PURPOSES) as [string, ...string[]]),
}).strict();

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
      const errors: FieldError[] = [];
      for (const key of new Set(form.keys())) {
        if (!FORM_FIELDS.has(key)) errors.push({ field: key, code: 'UNKNOWN_FIELD', message: '알 수 없는 필드입니다. 이 필드는 받지 않습니다.' });
        else if (form.getAll(key).length > 1) errors.push({ field: key, code: 'REPEATED', message: '한 번만 보낼 수 있습니다.' });
      }
      const purposeName = form.get('purpose');
      const file = form.get('file');
      const purpose = typeof purposeName === 'string' ? PURPOSES[purposeName] : undefined;
      if (!purpose) errors.push({ field: 'purpose', code: purposeName === null ? 'REQUIRED' : 'INVALID_VALUE', message: `허용 값: ${Object.keys(PURPOSES).join(', ')}` });
      if (!(file instanceof File)) errors.push({ field: 'file', code: 'REQUIRED', message: '파일이 필요합니다.' });
      else if (purpose && !purpose.types.test(file.type)) errors.push({ field: 'file', code: 'UNSUPPORTED_TYPE', message: `이 용도에 받지 않는 형식입니다 (${file.type || '알 수 없음'}).` });
      else if (purpose && file.size > purpose.maxBytes) errors.push({ field: 'file', code: 'TOO_LARGE', message: `${purpose.maxBytes} 바이트 이하여야 합니다.` });
      else if (file.size === 0) errors.push({ field: 'file', code: 'EMPTY', message: '빈 파일입니다.' });
      if (errors.length) throw validationFailed(errors);
      const f = file as File;
      const bytes = new Uint8Array(await f.arrayBuffer());
      if (!contentMatchesType(f.type, bytes)) throw validationFailed([{ field: 'file', code: 'CONTENT_TYPE_MISMATCH', message: `파일 내용이 ${f.type} 형식이 아닙니다.` }]);
      // The purpose decides the permission: product images need product:rw, flow attachments flow:rw.
      if (!roleAllows(ctx.store.role, purpose!.scope) || !tokenAllows(ctx.principal.scopes, purpose!.scope)) throw fail(403, 'INSUFFICIENT_ROLE', { requiredScope: purpose!.scope });

      // Cut by characters, not UTF-16 units: half a surrogate pair is no name.
      const filename = [...f.name].slice(0, 200).join('') || 'file';
      const row = { id: newId('upl', ctx.now), storeId: ctx.store.id, purpose: purposeName as string, filename, contentType: f.type, size: f.size, createdAt: ctx.now };
      const dir = uploadsDir(ctx.services);
      mkdirSync(dir, { recursive: true });
      const path = join(dir, row.id);
      await writeFile(path, bytes);
      try {
        ctx.db.insert(uploads).values(row).run();
      } catch (error) {
        await rm(path, { force: true });
        throw error;
      }
      return reply(201, presentUpload(ctx.services.config.origin, row));
    },
  }),
];

/** Uploaded files are public by their unguessable id (product images appear on storefronts), never listable. */
export function mountFiles(app: H3, services: Services) {
  app.get('/files/:uploadId', async (event) => {
    const uploadId = event.context.params?.uploadId ?? '';
    const row = services.db.select().from(uploads).where(eq(uploads.id, uploadId)).get();
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
