import type { Readable } from 'node:stream';
import type { H3Event } from 'h3';
import { ApiError, fail } from './errors.js';

/** Deepest JSON nesting any body may have: past it, later recursion (validation, storage, the sandbox) could overflow. */
export const MAX_JSON_DEPTH = 64;

/**
 * A request body, read at most `maxBytes` far: a declared `Content-Length` over the limit is refused before
 * a byte is read, and a chunked body is counted while it streams and cut off at the limit (413 either way),
 * so no route ever holds more than its limit in memory.
 */
export async function readBodyBytes(event: H3Event, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const length = event.req.headers.get('content-length');
  const declared = Number(length ?? 0);
  if (declared > maxBytes) throw fail(413, 'PAYLOAD_TOO_LARGE', { maxBytes });
  const node = event.runtime?.node?.req;
  if (length !== null && node && !node.readableEnded && !node.destroyed) return readDeclared(node);
  const stream = event.req.body;
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw fail(413, 'PAYLOAD_TOO_LARGE', { maxBytes });
    }
    chunks.push(value as Uint8Array<ArrayBuffer>);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * A body of a declared length (within the limit, which Node's parser then holds it to) read from Node's
 * request itself: the web stream srvx would wrap around it costs about a tenth of a small request's CPU.
 */
function readDeclared(req: Readable): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const done = (error?: unknown) => {
      req.off('data', onData).off('end', onEnd).off('error', done).off('close', onClose);
      if (error) return reject(error);
      resolve((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) as Uint8Array<ArrayBuffer>);
    };
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onEnd = () => done();
    // The client went away before the whole body came: nobody is left to answer.
    const onClose = () => done(new Error('request body aborted'));
    req.on('data', onData).on('end', onEnd).on('error', done).on('close', onClose);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The body as text: bytes that are not UTF-8 are refused, never replaced by U+FFFD and stored. */
export async function readBodyText(event: H3Event, maxBytes: number): Promise<string> {
  const bytes = await readBodyBytes(event, maxBytes);
  if (bytes.byteLength === 0) return '';
  try {
    return utf8.decode(bytes);
  } catch {
    throw new ApiError(400, 'VALIDATION_FAILED', null, [{ field: '', code: 'INVALID_UTF8', message: '본문이 올바른 UTF-8이 아닙니다.' }]);
  }
}

/**
 * A body that claims to be JSON must say so: a cross-site form or `text/plain` request must never reach a
 * handler as JSON (415). An empty body needs no type.
 */
export function requireJsonContentType(event: H3Event, text: string) {
  if (text === '') return;
  const type = (event.req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(type)) {
    throw fail(415, 'UNSUPPORTED_MEDIA_TYPE', { expected: 'application/json', received: type || null });
  }
}

export const malformedJson = () =>
  new ApiError(400, 'VALIDATION_FAILED', null, [{ field: '', code: 'MALFORMED_JSON', message: '본문이 올바른 JSON이 아닙니다.' }]);

/** JSON text parsed with a nesting limit, checked before parsing so no deep value is ever built. */
export function parseJsonText(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (jsonDepth(text) > maxDepth) {
    throw new ApiError(400, 'VALIDATION_FAILED', null, [{ field: '', code: 'TOO_DEEP', message: `JSON은 ${maxDepth}단계까지 중첩할 수 있습니다.` }]);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw malformedJson();
  }
}

/** Deepest bracket nesting of JSON text, brackets inside strings not counted (one linear pass). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return deepest;
}

/** A JSON body in one call: size-limited, UTF-8, typed `application/json`, depth-limited; empty reads as `{}`. */
export async function readJsonBody(event: H3Event, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(event, maxBytes);
  requireJsonContentType(event, text);
  return text.trim() === '' ? {} : parseJsonText(text);
}
