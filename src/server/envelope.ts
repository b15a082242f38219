import { randomBytes } from 'node:crypto';
import { ApiError } from './errors.js';
import { errorMessage } from './messages.js';

export const newTraceId = () => randomBytes(8).toString('hex');

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'content-language': 'ko' };

/** The envelope of spec 01 §2.1 around a success. */
export function successResponse(status: number, data: unknown, code = 'OK', headers?: Record<string, string>): Response {
  const body = { meta: { status, code, message: errorMessage(code, status), isSuccess: true }, data: data ?? null, error: null };
  return new Response(JSON.stringify(body), { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS });
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

export function errorResponse(err: ApiError, traceId: string, docsBase: string): Response {
  return new Response(JSON.stringify(errorEnvelope(err, traceId, docsBase)), {
    status: err.status,
    headers: { ...JSON_HEADERS, 'x-trace-id': traceId },
  });
}

/** Anything that is not an ApiError is a bug: it is logged with its trace id and answered without internals. */
export function toApiError(error: unknown, traceId: string): ApiError {
  if (error instanceof ApiError) return error;
  console.error(`[svc] unhandled error (trace ${traceId}):`, error);
  return new ApiError(500, 'INTERNAL_ERROR');
}
