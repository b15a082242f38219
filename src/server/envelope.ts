import { gzipSync } from 'node:zlib';
import { FastResponse } from 'srvx/node';
import { newHex } from '../db/ids.js';
import { ApiError } from './errors.js';
import { errorMessage } from './messages.js';

export const newTraceId = () => newHex(8);

/** A response in the making: the serialized envelope, its status and extra headers. */
export interface Outgoing {
  status: number;
  body: string;
  /** `body` already encoded (a cached page): sent as is instead of encoding the string again. */
  bytes?: Uint8Array<ArrayBuffer>;
  /** The same body gzip-compressed, made once per cached page, for clients that accept it. */
  gzip?: () => Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-language': 'ko' };

/**
 * `data` a handler serialized already (a cached page): spliced into the envelope without a second
 * stringify, and encoded once per page instance (a 20 KB page costs more to encode than to look up).
 * Its gzip form is made on first demand and kept too: a product page shrinks about eightfold.
 */
export class RawJson {
  #encoded: { meta: string; bytes: Uint8Array<ArrayBuffer>; gzip?: Uint8Array<ArrayBuffer> } | null = null;
  constructor(readonly json: string) {}

  envelope(meta: string): Pick<Outgoing, 'body' | 'bytes' | 'gzip'> {
    const body = `{"meta":${meta},"data":${this.json},"error":null}`;
    if (this.#encoded?.meta !== meta) this.#encoded = { meta, bytes: Buffer.from(body) };
    const encoded = this.#encoded;
    return { body, bytes: encoded.bytes, gzip: () => (encoded.gzip ??= new Uint8Array(gzipSync(encoded.bytes))) };
  }
}

/** `meta` of a success, serialized once per status and code. */
const successMetas = new Map<string, string>();
function successMeta(status: number, code: string): string {
  const key = `${status} ${code}`;
  let meta = successMetas.get(key);
  if (meta === undefined) successMetas.set(key, (meta = JSON.stringify({ status, code, message: errorMessage(code, status), isSuccess: true })));
  return meta;
}

/** The envelope of spec 01 §2.1 around a success. */
export function successOutgoing(status: number, data: unknown, code = 'OK', headers?: Record<string, string>): Outgoing {
  const meta = successMeta(status, code);
  if (data instanceof RawJson) return { status, ...data.envelope(meta), headers };
  return { status, body: `{"meta":${meta},"data":${JSON.stringify(data ?? null)},"error":null}`, headers };
}

export function errorEnvelope(err: ApiError, traceId: string, docsBase: string) {
  return {
    meta: { status: err.status, code: err.code, message: err.message, isSuccess: false },
    data: null,
    error: {
      code: err.code,
      message: err.message,
      details: err.details ?? {},
      fieldErrors: err.fieldErrors,
      docs: `${docsBase}#${err.code}`,
      traceId,
    },
  };
}

export const errorOutgoing = (err: ApiError, traceId: string, docsBase: string): Outgoing => ({
  status: err.status,
  body: JSON.stringify(errorEnvelope(err, traceId, docsBase)),
  headers: { ...err.headers, 'x-trace-id': traceId },
});

/**
 * srvx's Node response: written straight to the socket with its headers taken as a plain object. A web
 * `Response` would cost a stream and an undici `Headers` per request (18% of a request in profiles), and
 * h3's HTTPResponse still builds the `Headers` (about 3 µs a response).
 */
export function toHttp(out: Outgoing, headers?: Record<string, string>, acceptsGzip = false): Response {
  if (!out.gzip) return new FastResponse(out.bytes ?? out.body, { status: out.status, headers: { ...JSON_HEADERS, ...out.headers, ...headers } });
  const encoding: Record<string, string> = acceptsGzip ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : { vary: 'accept-encoding' };
  return new FastResponse(acceptsGzip ? out.gzip() : (out.bytes ?? out.body), {
    status: out.status,
    headers: { ...JSON_HEADERS, ...out.headers, ...headers, ...encoding },
  });
}

/**
 * Whether `Accept-Encoding` allows `coding` (`gzip`, `br`): listed without q=0, or left to a `*` without
 * q=0 (`*, br;q=0` refuses br).
 */
export function acceptsEncoding(acceptEncoding: string | null, coding: string): boolean {
  if (!acceptEncoding) return false;
  const listed = acceptEncoding.split(',').map((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    return { name: name.trim(), refused: params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p)) };
  });
  const choice = listed.find((entry) => entry.name === coding) ?? listed.find((entry) => entry.name === '*');
  return choice !== undefined && !choice.refused;
}

/** Whether `Accept-Encoding` allows gzip. */
export const acceptsGzip = (acceptEncoding: string | null) => acceptsEncoding(acceptEncoding, 'gzip');

export const successResponse = (status: number, data: unknown, code = 'OK') => toHttp(successOutgoing(status, data, code));
export const errorResponse = (err: ApiError, traceId: string, docsBase: string) => toHttp(errorOutgoing(err, traceId, docsBase));

/** Anything that is not an ApiError is a bug: it is logged with its trace id and answered without internals. */
export function toApiError(error: unknown, traceId: string): ApiError {
  if (error instanceof ApiError) return error;
  console.error(`[svc] unhandled error (trace ${traceId}):`, error);
  return new ApiError(500, 'INTERNAL_ERROR');
}
