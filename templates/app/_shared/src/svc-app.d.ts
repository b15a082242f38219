// Globals of the svc app sandbox, for editors and tsc (svc app build does not need it).

/** What every function receives as its second argument (and as the global `context`). */
interface SvcContext {
  storeId: string;
  installationId: string;
  app: { appId: string; handle: string; version: number };
  /** The seller's settings, as declared under `settings` in manifest.json (secrets unmasked here). */
  settings: Record<string, string | number | boolean>;
  /** The admin API as this installation (consented scopes only); the global `api` uses it for you. */
  api: { baseUrl: string; token: string; tokenExpiresAt: string };
}

declare const context: SvcContext;

/** The installation's own key-value storage: 1,000 keys and 1 MB in total. */
declare const storage: {
  get<T = unknown>(key: string): Promise<T | null>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{ contents: { key: string; bytes: number; updatedAt: string }[]; nextCursor: string | null }>;
};

/** Calls the admin API (`/v1/...`) as the installation; `data` is the envelope's data. */
declare function api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; ok: boolean; data: T | null; error: { code: string; message: string } | null }>;

/** Reaches only the hosts listed in manifest.json `network.hosts`, over https. */
declare function fetch(url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }): Promise<{
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  json<T = any>(): Promise<T>;
}>;

declare const console: { log(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };
