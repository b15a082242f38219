import autocannon from 'autocannon';
import { execa, type ResultPromise } from 'execa';
import { execSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

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

/**
 * `svc dev` started as `npx svc dev` starts it: `node bin/run.js`, no Node flags. isolated-vm needs
 * --no-node-snapshot only in the process that creates isolates, the app runtime worker, which
 * src/runtime-host/host.ts forks with it; in the service's own process the flag only costs Node's bootstrap
 * snapshot (~110 ms of CPU per start, about twice `node -e 0`).
 */
export const startSvcDev = (extra: string[] = [], dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'))) =>
  startJsonReady('node', ['bin/run.js', 'dev', '--port', '0', '--json', '--data-dir', dataDir, ...extra]);

/** Requests per second of one target (GET unless a method and JSON body are given): 50 connections, the load generator in this process. */
export async function rps(
  url: string,
  headers: Record<string, string> = {},
  duration = 4,
  request: { method?: 'POST'; body?: unknown } = {},
  counted: (requests: number) => void = () => {},
): Promise<number> {
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  const result = await autocannon({
    url,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    method: request.method ?? 'GET',
    body,
    connections: 50,
    duration: quick ? Math.min(duration, 1) : duration,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  counted(result.requests.total);
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

/** `npm run bench -- --quick` (SVC_BENCH_QUICK=1): shorter runs, for checking that a bench works rather than for its figures. */
export const quick = process.env.SVC_BENCH_QUICK === '1';

/** Seconds of a timed run: a quarter of them (at least one) in quick mode. */
export const seconds = (n: number) => (quick ? Math.max(1, Math.round(n / 4)) : n);

/** Repetitions of a measurement: one in quick mode. */
export const rounds = (n: number) => (quick ? 1 : n);

const clockTicks = (() => {
  try {
    return Number(execSync('getconf CLK_TCK').toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process and its descendants (the app runtime's worker, site renderers), as /proc lists them. */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (const task of safeReaddir(`/proc/${pid}/task`)) {
    const children = safeRead(`/proc/${pid}/task/${task}/children`).trim();
    if (children) for (const child of children.split(/\s+/)) tree.push(...processTree(Number(child)));
  }
  return tree;
}

const safeRead = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the process ended meanwhile
  }
};
const safeReaddir = (dir: string) => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

/**
 * CPU time (user + system, µs) a process and its descendants used so far; `process.cpuUsage()` for this
 * process. CPU time counts the work a figure costs whatever else the machine runs, where throughput drops
 * with every other load on its two cores.
 */
export function cpuMicros(pid: number = process.pid): number {
  if (pid === process.pid) {
    const used = process.cpuUsage();
    return used.user + used.system;
  }
  return treeCpuMicros(pid);
}

/** CPU time (µs) of a process and all its descendants, this process included when it is `pid`. */
export function treeCpuMicros(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th of them.
    const stat = safeRead(`/proc/${p}/stat`);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.length > 12) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1e6) / clockTicks;
}

/** Runs `work` (which does `operations()` operations) and answers its result and the CPU µs per operation `pid` spent on it. */
export async function withCpu<T>(pid: number, work: () => Promise<T>, operations: (result: T) => number) {
  const c0 = cpuMicros(pid);
  const result = await work();
  return { result, cpuPerOp: (cpuMicros(pid) - c0) / Math.max(1, operations(result)) };
}

/** Requests per second of one target (as `rps`) and the CPU µs per request of the process `pid` serving it. */
export async function rpsWithCpu(
  pid: number,
  url: string,
  headers: Record<string, string> = {},
  duration = seconds(4),
  request: { method?: 'POST'; body?: unknown } = {},
) {
  let requests = 0;
  const { result, cpuPerOp } = await withCpu(
    pid,
    () => rps(url, headers, duration, request, (n) => (requests = n)),
    () => requests,
  );
  return { rps: result, cpuPerOp };
}

/** The bare-H3 baseline measured alone: its req/s and CPU µs per request. */
export const bareRun = (bare: { child: ResultPromise; ready: { url: string } }, duration = seconds(4)) =>
  rpsWithCpu(bare.child.pid!, `${bare.ready.url}/hello`, {}, duration);

/** One measured figure, as `npm run bench -- --json FILE` writes it and `--check` compares it with test/bench/budgets.json. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** value ÷ the baseline's figure of the same run (bare H3, `node -e 0`, SQLite), where there is one. */
  ratio?: number;
  baseline?: string;
}

/** The bench a figure belongs to: the file's name (catalog for test/bench/catalog.ts). */
const benchName = basename(process.argv[1] ?? 'bench').replace(/\.ts$/, '');

/** Records a figure for `npm run bench` (a JSON line in the file SVC_BENCH_FIGURES names; nothing when run alone). */
export function figure(f: Figure) {
  const file = process.env.SVC_BENCH_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify({ bench: benchName, ...f })}\n`);
}

/** Prints and records a CPU-per-operation figure beside its throughput line. */
export function cpuFigure(name: string, microseconds: number, baseline?: { name: string; microseconds: number }) {
  const ratio = baseline ? microseconds / baseline.microseconds : undefined;
  console.log(
    `  service CPU per ${name}: ${microseconds.toFixed(0)} µs${baseline ? ` (${baseline.name}: ${baseline.microseconds.toFixed(0)} µs → ${ratio!.toFixed(1)}×)` : ''}`,
  );
  figure({ name: `cpu per ${name}`, value: microseconds, unit: 'µs', ratio, baseline: baseline?.name });
}
