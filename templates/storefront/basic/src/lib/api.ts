/**
 * The buyer API (`/storefront/v1`) as both sides call it: the server bundle through the sandbox's `fetch`
 * (which reaches only this API) and the browser through its own. Only the subset of `fetch` both share is
 * used: method, headers, a string body, `ok`/`status`/`headers.get`/`text`.
 */

import type { components } from '../svc-api.js';

/** A rejected field of a request (`error.fieldErrors` of the envelope). */
export type FieldError = components['schemas']['FieldError'];

export class BuyerApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly fieldErrors: FieldError[] = [], readonly details: Record<string, unknown> = {}) {
    super(message);
  }
}

export interface BuyerApiOptions {
  /** e.g. `http://127.0.0.1:8787/storefront/v1` (no trailing slash needed). */
  baseUrl: string;
  /** Sent as `X-Store-Id` on every call: the store this site sells for. */
  storeId: string;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Repeating a request with the same key returns the first result (payment starts). */
  idempotencyKey?: string;
}

export type BuyerApi = <T>(method: string, path: string, options?: CallOptions) => Promise<{ data: T; headers: { get(name: string): string | null } }>;

export function buyerApi({ baseUrl, storeId }: BuyerApiOptions): BuyerApi {
  const base = baseUrl.replace(/\/+$/, '');
  return async <T>(method: string, path: string, options: CallOptions = {}) => {
    // In the browser, the collector's visit headers let the service record cart adds and checkouts (spec 02 §5).
    const visit = (globalThis as { svc?: { visitHeaders?(): Record<string, string> } }).svc?.visitHeaders?.() ?? {};
    const headers: Record<string, string> = { accept: 'application/json', 'x-store-id': storeId, ...visit, ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const init: { method: string; headers: Record<string, string>; body?: string } = { method, headers };
    if (options.body !== undefined) init.body = JSON.stringify(options.body);
    const response = await fetch(`${base}${path}`, init);
    const text = await response.text();
    let envelope: { data?: T; error?: { code: string; message: string; fieldErrors?: FieldError[]; details?: Record<string, unknown> } | null } = {};
    try {
      envelope = text ? JSON.parse(text) : {};
    } catch {
      // Not an envelope (a proxy's error page): reported below by status.
    }
    if (!response.ok || envelope.error) {
      const e = envelope.error;
      throw new BuyerApiError(response.status, e?.code ?? 'HTTP_ERROR', e?.message ?? `요청이 실패했습니다 (${response.status}).`, e?.fieldErrors ?? [], e?.details ?? {});
    }
    return { data: envelope.data as T, headers: response.headers };
  };
}

/** Idempotency keys without `crypto` (the server sandbox has none): unique enough for one buyer's retries. */
export const newKey = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
