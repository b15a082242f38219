/**
 * Messages between the server (`src/runtime-host`) and the runtime worker, over the `child_process.fork`
 * IPC channel with `serialization: 'advanced'`. Values that reach the guest travel as JSON strings so the
 * worker never has to trust an object's shape: it hands the guest strings and primitives only.
 */

/** `site`: a hosted storefront's server bundle (`export default { fetch(request, env) }`), one web request. */
export type InvocationKind = 'tool' | 'notification' | 'schedule' | 'route' | 'event' | 'site';

/** Where each kind's functions live on the bundle's global (`__app.tools.NAME`, …). */
export const KIND_GROUP: Record<InvocationKind, string> = {
  tool: 'tools',
  notification: 'notifications',
  schedule: 'schedules',
  route: 'routes',
  event: 'events',
  site: 'default',
};

export interface RuntimeLimits {
  /** Isolate CPU time charged to the call. */
  cpuMs: number;
  /** Real time from the start of execution, awaited host calls included. */
  wallMs: number;
  /** Heap limit of the installation's isolate; applies when the isolate is (re)created. */
  memoryMb: number;
  /** UTF-8 bytes of `JSON.stringify(result)`. */
  resultBytes: number;
}

export type RuntimeErrorCode =
  | 'TIMEOUT'
  | 'CPU_LIMIT'
  | 'MEMORY_LIMIT'
  | 'RESULT_TOO_LARGE'
  | 'APP_ERROR'
  | 'FETCH_BLOCKED'
  | 'RUNTIME_CRASHED'
  | 'HANDLER_MISSING'
  | 'INSTALLATION_EVICTED';

export interface RuntimeError {
  code: RuntimeErrorCode;
  message: string;
  stack?: string;
}

/** Console lines one call keeps, and the characters of each (2,000 of text, an ellipsis and the limit note). */
export const MAX_LOG_LINES = 200;
export const MAX_LOG_CHARS = 2000;
export const MAX_LOG_LINE_CHARS = MAX_LOG_CHARS + 100;

export interface LogLine {
  level: 'log' | 'info' | 'warn' | 'error' | 'debug';
  message: string;
  /** Milliseconds since the call started executing. */
  atMs: number;
}

export type HostOp = 'fetch' | 'storage' | 'api';

export type ToWorker =
  | {
      t: 'invoke';
      id: number;
      installationId: string;
      bundleHash: string;
      /** Sent the first time this worker sees the bundle, and again when it asks (`BUNDLE_MISSING`). */
      code?: string;
      kind: InvocationKind;
      name: string;
      /** JSON of the input and of the service context. */
      input: string;
      context: string;
      limits: RuntimeLimits;
    }
  /** `body`: a fetch answer's text, kept out of `json` so it is neither escaped nor parsed on its way. */
  | { t: 'reply'; id: number; seq: number; ok: boolean; json: string; body?: string }
  | { t: 'evict'; installationId: string }
  | { t: 'stats'; id: number };

export type FromWorker =
  | { t: 'ready' }
  | { t: 'call'; id: number; seq: number; op: HostOp; json: string }
  /** `body`: a site's page, apart from the JSON of its status and headers (so the page is not escaped, then parsed). */
  | { t: 'done'; id: number; ok: true; json: string; body?: string; logs: LogLine[]; durationMs: number }
  | { t: 'done'; id: number; ok: false; error: WorkerFailure; logs: LogLine[]; durationMs: number }
  /** The worker's resident memory passed `recycleRssMb`: send it nothing new, let it finish, replace it. */
  | { t: 'recycle'; rssBytes: number }
  | ({ t: 'stats'; id: number } & WorkerStats);

export interface WorkerStats {
  /** Isolates alive (warm or running). */
  isolates: number;
  /** Heap of the idle ones, measured shortly after each last went idle. */
  idleHeapBytes: number;
  rssBytes: number;
}

/**
 * `BUNDLE_MISSING` asks the host to send the invoke again with the code (the worker's cache dropped it);
 * `guestCode` is the `code` property of the value the guest threw, a hint the host checks against what it
 * knows (a fetch it blocked) before trusting it.
 */
export interface WorkerFailure {
  code: RuntimeErrorCode | 'BUNDLE_MISSING';
  message: string;
  stack?: string;
  guestCode?: string;
}

/**
 * A worker's bounds: 100 warm isolates, 256 MB of idle heap, two idle minutes; past 768 MB resident (what
 * isolates and the allocator keep after a hostile run) it is replaced without losing a call.
 */
export const DEFAULT_WORKER_CONFIG: WorkerConfig = { maxIsolates: 100, idleHeapMb: 256, idleIsolateMs: 120_000, recycleRssMb: 768 };

export interface WorkerConfig {
  /** Warm isolates kept; the least recently used idle one is disposed beyond this. */
  maxIsolates: number;
  /** Heap all idle isolates together may hold; the least recently used go first beyond it. */
  idleHeapMb: number;
  /** An isolate unused this long is disposed. */
  idleIsolateMs: number;
  /** Resident memory past which the worker asks to be replaced (`recycle`). */
  recycleRssMb: number;
}
