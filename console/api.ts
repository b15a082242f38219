/**
 * The public API, typed from GET /v1/openapi.json (console/openapi.d.ts, `npm run console:types`) through
 * openapi-fetch. Every call carries the access token and the chosen store; a 401 refreshes once and retries.
 */
import createClient from 'openapi-fetch';
import type { paths } from './openapi.js';
import { accessToken, refresh, startSignIn } from './auth.js';

let currentStoreId: string | null = null;
export const setApiStore = (storeId: string | null) => (currentStoreId = storeId);
export const apiStore = () => currentStoreId;

/** An error envelope's `error` (spec 01 §1): the code decides, the message is for people. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

async function authorizedFetch(input: Request): Promise<Response> {
  const attempt = async (request: Request) => {
    const token = await accessToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    if (currentStoreId && !request.headers.has('x-store-id')) request.headers.set('x-store-id', currentStoreId);
    return fetch(request);
  };
  const retry = input.clone();
  const res = await attempt(input);
  if (res.status !== 401) return res;
  if (await refresh()) return attempt(retry);
  void startSignIn();
  return res;
}

export const api = createClient<paths>({ baseUrl: location.origin, fetch: authorizedFetch });

/** An envelope's `data`, or its error thrown as ApiFailure. */
export async function data<T>(call: Promise<{ data?: { data: T }; error?: unknown; response: Response }>): Promise<T> {
  const { data: body, error, response } = await call;
  if (body && response.ok) return body.data;
  const e = (error as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
  throw new ApiFailure(response.status, e?.code ?? `HTTP_${response.status}`, e?.message ?? response.statusText, e?.details);
}

/** Untyped for the few calls whose path is built at run time (a flow action's key is in the path anyway). */
export async function raw<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const request = new Request(`${location.origin}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const res = await authorizedFetch(request);
  const json = await res.json().catch(() => null);
  if (res.ok && json) return json.data as T;
  throw new ApiFailure(res.status, json?.error?.code ?? `HTTP_${res.status}`, json?.error?.message ?? res.statusText, json?.error?.details);
}

export const idempotencyKey = () => crypto.randomUUID();
