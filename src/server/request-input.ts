// What a request carries in, read and checked against its operation: query, JSON or multipart body, and the
// fingerprint an Idempotency-Key is bound to.
import { createHash } from 'node:crypto';
import type { H3Event } from 'h3';
import { parseJsonText, readBodyBytes } from './body.js';
import { fail, validationFailed } from './errors.js';
import type { Operation } from './module.js';
import { parseWith } from './validation.js';

const EMPTY = Object.freeze({});

export type Multipart = Awaited<ReturnType<typeof readMultipart>>;

/** A multipart body, size-checked, parsed, and digested so an Idempotency-Key covers the file too. */
export async function readMultipart(event: H3Event, maxBytes: number) {
  if (!(event.req.headers.get('content-type') ?? '').startsWith('multipart/form-data'))
    throw fail(415, 'UNSUPPORTED_MEDIA_TYPE', { expected: 'multipart/form-data' });
  const bytes = await readBodyBytes(event, maxBytes);
  try {
    const form = await new Response(bytes, { headers: { 'content-type': event.req.headers.get('content-type')! } }).formData();
    return { form, digest: createHash('sha256').update(bytes).digest('base64url') };
  } catch {
    throw validationFailed([{ field: '', code: 'MALFORMED_MULTIPART', message: 'multipart 본문을 읽을 수 없습니다.' }]);
  }
}

export function parseQuery(op: Operation, query: Record<string, string>) {
  if (op.query) return parseWith(op.query, query);
  const unknown = Object.keys(query);
  if (unknown.length) throw validationFailed(unknown.map((field) => ({ field, code: 'UNKNOWN_FIELD', message: '이 API는 이 파라미터를 받지 않습니다.' })));
  return EMPTY;
}

/** JSON bodies only; an empty body reads as `{}` so missing fields are named one by one. */
export function parseBody(op: Operation, raw: string) {
  if (op.method === 'GET') return undefined;
  const value = raw.trim() === '' ? {} : parseJsonText(raw);
  if (op.body) return parseWith(op.body, value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
  throw validationFailed([{ field: '', code: 'BODY_NOT_ALLOWED', message: '이 API는 요청 본문을 받지 않습니다.' }]);
}

export function requestFingerprint(op: Operation, event: H3Event, rawBody: string) {
  return createHash('sha256')
    .update(`${op.method} ${event.url.pathname}?${event.url.search}\n${event.req.headers.get('x-store-id') ?? ''}\n${rawBody}`)
    .digest('base64url');
}
