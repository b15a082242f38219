import autocannon from 'autocannon';
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');

/** Runs a process that prints one JSON line when ready (svc dev --json, bare-h3.ts); returns it and the line. */
export async function startJsonReady(command: string, args: string[], env: Record<string, string> = {}) {
  const child = execa(command, args, { cwd: root, env, stdout: 'pipe', stderr: 'inherit', reject: false }) as ResultPromise;
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const nl = buffer.indexOf('\n');
      if (nl >= 0) resolve(buffer.slice(0, nl));
    });
    void child.then((result) => reject(new Error(`${command} ${args.join(' ')} exited ${result.exitCode} before ready`)));
  });
  return { child, ready: JSON.parse(line) };
}

export const startBareH3 = () => startJsonReady('node', ['--import', 'tsx', 'test/bench/bare-h3.ts']);

export const startSvcDev = (extra: string[] = []) =>
  startJsonReady('node', [
    '--no-node-snapshot',
    'bin/run.js',
    'dev',
    '--port',
    '0',
    '--json',
    '--data-dir',
    mkdtempSync(join(tmpdir(), 'svc-bench-')),
    ...extra,
  ]);

/** Requests per second of one target (GET unless a method and JSON body are given): 50 connections, the load generator in this process. */
export async function rps(url: string, headers: Record<string, string> = {}, seconds = 4, request: { method?: 'POST'; body?: unknown } = {}): Promise<number> {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const result = await autocannon({
    url,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    method: request.method ?? 'GET',
    body,
    connections: 50,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export type Call = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<any>;

/** A caller of one `svc dev`'s API answering the envelope's `data`; any refusal throws (a bench must not measure errors). */
export function apiCaller(base: string): Call {
  return async (method, path, headers, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (!json.meta?.isSuccess) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.error)}`);
    return json.data;
  };
}

/** The seeded owner's headers for the administration API of a started `svc dev`. */
export const ownerHeaders = (ready: { ownerToken: string; storeId: string }) => ({
  authorization: `Bearer ${ready.ownerToken}`,
  'x-store-id': ready.storeId,
  'content-type': 'application/json',
});

/** Sandbox pg_one connected and enabled unless the store can take payments already. */
export async function ensureSandboxCheckout(call: Call, ready: { ownerToken: string; storeId: string }) {
  const store = await call('GET', '/storefront/v1/store', { 'x-store-id': ready.storeId });
  if (store.checkoutAvailable) return;
  const admin = ownerHeaders(ready);
  await call('PUT', '/v1/store/payment-providers/pg_one', admin, {
    environment: 'TEST',
    clientKey: 'test_ck_svcBenchSandbox0000001',
    secretKey: 'test_sk_svcBenchSandbox0000001',
  });
  await call('PATCH', '/v1/store/payment-providers/pg_one', admin, { enabled: true });
}
