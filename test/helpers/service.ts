import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, openPostgresDatabase } from '../../src/db/client.js';
import { bindServices } from '../../src/server/hooks.js';
import { startService, type StartOptions } from '../../src/server/main.js';
import { modules, operations } from '../../src/server/modules.js';
import { systemClock } from '../../src/db/clock.js';
import type { Services } from '../../src/server/services.js';
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';
import { createTestDatabase, onPostgres } from './postgres.js';

export interface ApiResponse<T = any> {
  status: number;
  body: { meta: { status: number; code: string; message: string; isSuccess: boolean }; data: T; error: any };
  headers: Headers;
  /** `body.data`, for brevity. */
  data: T;
}

export interface RequestOptions {
  token?: string | null;
  storeId?: string | null;
  body?: unknown;
  /** Sent as is (for malformed-body tests). */
  rawBody?: string;
  query?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
}

export type Api = <T = any>(method: string, path: string, options?: RequestOptions) => Promise<ApiResponse<T>>;

export function apiClient(baseUrl: string, defaults: { token?: string; storeId?: string } = {}): Api {
  return async (method, path, options = {}) => {
    const url = new URL(path, baseUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? defaults.token : options.token;
    const storeId = options.storeId === undefined ? defaults.storeId : options.storeId;
    if (token) headers.authorization = `Bearer ${token}`;
    if (storeId) headers['x-store-id'] = storeId;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { raw: text };
    }
    return { status: res.status, body: json, headers: res.headers, data: json?.data };
  };
}

export interface TestService {
  url: string;
  /** The HTTPS listener's port (started with `tls`), else null. */
  tlsPort: number | null;
  storeId: string;
  ownerToken: string;
  dataDir: string;
  /** Requests as the seeded owner in the seeded store unless told otherwise. */
  api: Api;
  services: Awaited<ReturnType<typeof startService>>['services'];
  /** Moves the manual clock and runs the jobs that came due. */
  advance(seconds: number): Promise<void>;
  close(): Promise<void>;
}

const testDatabases = new Map<string, string>();

/** The database of a (stopped) test service's data dir, opened directly, on either engine. */
/**
 * The service's database opened from the test process, with the modules bound to it the way the service binds
 * them (src/server/hooks.ts), so module code the test calls directly (emitEvent) announces as in the service.
 */
export async function openServiceDatabase(dataDir: string) {
  const url = testDatabases.get(dataDir);
  const database = url ? await openPostgresDatabase(url) : openDatabase(join(dataDir, 'svc.db'));
  // Listeners read only the database, the clock and the module list; the rest of a service is not needed here.
  bindServices({ db: database.db, clock: systemClock(), modules, operations } as unknown as Services);
  return database;
}

/** Everything the service's database holds at rest, as bytes: its files on SQLite, every row as text on PostgreSQL. */
export async function databaseAtRest(dataDir: string): Promise<Buffer> {
  const url = testDatabases.get(dataDir);
  if (!url)
    return Buffer.concat(
      ['svc.db', 'svc.db-wal']
        .map((f) => join(dataDir, f))
        .filter(existsSync)
        .map((f) => readFileSync(f)),
    );
  const database = await openPostgresDatabase(url);
  try {
    const client = database.db.$client;
    const tables = (await client.prepare("SELECT tablename FROM pg_tables WHERE schemaname = 'public'").pluck().all()) as string[];
    const rows = await Promise.all(tables.map(async (t) => ((await client.prepare(`SELECT t::text FROM "${t}" t`).pluck().all()) as string[]).join('\n')));
    return Buffer.from(rows.join('\n'));
  } finally {
    await database.close();
  }
}

/** A real service (HTTP on 127.0.0.1, random port, fresh data dir, manual clock by default). */
export async function startTestService(options: Partial<StartOptions> = {}): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-test-'));
  // On PostgreSQL (npm run test:pg) each data dir gets its own database, kept across a restart on that dir.
  let databaseUrl = options.databaseUrl;
  if (onPostgres && !databaseUrl) {
    databaseUrl = testDatabases.get(dataDir) ?? (await createTestDatabase());
    testDatabases.set(dataDir, databaseUrl);
  }
  const running = await startService({ port: 0, host: '127.0.0.1', mode: 'dev', clock: 'manual', dataDir, databaseUrl, ...options });
  const storeId = running.seeded?.storeId ?? '';
  const ownerToken = running.seeded?.ownerToken ?? '';
  const api = apiClient(running.url, { token: ownerToken, storeId });
  return {
    url: running.url,
    tlsPort: running.tlsPort,
    storeId,
    ownerToken,
    dataDir,
    api,
    services: running.services,
    async advance(seconds) {
      const res = await api('POST', '/_dev/v1/clock/advance', { body: { seconds } });
      if (res.status !== 200) throw new Error(`clock advance failed: ${JSON.stringify(res.body)}`);
    },
    async close() {
      await running.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
/** A fresh account with its own store; returns a store-platform login token. */
export async function newSellerWithStore(svc: TestService, label = 'seller') {
  const n = `${Date.now().toString(36)}${(counter++).toString(36)}`;
  const email = `${label}-${n}@example.com`;
  const password = 'password-1234';
  const api = apiClient(svc.url);
  const signup = await api('POST', '/auth/v1/signup', { body: { email, password, name: label } });
  if (signup.status !== 201) throw new Error(`signup failed: ${JSON.stringify(signup.body)}`);
  const token = await login(svc, email, password);
  const store = await api('POST', '/auth/v1/stores', { token, body: { name: `${label} store`, code: `${label}-${n}`.slice(0, 30) } });
  if (store.status !== 201) throw new Error(`store creation failed: ${JSON.stringify(store.body)}`);
  return {
    email,
    password,
    token,
    storeId: store.data.storeId as string,
    userId: signup.data.userId as string,
    api: apiClient(svc.url, { token, storeId: store.data.storeId }),
  };
}

export async function login(svc: TestService, email = SEED_EMAIL, password = SEED_PASSWORD): Promise<string> {
  const res = await apiClient(svc.url)('POST', '/auth/v1/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return res.data.accessToken;
}

/** An access token of the given login (which must be at most 10 minutes old). */
export async function createAccessToken(svc: TestService, loginToken: string, input: Record<string, unknown>): Promise<string> {
  const res = await apiClient(svc.url)('POST', '/auth/v1/access-tokens', { token: loginToken, body: { name: 'test', storeScope: { all: true }, ...input } });
  if (res.status !== 201) throw new Error(`access token creation failed: ${JSON.stringify(res.body)}`);
  return res.data.token;
}
