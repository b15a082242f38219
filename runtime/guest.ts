/**
 * Code run in every fresh context before the app's bundle. It is the only code of ours inside the
 * isolate: it turns the three host functions it is handed (all `ivm.Callback`s taking strings) into the
 * guest globals `console`, `fetch`, `storage`, `api` and `context`, and defines `__svc_run`, which the
 * compiled bundle calls on its last line. It returns `settle`, through which the worker answers host
 * calls; the worker keeps that as a Reference on its side, so nothing but strings and primitives ever
 * crosses into the guest.
 *
 * `$0` request(seq, op, argsJson) · `$1` log(level, text) · `$2` metaJson · `$3` inputJson · `$4` contextJson
 *
 * JSON, String and the one method we call (slice) are captured before the app runs because the app may
 * replace them (or any prototype) in its own context: replacing `Array.prototype.join` or
 * `String.prototype.slice` must not let it hand the bridge a 30 MB "line". The worker enforces the same
 * limits on its side of the bridge; these captures keep the strings that cross small to begin with.
 * Strict mode keeps `caller` of our functions out of the app's reach.
 */
export const GUEST_BOOTSTRAP = String.raw`
'use strict';
const request = $0, log = $1;
const { parse, stringify } = JSON;
const GuestError = Error, GuestMap = Map, GuestPromise = Promise, GuestString = String, hasOwn = Object.hasOwn;
const sliceText = Function.prototype.call.bind(String.prototype.slice);
const meta = parse($2);
const input = parse($3);
const context = parse($4);

const pending = new GuestMap();
let nextSeq = 0;
function hostCall(op, args) {
  return new GuestPromise((resolve, reject) => {
    const json = stringify(args === undefined ? null : args);
    if (json.length > meta.maxRequestChars) {
      const error = new GuestError('A ' + op + ' request may carry at most ' + meta.maxRequestChars + ' characters');
      error.code = 'REQUEST_TOO_LARGE';
      return reject(error);
    }
    const seq = ++nextSeq;
    pending.set(seq, { resolve, reject });
    request(seq, op, json);
  });
}
function settle(seq, ok, json) {
  const waiter = pending.get(seq);
  if (!waiter) return;
  pending.delete(seq);
  const value = parse(json);
  if (ok) return waiter.resolve(value);
  const error = new GuestError(value.message);
  error.code = value.code;
  waiter.reject(error);
}

let lines = 0;
/** One console argument as a primitive string (the app's own toString/toJSON may run, and may return anything). */
function show(value) {
  try {
    if (typeof value === 'string') return value;
    if (value instanceof GuestError) return GuestString(value.stack || value);
    try {
      const json = stringify(value);
      if (json !== undefined) return json;
    } catch {}
    return GuestString(value);
  } catch {
    return '[unprintable]';
  }
}
function emitter(level) {
  return (...args) => {
    if (lines >= meta.maxLogLines) return;
    lines += 1;
    let text = '';
    for (let i = 0; i < args.length && text.length <= meta.maxLogChars; i++) text += (i === 0 ? '' : ' ') + show(args[i]);
    if (text.length > meta.maxLogChars) text = sliceText(text, 0, meta.maxLogChars) + '…';
    log(level, lines === meta.maxLogLines ? text + ' (log limit reached; later lines dropped)' : text);
  };
}
globalThis.console = { log: emitter('log'), info: emitter('info'), warn: emitter('warn'), error: emitter('error'), debug: emitter('debug') };

function headerPairs(headers) {
  if (headers == null) return [];
  const entries = Array.isArray(headers) ? headers : typeof headers.entries === 'function' ? [...headers.entries()] : Object.entries(headers);
  return entries.map(([name, value]) => [String(name), String(value)]);
}
function response(r) {
  const headers = new GuestMap(r.headers);
  return {
    ok: r.status >= 200 && r.status < 300,
    status: r.status,
    statusText: r.statusText,
    url: r.url,
    redirected: false,
    headers: {
      get: (name) => headers.get(String(name).toLowerCase()) ?? null,
      has: (name) => headers.has(String(name).toLowerCase()),
      entries: () => headers.entries(),
      forEach: (fn) => headers.forEach((value, name) => fn(value, name)),
    },
    text: async () => r.body,
    json: async () => parse(r.body),
  };
}
globalThis.fetch = async function fetch(resource, init = {}) {
  const url = String(resource !== null && typeof resource === 'object' && 'url' in resource ? resource.url : resource);
  if (init.body != null && typeof init.body !== 'string') throw new TypeError('fetch: body must be a string (use JSON.stringify)');
  const method = String(init.method ?? 'GET').toUpperCase();
  return response(await hostCall('fetch', { url, method, headers: headerPairs(init.headers), body: init.body ?? null }));
};
globalThis.storage = {
  get: (key) => hostCall('storage', { op: 'get', key }),
  set: (key, value) => hostCall('storage', { op: 'set', key, value }),
  delete: (key) => hostCall('storage', { op: 'delete', key }),
  list: (options = {}) => hostCall('storage', { op: 'list', options }),
};
globalThis.api = async function api(method, path, body) {
  const r = await hostCall('api', { method: String(method).toUpperCase(), path: String(path), body });
  const envelope = r.body !== null && typeof r.body === 'object' ? r.body : {};
  return { status: r.status, ok: r.status < 400, data: envelope.data ?? null, error: envelope.error ?? null, body: r.body };
};
globalThis.context = context;

const clip = (text, max) => (text.length > max ? sliceText(text, 0, max) + '…' : text);
function describe(error) {
  try {
    if (error !== null && typeof error === 'object') {
      const stack = error.stack;
      const code = error.code;
      return stringify({
        name: clip(GuestString(error.name ?? 'Error'), 200),
        message: clip(GuestString(error.message ?? ''), meta.maxLogChars),
        stack: typeof stack === 'string' ? clip(stack, meta.maxStackChars) : undefined,
        code: typeof code === 'string' ? clip(code, 200) : undefined,
      });
    }
    return stringify({ name: 'Error', message: clip(GuestString(error), meta.maxLogChars) });
  } catch {
    return stringify({ name: 'Error', message: 'the function threw a value that cannot be described' });
  }
}
let started = false;
Object.defineProperty(globalThis, '__svc_run', {
  value: (app) => {
    if (started) throw new TypeError('__svc_run is called once, by the runtime');
    started = true;
    return (async () => {
      const handlers = app != null ? app[meta.group] : undefined;
      const fn = handlers != null && hasOwn(handlers, meta.name) ? handlers[meta.name] : undefined;
      if (typeof fn !== 'function') return 'M';
      try {
        const value = await fn(input, context);
        const json = value === undefined ? 'null' : stringify(value) ?? 'null';
        return json.length > meta.resultBytes ? 'L' + json.length : 'R' + json;
      } catch (error) {
        return 'E' + describe(error);
      }
    })();
  },
});
return settle;
`;

/** Appended to every bundle: the compiled script ends by running the requested function. */
export const BUNDLE_ENTRY = `\n;__svc_run(typeof __app === 'undefined' ? undefined : __app);\n`;

/** Frames of the app's code carry this file name; the host maps them through the bundle's source map. */
export const BUNDLE_FILENAME = 'app:///bundle.js';
