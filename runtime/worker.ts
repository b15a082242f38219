/**
 * The runtime worker: a child process of the server that runs app functions in isolated-vm. It holds no
 * secrets and no database handle (the server forks it with an empty environment); everything an app may
 * do outside its isolate — fetch, storage, API calls — is a message to the server, which decides.
 *
 * One isolate per installation stays warm, with each bundle version compiled once per isolate (and V8's
 * code cache shared across isolates). Calls are dispatched into warm contexts where the bundle already ran
 * (one call at a time in each), as edge runtimes serve a web `fetch` handler: a new V8 context costs more
 * CPU (~0.3-0.5 ms) than the rest of a warm call together, and without it a site's code never warmed up in
 * V8. An installation is one app in one store, so what a call leaves in its context is seen only by later
 * calls of the same app and store; a context whose call failed is dropped. A watchdog charges isolate CPU time
 * to the calls in flight and disposes the isolate when a call overruns its CPU or wall-clock budget. No
 * run is given isolated-vm's `timeout`: it bounds only synchronous runs, not code resumed after an awaited
 * host call, and it counts wall-clock time, which on a busy machine a polite call spends waiting for a core.
 */
import ivm from 'isolated-vm';
import { BOOTSTRAP_FILENAME, BUNDLE_ENTRY, BUNDLE_FILENAME, GUEST_BOOTSTRAP_FUNCTION } from './guest.js';
import {
  DEFAULT_WORKER_CONFIG,
  KIND_GROUP,
  MAX_LOG_CHARS,
  MAX_LOG_LINE_CHARS,
  MAX_LOG_LINES,
  type FromWorker,
  type HostOp,
  type LogLine,
  type RuntimeLimits,
  type ToWorker,
  type WorkerConfig,
  type WorkerFailure,
} from './protocol.js';

const config: WorkerConfig = { ...DEFAULT_WORKER_CONFIG, ...JSON.parse(process.argv[2] ?? '{}') };
const MB = 1024 * 1024;
/** Characters of bundle source kept for isolates still to be created; the host resends what was dropped. */
const MAX_BUNDLE_CHARS = 64 * 1024 * 1024;
const MAX_SCRIPTS_PER_ISOLATE = 4;
/** Warm contexts of one bundle version in one isolate; a call finding all busy gets a context of its own. */
const WARM_CONTEXTS_PER_BUNDLE = 8;
/** Stack text of a thrown error that travels back; the bootstrap clips it, the worker refuses more. */
const MAX_STACK_CHARS = 8000;
/** JSON of a thrown error's description: its clipped fields, every character escaped at worst. */
const MAX_ERROR_JSON_CHARS = 6 * (MAX_STACK_CHARS + 2 * MAX_LOG_LINE_CHARS);
/** Largest argument a guest may hand to a host call (storage holds 1 MB in all; fetch bodies alike). */
const MAX_REQUEST_CHARS = 2 * 1024 * 1024;
/** Host calls one invocation may have waiting at once; a guest looping over un-awaited calls is refused, not queued. */
const MAX_OUTSTANDING = 32;
const WATCH_EVERY_MS = 5;
const HOST_OPS = new Set<string>(['fetch', 'storage', 'api'] satisfies HostOp[]);
const LOG_LEVELS = new Set<string>(['log', 'info', 'warn', 'error', 'debug'] satisfies LogLine['level'][]);

interface Bundle {
  code: string;
  /** V8 code cache from the first compile, so other installations' isolates skip most of the parse. */
  cachedData?: ivm.ExternalCopy<ArrayBuffer>;
}

interface Slot {
  installationId: string;
  isolate: ivm.Isolate;
  memoryMb: number;
  scripts: Map<string, Promise<ivm.Script>>;
  calls: Set<Call>;
  /** `isolate.cpuTime` when the watchdog last charged it. */
  cpuMark: bigint;
  /** When its last call ended (`performance.now()`), and its heap as last measured idle: what an idle isolate costs. */
  idleSince: number;
  heapBytes: number;
  /** A call ended since the heap was measured (`measureIdleHeaps` catches up). */
  heapStale: boolean;
  /**
   * Calls set up (context, bootstrap, start of the run) one after another: the isolate has one thread
   * anyway, and 20 contexts created at once cost the isolate more than 20 created in turn.
   */
  setup: Promise<unknown>;
  /** The bootstrap, compiled once for every context of the isolate. */
  bootstrap?: Promise<ivm.Script>;
  /**
   * A context made ahead, with only the bootstrap's function defined in it: the next call takes it instead
   * of waiting ~0.5 ms for one. It is made after the current call's run is queued, so the isolate builds it
   * while results travel back.
   */
  spare?: Promise<PreparedContext>;
  /** Warm contexts by bundle and kind (a site's has the web globals). */
  warm: Map<string, WarmContext[]>;
}

/** A new context no app code has entered, and the bootstrap's function in it (to be applied once, to one call's values). */
interface PreparedContext {
  context: ivm.Context;
  boot: ivm.Reference;
}

/** A context where the bundle ran once; calls are dispatched into it one after another. */
interface WarmContext {
  context: ivm.Context;
  settle: ivm.Reference;
  dispatch: ivm.Reference;
  /** The call it serves now (its host calls and logs go there); null when free. */
  call: Call | null;
  pool: WarmContext[];
}

interface Call {
  id: number;
  slot: Slot;
  limits: RuntimeLimits;
  startedAt: number;
  /** CPU time charged to the call by the isolate's clock and by the worker process's (see `watch`). */
  isolateNs: number;
  processNs: number;
  outstanding: number;
  logs: LogLine[];
  context?: ivm.Context;
  settle?: ivm.Reference;
  warm?: WarmContext;
  finished: boolean;
}

const bundles = new Map<string, Bundle>();
let bundleChars = 0;
const slots = new Map<string, Slot>();
const calls = new Map<number, Call>();

const send = (message: FromWorker) => process.send!(message);

/** Map iteration order is insertion order: re-inserting on use keeps the least recently used first. */
function touch<K, V>(map: Map<K, V>, key: K, value: V) {
  map.delete(key);
  map.set(key, value);
}

function slotFor(installationId: string, memoryMb: number): Slot {
  const existing = slots.get(installationId);
  if (existing && !existing.isolate.isDisposed && (existing.memoryMb === memoryMb || existing.calls.size > 0)) {
    touch(slots, installationId, existing);
    return existing;
  }
  if (existing) dispose(existing);
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    // isolated-vm's advice: after such an error the process cannot be trusted; the server restarts us.
    onCatastrophicError: (message) => {
      process.stderr.write(`runtime worker: catastrophic isolate error: ${message}\n`);
      process.abort();
    },
  });
  const slot: Slot = {
    installationId,
    isolate,
    memoryMb,
    scripts: new Map(),
    calls: new Set(),
    cpuMark: 0n,
    idleSince: 0,
    heapBytes: 0,
    heapStale: false,
    setup: Promise.resolve(),
    warm: new Map(),
  };
  slots.set(installationId, slot);
  return slot;
}

function compiled(slot: Slot, hash: string, bundle: Bundle): Promise<ivm.Script> {
  let script = slot.scripts.get(hash);
  if (!script) {
    const options = bundle.cachedData ? { cachedData: bundle.cachedData } : { produceCachedData: true };
    script = slot.isolate.compileScript(bundle.code + BUNDLE_ENTRY, { filename: BUNDLE_FILENAME, ...options }).then((s) => {
      const produced = (s as ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
      if (produced && !bundle.cachedData) bundle.cachedData = produced;
      return s;
    });
    // A failed compile (syntax error) is not cached: the same error is reported on each call.
    script.catch(() => slot.scripts.delete(hash));
    slot.scripts.set(hash, script);
    if (slot.scripts.size > MAX_SCRIPTS_PER_ISOLATE) {
      const [oldest, old] = slot.scripts.entries().next().value!;
      slot.scripts.delete(oldest);
      old.then(
        (s) => s.release(),
        () => {},
      );
      for (const [key, pool] of slot.warm) if (key.startsWith(`${oldest} `)) retireWarm(slot, key, pool);
    }
  }
  return script;
}

async function preparedContext(slot: Slot): Promise<PreparedContext> {
  slot.bootstrap ??= slot.isolate.compileScript(GUEST_BOOTSTRAP_FUNCTION, { filename: BOOTSTRAP_FILENAME });
  const bootstrap = await slot.bootstrap;
  const context = await slot.isolate.createContext();
  try {
    return { context, boot: await bootstrap.run(context, { reference: true }) };
  } catch (error) {
    context.release();
    throw error;
  }
}

/** Runs the bootstrap in a prepared context for one call (its `settle`) or as a warm context (`{ settle, dispatch }`). */
async function boot({ boot }: PreparedContext, request: ivm.Callback, log: ivm.Callback, meta: string, input: string, context: string): Promise<ivm.Reference> {
  try {
    return await boot.apply(undefined, [request, log, meta, input, context], { result: { reference: true } });
  } finally {
    boot.release();
  }
}

/** Drops a bundle's warm contexts: free ones now, busy ones when their request ends. */
function retireWarm(slot: Slot, key: string, pool: WarmContext[]) {
  slot.warm.delete(key);
  for (const warm of pool.splice(0)) if (!warm.call) warm.context.release();
}

/**
 * A free warm context of this bundle version (made, and the bundle run in it, when there is none and the
 * pool has room), or null: then the call gets a context of its own.
 */
async function warmContext(slot: Slot, key: string, script: ivm.Script, meta: string, call: Call): Promise<WarmContext | null> {
  let pool = slot.warm.get(key);
  if (!pool) slot.warm.set(key, (pool = []));
  const free = pool.find((warm) => warm.call === null);
  if (free || pool.length >= WARM_CONTEXTS_PER_BUNDLE) return free ?? null;
  const prepared = await preparedContext(slot);
  const { context } = prepared;
  // The call that made it owns it from the start: what the bundle logs or asks for as it starts is that call's.
  const warm = { context, call, pool } as unknown as WarmContext;
  const request = new ivm.Callback((seq: unknown, op: unknown, json: unknown) => warm.call && onRequest(warm.call, seq, op, json), { ignored: true });
  const log = new ivm.Callback((level: unknown, text: unknown) => warm.call && onLog(warm.call, level, text), { ignored: true });
  const bridge = await boot(prepared, request, log, meta, 'null', 'null');
  [warm.settle, warm.dispatch] = await Promise.all([bridge.get('settle', { reference: true }), bridge.get('dispatch', { reference: true })]);
  bridge.release();
  const ready = await script.run(context, { promise: true, copy: true });
  if (ready !== 'W') {
    context.release();
    return null;
  }
  pool.push(warm);
  return warm;
}

/** After its call: a warm context that answered is free again; one that failed (or was retired) is dropped. */
function releaseWarm(warm: WarmContext, reusable: boolean) {
  warm.call = null;
  if (reusable && warm.pool.includes(warm)) return;
  const at = warm.pool.indexOf(warm);
  if (at >= 0) warm.pool.splice(at, 1);
  warm.context.release();
}

function dispose(slot: Slot) {
  if (slots.get(slot.installationId) === slot) slots.delete(slot.installationId);
  if (!slot.isolate.isDisposed) slot.isolate.dispose();
}

function finish(call: Call, outcome: { ok: true; json: string; body?: string } | { ok: false; error: WorkerFailure }) {
  if (call.finished) return;
  call.finished = true;
  calls.delete(call.id);
  call.slot.calls.delete(call);
  if (!call.slot.isolate.isDisposed) {
    if (call.warm) releaseWarm(call.warm, outcome.ok);
    else {
      call.settle?.release();
      call.context?.release();
    }
  }
  const durationMs = performance.now() - call.startedAt;
  // Before the result: the host then routes no further call here.
  askForRecycleIfLarge();
  send(
    outcome.ok
      ? { t: 'done', id: call.id, ok: true, json: outcome.json, body: outcome.body, logs: call.logs, durationMs }
      : { t: 'done', id: call.id, ok: false, error: outcome.error, logs: call.logs, durationMs },
  );
  if (call.slot.calls.size === 0 && !call.slot.isolate.isDisposed) {
    call.slot.idleSince = performance.now();
    call.slot.heapStale = true;
    heapCheck ??= setTimeout(() => void measureIdleHeaps(), HEAP_CHECK_DELAY_MS);
  }
  trimIsolates();
}

/**
 * Idle isolates' heaps are measured a moment after their calls end, not as each call ends: a synchronous
 * measurement waits for the isolate's thread, which is then building the next call's spare context — that
 * wait (~0.3 ms, and its CPU) was most of a warm call's cost outside the isolate. An isolate called again
 * meanwhile is measured when it next goes idle.
 */
const HEAP_CHECK_DELAY_MS = 20;
let heapCheck: NodeJS.Timeout | undefined;
async function measureIdleHeaps() {
  clearTimeout(heapCheck);
  heapCheck = undefined;
  const stale = [...slots.values()].filter((slot) => slot.heapStale && idle(slot) && !slot.isolate.isDisposed);
  await Promise.all(
    stale.map(async (slot) => {
      try {
        const heap = await slot.isolate.getHeapStatistics();
        slot.heapBytes = heap.total_heap_size + heap.externally_allocated_size;
        slot.heapStale = false;
      } catch {
        // Disposed meanwhile: it holds nothing any more.
      }
    }),
  );
  trimIsolates();
}

const KILL_MESSAGE: Record<'CPU_LIMIT' | 'TIMEOUT' | 'MEMORY_LIMIT' | 'INSTALLATION_EVICTED', (call: Call) => string> = {
  CPU_LIMIT: (c) => `The function used more than ${c.limits.cpuMs} ms of CPU time`,
  TIMEOUT: (c) => `The function did not finish within ${c.limits.wallMs} ms`,
  MEMORY_LIMIT: (c) => `The function exceeded the ${c.slot.memoryMb} MB memory limit`,
  INSTALLATION_EVICTED: () => 'The installation was removed while the function ran',
};

/** Ends every call of the isolate: they share its heap and thread, so none can go on once it is gone. */
function kill(slot: Slot, code: keyof typeof KILL_MESSAGE, culprit?: Call) {
  dispose(slot);
  for (const call of [...slot.calls]) {
    const message =
      !culprit || call === culprit ? KILL_MESSAGE[code](call) : `${KILL_MESSAGE[code](culprit)}; this call ran in the same isolate and was stopped with it`;
    finish(call, { ok: false, error: { code, message } });
  }
}

let watchdog: NodeJS.Timeout | undefined;
/** CPU time of the whole worker process (every thread) at the watchdog's last tick, in ns. */
let processCpuMark = 0;
const processCpuNs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
};
function startWatchdog() {
  if (watchdog) return;
  processCpuMark = processCpuNs();
  watchdog = setInterval(watch, WATCH_EVERY_MS);
}
/** Stopped by its first tick without calls, not as each call ends: calls one after another keep one timer. */
function stopWatchdog() {
  clearInterval(watchdog);
  watchdog = undefined;
}

/**
 * Calls of one installation share an isolate thread, so its CPU time is split evenly among the calls in
 * flight: a hostile call among n is stopped after at most n times its budget, never a polite one alone.
 *
 * `isolate.cpuTime` is exact for the isolate's finished tasks but counts the task running now by the wall
 * clock since it began (isolated-vm's CpuTimer::Delta reads steady_clock), so on a loaded machine a call
 * whose thread waits for a core was charged time it never ran (a 2 ms compile read as 300 ms under 12
 * parallel test runs). The worker process's CPU time, all threads together, is also never less than any
 * one isolate's; the lesser of the two is therefore still at least what the call really ran — a real
 * overrun is stopped as before — without the time spent waiting.
 */
function watch() {
  if (calls.size === 0) return stopWatchdog();
  const now = performance.now();
  const processCpu = processCpuNs();
  const processShare = processCpu - processCpuMark;
  processCpuMark = processCpu;
  for (const slot of [...slots.values()]) {
    if (slot.calls.size === 0 || slot.isolate.isDisposed) continue;
    const cpu = slot.isolate.cpuTime;
    const isolateShare = Number(cpu - slot.cpuMark) / slot.calls.size;
    slot.cpuMark = cpu;
    for (const call of slot.calls) {
      call.isolateNs += isolateShare;
      call.processNs += processShare / slot.calls.size;
      if (Math.min(call.isolateNs, call.processNs) > call.limits.cpuMs * 1e6) {
        kill(slot, 'CPU_LIMIT', call);
        break;
      }
      if (now - call.startedAt > call.limits.wallMs) {
        kill(slot, 'TIMEOUT', call);
        break;
      }
    }
  }
}

const idle = (slot: Slot) => slot.calls.size === 0;
const idleHeapBytes = () => [...slots.values()].reduce((sum, slot) => sum + (idle(slot) ? slot.heapBytes : 0), 0);

/** Beyond the isolate count or the idle-heap budget, the least recently used idle isolates are disposed. */
function trimIsolates() {
  let heap = idleHeapBytes();
  for (const slot of [...slots.values()]) {
    if (slots.size <= config.maxIsolates && heap <= config.idleHeapMb * MB) return;
    if (!idle(slot)) continue;
    heap -= slot.heapBytes;
    dispose(slot);
  }
}

/** Isolates nobody called for `idleIsolateMs` give their memory back. */
setInterval(
  () => {
    const now = performance.now();
    for (const slot of [...slots.values()]) if (idle(slot) && now - slot.idleSince > config.idleIsolateMs) dispose(slot);
  },
  Math.min(Math.max(config.idleIsolateMs / 2, 50), 10_000),
);

/**
 * Freed isolate heaps do not always leave the process (allocator arenas, fragmentation), so a worker past
 * its resident ceiling asks the host, once, to be replaced: it gets no new calls, finishes those it has and
 * is stopped — nothing in flight is lost or run twice.
 */
let recycleAsked = false;
/** Reading the resident size is a system call: at most one per RSS_CHECK_EVERY_MS of calls ending. */
const RSS_CHECK_EVERY_MS = 10;
let rssCheckedAt = -Infinity;
function askForRecycleIfLarge() {
  if (recycleAsked || performance.now() - rssCheckedAt < RSS_CHECK_EVERY_MS) return;
  rssCheckedAt = performance.now();
  const rssBytes = process.memoryUsage.rss();
  if (rssBytes <= config.recycleRssMb * MB) return;
  recycleAsked = true;
  send({ t: 'recycle', rssBytes });
}

function outcomeOf(call: Call, kind: string, name: string, out: unknown): Parameters<typeof finish>[1] {
  const tag = typeof out === 'string' ? out[0] : undefined;
  const body = typeof out === 'string' ? out.slice(1) : '';
  const { resultBytes } = call.limits;
  if (tag === 'R' && Buffer.byteLength(body) <= resultBytes) return { ok: true, json: body };
  if (tag === 'S' && kind === 'site') {
    const end = body.indexOf('\n');
    const [head, page] = end < 0 ? ['', ''] : [body.slice(0, end), body.slice(end + 1)];
    if (head && Buffer.byteLength(head) + Buffer.byteLength(page) <= resultBytes) return { ok: true, json: head, body: page };
  }
  if (tag === 'R' || tag === 'S' || tag === 'L')
    return { ok: false, error: { code: 'RESULT_TOO_LARGE', message: `The result is larger than ${resultBytes} bytes of JSON` } };
  if (tag === 'M') {
    const group = KIND_GROUP[kind as keyof typeof KIND_GROUP];
    return { ok: false, error: { code: 'HANDLER_MISSING', message: `The bundle has no ${kind} function "${name}" (expected __app.${group}["${name}"])` } };
  }
  if (tag === 'E' && body.length > MAX_ERROR_JSON_CHARS)
    return { ok: false, error: { code: 'APP_ERROR', message: 'The function threw an error too large to describe' } };
  if (tag === 'E') {
    const thrown = JSON.parse(body) as { name: string; message: string; stack?: string; code?: string };
    return { ok: false, error: { code: 'APP_ERROR', message: `${thrown.name}: ${thrown.message}`, stack: thrown.stack, guestCode: thrown.code } };
  }
  return { ok: false, error: { code: 'APP_ERROR', message: 'The bundle did not run the requested function (was __svc_run shadowed?)' } };
}

function failed(call: Call, error: unknown) {
  if (call.finished) return;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // isolated-vm disposes an isolate that passes its memory limit on its own; we did not dispose it.
  if (call.slot.isolate.isDisposed) return kill(call.slot, 'MEMORY_LIMIT');
  // Compile errors and the like: the message is V8's, the stack would be ours, so it is left out.
  finish(call, { ok: false, error: { code: 'APP_ERROR', message } });
}

/** The function a call runs, for the bootstrap. */
const callTarget = (msg: Extract<ToWorker, { t: 'invoke' }>) => ({ group: KIND_GROUP[msg.kind], name: msg.name, resultBytes: msg.limits.resultBytes });

/** What the bootstrap enforces in every context. */
const BOOTSTRAP_LIMITS = {
  maxLogLines: MAX_LOG_LINES,
  maxLogChars: MAX_LOG_CHARS,
  maxStackChars: MAX_STACK_CHARS,
  maxRequestChars: MAX_REQUEST_CHARS,
  maxOutstanding: MAX_OUTSTANDING,
};

async function invoke(msg: Extract<ToWorker, { t: 'invoke' }>) {
  if (msg.code !== undefined && !bundles.has(msg.bundleHash)) {
    bundles.set(msg.bundleHash, { code: msg.code });
    bundleChars += msg.code.length;
    for (const [hash, old] of bundles) {
      if (bundleChars <= MAX_BUNDLE_CHARS || hash === msg.bundleHash) break;
      bundles.delete(hash);
      bundleChars -= old.code.length;
    }
  }
  const bundle = bundles.get(msg.bundleHash);
  if (!bundle) {
    send({ t: 'done', id: msg.id, ok: false, error: { code: 'BUNDLE_MISSING', message: 'bundle not cached' }, logs: [], durationMs: 0 });
    return;
  }
  touch(bundles, msg.bundleHash, bundle);
  const slot = slotFor(msg.installationId, msg.limits.memoryMb);
  if (slot.calls.size === 0) slot.cpuMark = slot.isolate.cpuTime;
  const call: Call = {
    id: msg.id,
    slot,
    limits: msg.limits,
    startedAt: performance.now(),
    isolateNs: 0,
    processNs: 0,
    outstanding: 0,
    logs: [],
    finished: false,
  };
  slot.calls.add(call);
  calls.set(call.id, call);
  startWatchdog();
  try {
    const started = slot.setup.then(async () => {
      const script = await compiled(slot, msg.bundleHash, bundle);
      const warmMeta = JSON.stringify({ ...BOOTSTRAP_LIMITS, site: msg.kind === 'site', warm: true });
      const warm = await warmContext(slot, `${msg.bundleHash} ${warmMeta}`, script, warmMeta, call);
      // A call stopped while its context was being made leaves the context free for the next one.
      if (warm && call.finished) releaseWarm(warm, true);
      else if (warm) {
        warm.call = call;
        call.warm = warm;
        call.settle = warm.settle;
        const target = JSON.stringify(callTarget(msg));
        return { running: warm.dispatch.apply(undefined, [target, msg.input, msg.context], { result: { promise: true, copy: true } }) };
      }
      const prepared = await (slot.spare ?? preparedContext(slot));
      slot.spare = undefined;
      const { context } = prepared;
      call.context = context;
      if (call.finished) {
        prepared.boot.release();
        return context.release();
      }
      const request = new ivm.Callback((seq: unknown, op: unknown, json: unknown) => onRequest(call, seq, op, json), { ignored: true });
      const log = new ivm.Callback((level: unknown, text: unknown) => onLog(call, level, text), { ignored: true });
      const meta = JSON.stringify({ ...BOOTSTRAP_LIMITS, site: msg.kind === 'site', ...callTarget(msg) });
      call.settle = await boot(prepared, request, log, meta, msg.input, msg.context);
      const running = script.run(context, { promise: true, copy: true });
      slot.spare = preparedContext(slot);
      // Dropped with the isolate when it is disposed; nobody else waits for it.
      slot.spare.catch(() => {});
      // Handed on in a wrapper so the lane does not wait for the function itself.
      return { running };
    });
    slot.setup = started.catch(() => {});
    const run = await started;
    if (!run) return;
    const out = await run.running;
    finish(call, outcomeOf(call, msg.kind, msg.name, out));
  } catch (error) {
    failed(call, error);
  }
}

function onRequest(call: Call, seq: unknown, op: unknown, json: unknown) {
  if (call.finished || typeof seq !== 'number' || typeof op !== 'string' || !HOST_OPS.has(op) || typeof json !== 'string') return;
  const refuse = (code: string, message: string) => settle(call, seq, false, JSON.stringify({ code, message }));
  if (json.length > MAX_REQUEST_CHARS) return refuse('REQUEST_TOO_LARGE', `A ${op} request may carry at most ${MAX_REQUEST_CHARS} characters`);
  if (call.outstanding >= MAX_OUTSTANDING) return refuse('TOO_MANY_REQUESTS', `At most ${MAX_OUTSTANDING} fetch/storage/api calls may be pending at once`);
  call.outstanding += 1;
  send({ t: 'call', id: call.id, seq, op: op as HostOp, json });
}

function reply(call: Call, seq: number, ok: boolean, json: string, body: string | undefined) {
  call.outstanding -= 1;
  settle(call, seq, ok, json, typeof body === 'string' ? body : undefined);
}

function settle(call: Call, seq: number, ok: boolean, json: string, body?: string) {
  if (call.finished || !call.settle) return;
  // A rejection here means the isolate is gone; the call is failed by whoever disposed it.
  call.settle.apply(undefined, body === undefined ? [seq, ok, json] : [seq, ok, json, body]).catch(() => {});
}

/**
 * The worker's side of the console bridge, which holds whatever the guest hands it: at most MAX_LOG_LINES
 * lines of MAX_LOG_LINE_CHARS per call, strings only, each kept as a copy of its own — a slice would keep
 * the whole original alive until the call ends.
 */
function onLog(call: Call, level: unknown, text: unknown) {
  if (call.finished || call.logs.length >= MAX_LOG_LINES || typeof level !== 'string' || !LOG_LEVELS.has(level) || typeof text !== 'string') return;
  call.logs.push({ level: level as LogLine['level'], message: ownCopy(text, MAX_LOG_LINE_CHARS), atMs: Math.round(performance.now() - call.startedAt) });
}

const ownCopy = (text: string, maxChars: number) => Buffer.from(text.slice(0, maxChars), 'utf16le').toString('utf16le');

process.on('message', (msg: ToWorker) => {
  if (msg.t === 'invoke') {
    invoke(msg).catch((error: Error) => {
      // Before the call exists (e.g. an isolate that cannot be created): the platform failed, not the app.
      if (!calls.has(msg.id))
        send({
          t: 'done',
          id: msg.id,
          ok: false,
          error: { code: 'RUNTIME_CRASHED', message: `The runtime could not run the call: ${error.message}` },
          logs: [],
          durationMs: 0,
        });
    });
  } else if (msg.t === 'reply') {
    const call = calls.get(msg.id);
    if (call) reply(call, msg.seq, msg.ok, msg.json, msg.body);
  } else if (msg.t === 'evict') {
    const slot = slots.get(msg.installationId);
    if (slot) kill(slot, 'INSTALLATION_EVICTED');
  } else if (msg.t === 'stats') {
    void measureIdleHeaps().then(() =>
      send({ t: 'stats', id: msg.id, isolates: slots.size, idleHeapBytes: idleHeapBytes(), rssBytes: process.memoryUsage.rss() }),
    );
  }
});
// The server is our only reason to exist: when its channel closes, so do we.
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
