import type { InvocationKind, LogLine, RuntimeError, RuntimeErrorCode, RuntimeLimits } from '../../runtime/protocol.js';

export type { InvocationKind, LogLine, RuntimeError, RuntimeErrorCode, RuntimeLimits };

export interface InvokeRequest {
  installationId: string;
  /** Concurrency is limited per app (spec 02 §8: 20 for the whole app). */
  appId: string;
  /** Identifies the bundle version; the code itself is cached by content hash. */
  bundleId: string;
  /** The esbuild output of `svc app build` (contract in runtime/README.md). */
  bundleCode: string;
  /** Source map of the bundle: APP_ERROR stacks then name the app's own files and lines. */
  sourceMap?: string;
  kind: InvocationKind;
  /** Key of the function in its group: `__app.tools[name]`, `__app.routes[name]`, … */
  name: string;
  /** JSON value, the function's first argument. */
  input: unknown;
  /** JSON value: the service context, the function's second argument and the global `context`. */
  context: unknown;
  limits?: Partial<RuntimeLimits>;
}

export type InvokeResult =
  { ok: true; result: unknown; logs: LogLine[]; durationMs: number } | { ok: false; error: RuntimeError; logs: LogLine[]; durationMs: number };

export interface FetchRequest {
  url: string;
  method: string;
  headers: [string, string][];
  body: string | null;
}

export interface FetchResponse {
  status: number;
  statusText: string;
  url: string;
  /** Lower-case names. */
  headers: [string, string][];
  /** Decoded as UTF-8. */
  body: string;
}

export interface StorageListOptions {
  prefix?: string;
  cursor?: string;
  limit?: number;
}

/** `/v1/app/storage` semantics for one installation; quota errors are thrown as RuntimeCallbackError. */
export interface StorageCallbacks {
  /** null when the key is absent. */
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  /** true when the key existed. */
  delete(key: string): Promise<boolean>;
  /** Any JSON value; the store decides the page shape (e.g. `{ keys, nextCursor }`). */
  list(options: StorageListOptions): Promise<unknown>;
}

export interface ApiRequest {
  method: string;
  /** As the app wrote it, e.g. `/v1/orders?limit=5`; the callback resolves it and applies the scopes. */
  path: string;
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  /** The parsed response, normally the API envelope. */
  body: unknown;
}

/**
 * What a guest may do outside its isolate, performed by the server for one call. A missing callback makes
 * the guest's call reject with code `UNAVAILABLE`. Throw RuntimeCallbackError to give the guest a code
 * and message; any other error reaches the guest only as "<op> failed", so server internals stay here.
 */
export interface RuntimeCallbacks {
  fetch?: (request: FetchRequest) => Promise<FetchResponse>;
  storage?: StorageCallbacks;
  api?: (request: ApiRequest) => Promise<ApiResponse>;
}

/** An error whose code and message the guest may see (its promise rejects with an Error carrying `code`). */
export class RuntimeCallbackError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RuntimeCallbackError';
  }
}
