import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire, type SourceMap } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_WORKER_CONFIG,
  MAX_LOG_LINE_CHARS,
  MAX_LOG_LINES,
  type FromWorker,
  type HostOp,
  type RuntimeLimits,
  type ToWorker,
  type WorkerConfig,
  type WorkerFailure,
  type WorkerStats,
} from '../../runtime/protocol.js';
import { jsonDepth, MAX_JSON_DEPTH } from '../server/body.js';
import { appStack, parseSourceMap } from './stack.js';
import { codePath, packageRoot } from '../paths.js';
import { RuntimeCallbackError, type FetchResponse, type InvokeRequest, type InvokeResult, type RuntimeCallbacks, type RuntimeError } from './types.js';

export const DEFAULT_LIMITS: RuntimeLimits = { cpuMs: 1000, wallMs: 10_000, memoryMb: 64, resultBytes: 64 * 1024 };

export interface RuntimeHostOptions {
  /** Executions of one app at once; more wait their turn (spec 02 §8: 20). */
  maxConcurrentPerApp?: number;
  /** Warm isolates the worker keeps (one per installation): at most this many, holding at most `idleHeapMb`, none idle longer than `idleIsolateMs`. */
  maxIsolates?: number;
  idleHeapMb?: number;
  idleIsolateMs?: number;
  /** Resident memory past which the worker is replaced once its calls are done (new calls go to a new worker). */
  recycleRssMb?: number;
  /** Defaults of every call; a request's `limits` override them. */
  limits?: Partial<RuntimeLimits>;
  /** Errors of callbacks other than RuntimeCallbackError, which the guest sees only as "<op> failed". */
  onCallbackError?: (error: unknown, where: { op: HostOp; installationId: string }) => void;
}

/** How long past a call's wall limit the worker may stay silent before we presume it wedged and kill it. */
const WEDGED_GRACE_MS = 2000;
const READY_TIMEOUT_MS = 15_000;

/** Running from TypeScript sources (tests, tsx) the worker is `runtime/worker.ts` loaded through tsx; built, `dist/runtime/worker.js`. */
const fromSources = import.meta.url.endsWith('.ts');
const WORKER_PATH = codePath('runtime/worker.ts');

/**
 * isolated-vm needs --no-node-snapshot in any process that creates isolates. Compiled, the worker also runs
 * under Node's permission model: it may read only its own code, the package.json that types it and the
 * node_modules isolated-vm loads from, and may not spawn processes or workers — so code that escaped an
 * isolate into the worker's JavaScript still cannot read the data directory (database, keys). Node 24's
 * model does not cover the network; the worker has nothing to authenticate with there. From sources, tsx
 * needs to read the whole tree and spawn esbuild, so tests run without it.
 */
function workerExecArgv(): string[] {
  if (fromSources) return ['--no-node-snapshot', '--import', import.meta.resolve('tsx')];
  const require = createRequire(import.meta.url);
  const packageJson = join(packageRoot, 'package.json');
  // Both where isolated-vm really is (hoisted, global) and the path the worker resolves it by (links).
  const nodeModules = [dirname(dirname(require.resolve('isolated-vm/package.json'))), join(dirname(packageJson), 'node_modules')];
  return [
    '--no-node-snapshot',
    '--permission',
    '--allow-addons',
    `--allow-fs-read=${dirname(WORKER_PATH)}`,
    `--allow-fs-read=${packageJson}`,
    ...nodeModules.map((dir) => `--allow-fs-read=${dir}`),
    // node-gyp-build probes it to pick the prebuilt binary.
    '--allow-fs-read=/etc/alpine-release',
    '--disable-warning=SecurityWarning',
  ];
}

/** Arguments the guest bootstrap sends; checked again here because a compromised worker could send anything. */
const hostCallArgs = {
  fetch: z.object({
    url: z.string().max(8192),
    method: z.string().regex(/^[A-Z]{1,16}$/),
    headers: z.array(z.tuple([z.string().max(256), z.string().max(8192)])).max(100),
    body: z.string().nullable(),
  }),
  storage: z.discriminatedUnion('op', [
    z.object({ op: z.literal('get'), key: z.string() }),
    z.object({ op: z.literal('set'), key: z.string(), value: z.unknown().optional() }),
    z.object({ op: z.literal('delete'), key: z.string() }),
    z.object({
      op: z.literal('list'),
      options: z.object({ prefix: z.string().optional(), cursor: z.string().optional(), limit: z.number().int().optional() }),
    }),
  ]),
  api: z.object({ method: z.string().regex(/^[A-Z]{1,16}$/), path: z.string().max(8192), body: z.unknown().optional() }),
};

/** Console lines as the worker reports them: more, or longer, comes only from a broken worker, which is replaced. */
const workerLogs = z
  .array(z.object({ level: z.enum(['log', 'info', 'warn', 'error', 'debug']), message: z.string().max(MAX_LOG_LINE_CHARS), atMs: z.number() }))
  .max(MAX_LOG_LINES);

interface InFlight {
  id: number;
  request: InvokeRequest;
  callbacks: RuntimeCallbacks;
  message: Extract<ToWorker, { t: 'invoke' }>;
  code: string;
  timer: NodeJS.Timeout;
  /** The fetch callback refused a URL in this call: a FETCH_BLOCKED the guest rethrows is then believed. */
  fetchBlocked: boolean;
  resolve: (result: InvokeResult) => void;
}

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  /** Bundle hashes this worker has been sent; it asks again when its own cache dropped one. */
  bundles: Set<string>;
  inFlight: Map<number, InFlight>;
  exited: boolean;
  /** Past its memory ceiling: it gets no new calls and is stopped when its last one ends. */
  retiring: boolean;
}

interface Gate {
  active: number;
  waiting: { installationId: string; enter: (admitted: boolean) => void }[];
}

/** A fetch answer with its text apart: a buyer API page of JSON is then not escaped into JSON again. */
function fetchReply({ body, ...rest }: FetchResponse) {
  return { ok: true, json: JSON.stringify(rest), body };
}

const failure = (code: RuntimeError['code'], message: string): InvokeResult => ({ ok: false, error: { code, message }, logs: [], durationMs: 0 });

/**
 * The server's side of the app runtime: forks the worker on first use, restarts it after it dies (calls
 * that were in it fail with RUNTIME_CRASHED), queues executions beyond the per-app limit, and performs the
 * guest's fetch/storage/api calls through the callbacks given with each invocation.
 */
export class RuntimeHost {
  readonly #limits: RuntimeLimits;
  readonly #maxConcurrent: number;
  readonly #config: WorkerConfig;
  readonly #onCallbackError: RuntimeHostOptions['onCallbackError'];
  readonly #gates = new Map<string, Gate>();
  readonly #hashes = new Map<string, { code: string; hash: string }>();
  readonly #sourceMaps = new Map<string, SourceMap | undefined>();
  /** The worker new calls go to. */
  #worker: Worker | undefined;
  /** Every live worker: the current one and retiring ones still finishing their calls. */
  readonly #workers = new Set<Worker>();
  readonly #statsWaiters = new Map<number, (stats: WorkerStats) => void>();
  #nextId = 0;
  #closed = false;

  constructor(options: RuntimeHostOptions = {}) {
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#maxConcurrent = options.maxConcurrentPerApp ?? 20;
    this.#config = {
      maxIsolates: options.maxIsolates ?? DEFAULT_WORKER_CONFIG.maxIsolates,
      idleHeapMb: options.idleHeapMb ?? DEFAULT_WORKER_CONFIG.idleHeapMb,
      idleIsolateMs: options.idleIsolateMs ?? DEFAULT_WORKER_CONFIG.idleIsolateMs,
      recycleRssMb: options.recycleRssMb ?? DEFAULT_WORKER_CONFIG.recycleRssMb,
    };
    this.#onCallbackError = options.onCallbackError;
  }

  /** Process id of the current worker, if one runs (tests kill it to check recovery). */
  get workerPid(): number | undefined {
    return this.#worker && !this.#worker.exited ? this.#worker.child.pid : undefined;
  }

  /** What the current worker holds (isolates, idle heap, resident memory); undefined when none runs. */
  async workerStats(): Promise<(WorkerStats & { pid: number }) | undefined> {
    const worker = this.#worker;
    if (!worker || worker.exited) return undefined;
    await worker.ready;
    const id = ++this.#nextId;
    const stats = await new Promise<WorkerStats | undefined>((resolve) => {
      const gone = () => resolve(undefined);
      worker.child.once('exit', gone);
      this.#statsWaiters.set(id, (answer) => {
        worker.child.off('exit', gone);
        resolve(answer);
      });
      this.#send(worker, { t: 'stats', id });
    });
    this.#statsWaiters.delete(id);
    return stats && { pid: worker.child.pid!, isolates: stats.isolates, idleHeapBytes: stats.idleHeapBytes, rssBytes: stats.rssBytes };
  }

  async invoke(request: InvokeRequest, callbacks: RuntimeCallbacks = {}): Promise<InvokeResult> {
    if (this.#closed) return failure('RUNTIME_CRASHED', 'The runtime is shut down');
    const gate = this.#gate(request.appId);
    const admitted = await new Promise<boolean>((enter) => {
      if (gate.active < this.#maxConcurrent) {
        gate.active += 1;
        enter(true);
      } else gate.waiting.push({ installationId: request.installationId, enter });
    });
    if (!admitted) return failure('INSTALLATION_EVICTED', 'The installation was removed before the function ran');
    try {
      return await this.#run(request, callbacks);
    } finally {
      const next = gate.waiting.shift();
      if (next) next.enter(true);
      else if (--gate.active === 0) this.#gates.delete(request.appId);
    }
  }

  /** Uninstall: queued and running calls of the installation fail at once and its isolate is disposed. */
  evictInstallation(installationId: string): void {
    for (const gate of this.#gates.values()) {
      const leaving = gate.waiting.filter((w) => w.installationId === installationId);
      gate.waiting = gate.waiting.filter((w) => w.installationId !== installationId);
      for (const w of leaving) w.enter(false);
    }
    for (const worker of [...this.#workers]) {
      for (const call of [...worker.inFlight.values()]) {
        if (call.request.installationId === installationId)
          this.#settle(worker, call, failure('INSTALLATION_EVICTED', 'The installation was removed while the function ran'));
      }
      this.#send(worker, { t: 'evict', installationId });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      [...this.#workers].map((worker) => {
        const exited = new Promise((resolve) => worker.child.once('exit', resolve));
        worker.child.kill('SIGKILL');
        return exited;
      }),
    );
  }

  #gate(appId: string): Gate {
    let gate = this.#gates.get(appId);
    if (!gate) this.#gates.set(appId, (gate = { active: 0, waiting: [] }));
    return gate;
  }

  #hash(bundleId: string, code: string): string {
    const known = this.#hashes.get(bundleId);
    if (known && known.code === code) return known.hash;
    const hash = createHash('sha256').update(code).digest('base64url');
    this.#hashes.delete(bundleId);
    this.#hashes.set(bundleId, { code, hash });
    if (this.#hashes.size > 1000) this.#hashes.delete(this.#hashes.keys().next().value!);
    return hash;
  }

  async #run(request: InvokeRequest, callbacks: RuntimeCallbacks): Promise<InvokeResult> {
    const limits = { ...this.#limits, ...request.limits };
    const bundleHash = this.#hash(request.bundleId, request.bundleCode);
    let worker: Worker;
    try {
      worker = await this.#ensureWorker();
    } catch (error) {
      return failure('RUNTIME_CRASHED', `The runtime worker could not start: ${(error as Error).message}`);
    }
    const message: Extract<ToWorker, { t: 'invoke' }> = {
      t: 'invoke',
      id: ++this.#nextId,
      installationId: request.installationId,
      bundleHash,
      kind: request.kind,
      name: request.name,
      input: JSON.stringify(request.input ?? null),
      context: JSON.stringify(request.context ?? null),
      limits,
    };
    return new Promise<InvokeResult>((resolve) => {
      const call: InFlight = {
        id: message.id,
        request,
        callbacks,
        message,
        code: request.bundleCode,
        fetchBlocked: false,
        resolve,
        timer: setTimeout(() => {
          if (!worker.exited) worker.child.kill('SIGKILL');
        }, limits.wallMs + WEDGED_GRACE_MS),
      };
      worker.inFlight.set(call.id, call);
      this.#dispatch(worker, call);
    });
  }

  #dispatch(worker: Worker, call: InFlight) {
    const first = !worker.bundles.has(call.message.bundleHash);
    if (first) worker.bundles.add(call.message.bundleHash);
    this.#send(worker, first ? { ...call.message, code: call.code } : call.message);
  }

  #send(worker: Worker, message: ToWorker) {
    if (!worker.exited && worker.child.connected) worker.child.send(message);
  }

  #settle(worker: Worker, call: InFlight, result: InvokeResult) {
    if (worker.inFlight.get(call.id) !== call) return;
    worker.inFlight.delete(call.id);
    clearTimeout(call.timer);
    call.resolve(result);
    if (worker.retiring && worker.inFlight.size === 0) worker.child.kill('SIGKILL');
  }

  /** New calls go to a new worker from now on; this one is stopped once the calls it has are settled. */
  #retire(worker: Worker) {
    if (worker.retiring || worker.exited) return;
    worker.retiring = true;
    if (this.#worker === worker) this.#worker = undefined;
    if (worker.inFlight.size === 0) worker.child.kill('SIGKILL');
  }

  async #ensureWorker(): Promise<Worker> {
    // Calls still queued when the service shut down must not start a new worker.
    if (this.#closed) throw new Error('the runtime is shut down');
    if (this.#worker && !this.#worker.exited) {
      await this.#worker.ready;
      return this.#worker;
    }
    // No environment: whatever the server was given (keys, tokens, database paths) stays with the server.
    const child = fork(WORKER_PATH, [JSON.stringify(this.#config)], {
      execArgv: workerExecArgv(),
      serialization: 'advanced',
      env: {},
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const worker: Worker = { child, bundles: new Set(), inFlight: new Map(), exited: false, retiring: false, ready: undefined! };
    worker.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('no ready message'));
        child.kill('SIGKILL');
      }, READY_TIMEOUT_MS);
      child.on('message', (message: FromWorker) => {
        if (message.t === 'ready') {
          clearTimeout(timer);
          resolve();
          return;
        }
        try {
          this.#onMessage(worker, message);
        } catch {
          // Only a broken or compromised worker sends what we cannot read; it is replaced, not trusted.
          child.kill('SIGKILL');
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited (${signal ?? code})`));
        this.#onExit(worker, signal ?? String(code));
      });
    });
    // A spawn failure surfaces as 'error' and then 'exit'; the ready promise carries it to the caller.
    child.on('error', () => {});
    worker.ready.catch(() => {});
    this.#worker = worker;
    this.#workers.add(worker);
    await worker.ready;
    return worker;
  }

  #onExit(worker: Worker, how: string) {
    worker.exited = true;
    this.#workers.delete(worker);
    if (this.#worker === worker) this.#worker = undefined;
    for (const call of [...worker.inFlight.values()]) {
      this.#settle(worker, call, failure('RUNTIME_CRASHED', `The runtime worker stopped (${how}) during the call; it restarts with the next call`));
    }
  }

  #onMessage(worker: Worker, message: FromWorker) {
    if (message.t === 'recycle') this.#retire(worker);
    else if (message.t === 'stats') this.#statsWaiters.get(message.id)?.(message);
    else if (message.t === 'call') {
      const call = worker.inFlight.get(message.id);
      if (call) void this.#hostCall(worker, call, message.seq, message.op, message.json);
    } else if (message.t === 'done') {
      const call = worker.inFlight.get(message.id);
      if (!call) return;
      if (!message.ok && message.error.code === 'BUNDLE_MISSING') {
        worker.bundles.delete(call.message.bundleHash);
        return this.#dispatch(worker, call);
      }
      const logs = message.logs.length === 0 ? [] : workerLogs.parse(message.logs);
      this.#settle(
        worker,
        call,
        message.ok
          ? { ok: true, result: this.#result(call, message.json, message.body), logs, durationMs: message.durationMs }
          : { ok: false, error: this.#error(call, message.error), logs, durationMs: message.durationMs },
      );
    }
  }

  /** A site's page comes apart from the JSON of its status and headers; only a site call has one. */
  #result(call: InFlight, json: string, body: unknown): unknown {
    const value = JSON.parse(json);
    if (body === undefined) return value;
    if (call.request.kind !== 'site' || typeof body !== 'string' || value === null || typeof value !== 'object') throw new Error('malformed result');
    return { ...value, body };
  }

  #error(call: InFlight, error: WorkerFailure): RuntimeError {
    const code =
      error.code === 'APP_ERROR' && error.guestCode === 'FETCH_BLOCKED' && call.fetchBlocked ? 'FETCH_BLOCKED' : (error.code as RuntimeError['code']);
    if (!error.stack) return { code, message: error.message };
    return { code, message: error.message, stack: appStack(error.stack, this.#sourceMap(call)) };
  }

  #sourceMap(call: InFlight): SourceMap | undefined {
    const { sourceMap } = call.request;
    if (!sourceMap) return undefined;
    const key = call.message.bundleHash;
    if (!this.#sourceMaps.has(key)) {
      if (this.#sourceMaps.size >= 100) this.#sourceMaps.delete(this.#sourceMaps.keys().next().value!);
      this.#sourceMaps.set(key, parseSourceMap(sourceMap));
    }
    return this.#sourceMaps.get(key);
  }

  async #hostCall(worker: Worker, call: InFlight, seq: number, op: HostOp, json: string) {
    let reply: { ok: boolean; json: string; body?: string };
    try {
      const value = await this.#perform(call.callbacks, op, json);
      reply = op === 'fetch' ? fetchReply(value as FetchResponse) : { ok: true, json: JSON.stringify(value ?? null) };
    } catch (error) {
      if (error instanceof RuntimeCallbackError) {
        if (error.code === 'FETCH_BLOCKED') call.fetchBlocked = true;
        reply = { ok: false, json: JSON.stringify({ code: error.code, message: error.message }) };
      } else {
        this.#onCallbackError?.(error, { op, installationId: call.request.installationId });
        reply = { ok: false, json: JSON.stringify({ code: 'HOST_ERROR', message: `${op} failed` }) };
      }
    }
    if (worker.inFlight.get(call.id) === call) this.#send(worker, { t: 'reply', id: call.id, seq, ...reply });
  }

  async #perform(callbacks: RuntimeCallbacks, op: HostOp, json: string): Promise<unknown> {
    const unavailable = () => new RuntimeCallbackError('UNAVAILABLE', `${op} is not available to this function`);
    // The nesting limit of every request body (the request's own object adds one level): storage keeps
    // what it gets, and the API would refuse it anyway.
    if (jsonDepth(json) > MAX_JSON_DEPTH + 1) throw new RuntimeCallbackError('TOO_DEEP', `${op}: values may nest at most ${MAX_JSON_DEPTH} levels`);
    const parsed = hostCallArgs[op]?.safeParse(JSON.parse(json));
    if (!parsed?.success) throw new RuntimeCallbackError('INVALID_REQUEST', `${op}: malformed request`);
    if (op === 'fetch') {
      if (!callbacks.fetch) throw unavailable();
      return callbacks.fetch(parsed.data as z.infer<typeof hostCallArgs.fetch>);
    }
    if (op === 'api') {
      if (!callbacks.api) throw unavailable();
      return callbacks.api(parsed.data as z.infer<typeof hostCallArgs.api>);
    }
    const storage = callbacks.storage;
    if (!storage) throw unavailable();
    const args = parsed.data as z.infer<typeof hostCallArgs.storage>;
    switch (args.op) {
      case 'get':
        return storage.get(args.key);
      case 'set':
        return storage.set(args.key, args.value);
      case 'delete':
        return storage.delete(args.key);
      case 'list':
        return storage.list(args.options);
    }
  }
}
