/**
 * Code run in every new context before the app's bundle (for a warm context, once: `meta.warm` then keeps
 * the bundle's app and runs each call handed to the `dispatch` it returns). It is the only code of ours inside the
 * isolate: it turns the three host functions it is handed (all `ivm.Callback`s taking strings) into the
 * guest globals `console`, `fetch`, `storage`, `api` and `context`, and defines `__svc_run`, which the
 * compiled bundle calls on its last line. It returns `settle`, through which the worker answers host
 * calls (a warm context: `{ settle, dispatch }`); the worker keeps these as References on its side, so
 * nothing but strings and primitives ever crosses into the guest, and the app cannot reach either.
 *
 * `$0` request(seq, op, argsJson) · `$1` log(level, text) · `$2` metaJson · `$3` inputJson · `$4` contextJson
 *
 * A fetch answer's text comes to `settle` as a string of its own (not inside the JSON), and a site's page
 * leaves as `S{status, headers}` + newline + the page: large texts cross without being escaped and parsed.
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
// A warm context serves one call after another: these are the current call's (meta's for a new context).
let target = { group: meta.group, name: meta.name, resultBytes: meta.resultBytes };
let input = parse($3);
let context = parse($4);

// A site's page may be served again without running the code (src/modules/storefront/serving/page-cache.ts)
// only when nothing but the request's address and the buyer API's answers shaped it: each read of the
// clock, of randomness, of the request's headers or of an answer's headers marks the current request.
let volatile = false;
if (meta.site) {
  const GuestDate = Date, construct = Reflect.construct, guestNow = Date.now, guestRandom = Math.random;
  const SiteDate = function Date(...args) {
    if (new.target === undefined) {
      volatile = true;
      return GuestDate();
    }
    if (args.length === 0) volatile = true;
    return construct(GuestDate, args, new.target);
  };
  SiteDate.prototype = GuestDate.prototype;
  GuestDate.prototype.constructor = SiteDate;
  SiteDate.UTC = GuestDate.UTC;
  SiteDate.parse = GuestDate.parse;
  SiteDate.now = function now() {
    volatile = true;
    return guestNow();
  };
  globalThis.Date = SiteDate;
  Math.random = function random() {
    volatile = true;
    return guestRandom();
  };
  // Formatting no date formats the current one.
  if (typeof Intl !== 'undefined') {
    const formats = Intl.DateTimeFormat.prototype;
    const formatOf = Object.getOwnPropertyDescriptor(formats, 'format').get, formatToParts = formats.formatToParts;
    Object.defineProperty(formats, 'format', {
      configurable: true,
      get() {
        const format = formatOf.call(this);
        return (date) => {
          if (date === undefined) volatile = true;
          return format(date);
        };
      },
    });
    formats.formatToParts = function (date) {
      if (date === undefined) volatile = true;
      return formatToParts.call(this, date);
    };
  }
}

const pending = new GuestMap();
// Counted apart from the map, whose methods the app may replace.
let waiting = 0;
let nextSeq = 0;
function refusal(code, message) {
  const error = new GuestError(message);
  error.code = code;
  return error;
}
function hostCall(op, args) {
  return new GuestPromise((resolve, reject) => {
    // The worker refuses the same; refused here, a loop of un-awaited calls stays inside the isolate, where
    // the watchdog stops it, instead of queueing work for the worker's thread faster than it can refuse it.
    if (waiting >= meta.maxOutstanding)
      return reject(refusal('TOO_MANY_REQUESTS', 'At most ' + meta.maxOutstanding + ' fetch/storage/api calls may be pending at once'));
    const json = stringify(args === undefined ? null : args);
    if (json.length > meta.maxRequestChars)
      return reject(refusal('REQUEST_TOO_LARGE', 'A ' + op + ' request may carry at most ' + meta.maxRequestChars + ' characters'));
    const seq = ++nextSeq;
    pending.set(seq, { resolve, reject });
    waiting += 1;
    request(seq, op, json);
  });
}
function settle(seq, ok, json, body) {
  const waiter = pending.get(seq);
  if (!waiter) return;
  pending.delete(seq);
  waiting -= 1;
  const value = parse(json);
  if (ok && typeof body === 'string') value.body = body;
  if (ok) return waiter.resolve(value);
  waiter.reject(refusal(value.code, value.message));
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
    // An answer's headers carry ids of that one request (x-request-id): reading them marks the page volatile.
    headers: {
      get: (name) => ((volatile = true), headers.get(String(name).toLowerCase()) ?? null),
      has: (name) => ((volatile = true), headers.has(String(name).toLowerCase())),
      entries: () => ((volatile = true), headers.entries()),
      forEach: (fn) => ((volatile = true), headers.forEach((value, name) => fn(value, name))),
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
// A storefront's server bundle speaks the web's Request and Response: the smallest faithful subset of
// Headers, URL, URLSearchParams, Request and Response, defined only for site calls.
class Headers {
  #map = new GuestMap();
  constructor(init) { for (const [name, value] of headerPairs(init)) this.append(name, value); }
  get(name) { return this.#map.get(GuestString(name).toLowerCase()) ?? null; }
  has(name) { return this.#map.has(GuestString(name).toLowerCase()); }
  set(name, value) { this.#map.set(GuestString(name).toLowerCase(), GuestString(value)); }
  append(name, value) { const key = GuestString(name).toLowerCase(); const old = this.#map.get(key); this.#map.set(key, old === undefined ? GuestString(value) : old + ', ' + value); }
  delete(name) { this.#map.delete(GuestString(name).toLowerCase()); }
  entries() { return this.#map.entries(); }
  keys() { return this.#map.keys(); }
  values() { return this.#map.values(); }
  forEach(fn) { this.#map.forEach((value, name) => fn(value, name, this)); }
  [Symbol.iterator]() { return this.#map.entries(); }
}
const decode = (text) => { try { return decodeURIComponent(text.replace(/\+/g, ' ')); } catch { return text; } };
const encode = (text) => encodeURIComponent(text).replace(/%20/g, '+');
class URLSearchParams {
  #pairs = [];
  constructor(init = '') {
    if (typeof init === 'string') {
      for (const part of (init.startsWith('?') ? init.slice(1) : init).split('&')) {
        if (part === '') continue;
        const at = part.indexOf('=');
        this.#pairs.push(at < 0 ? [decode(part), ''] : [decode(part.slice(0, at)), decode(part.slice(at + 1))]);
      }
    } else for (const [name, value] of headerPairs(init)) this.#pairs.push([name, value]);
  }
  get(name) { return this.#pairs.find((p) => p[0] === name)?.[1] ?? null; }
  getAll(name) { return this.#pairs.filter((p) => p[0] === name).map((p) => p[1]); }
  has(name) { return this.#pairs.some((p) => p[0] === name); }
  append(name, value) { this.#pairs.push([GuestString(name), GuestString(value)]); }
  set(name, value) { this.delete(name); this.append(name, value); }
  delete(name) { this.#pairs = this.#pairs.filter((p) => p[0] !== name); }
  entries() { return this.#pairs.map((p) => [p[0], p[1]])[Symbol.iterator](); }
  keys() { return this.#pairs.map((p) => p[0])[Symbol.iterator](); }
  forEach(fn) { for (const [name, value] of this.#pairs) fn(value, name, this); }
  [Symbol.iterator]() { return this.entries(); }
  get size() { return this.#pairs.length; }
  toString() { return this.#pairs.map(([n, v]) => encode(n) + '=' + encode(v)).join('&'); }
}
const URL_PARTS = /^([a-zA-Z][a-zA-Z0-9+.-]*:)\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;
function normalizePath(path) {
  const out = [];
  for (const segment of path.split('/').slice(1)) {
    if (segment === '..') out.pop();
    else if (segment !== '.') out.push(segment);
  }
  return '/' + out.join('/');
}
class URL {
  constructor(input, base) {
    let text = GuestString(input);
    if (!URL_PARTS.test(text)) {
      if (base === undefined) throw new TypeError('Invalid URL: ' + text);
      const b = new URL(base);
      if (text.startsWith('//')) text = b.protocol + text;
      else if (text.startsWith('/')) text = b.origin + text;
      else if (text.startsWith('?')) text = b.origin + b.pathname + text;
      else if (text.startsWith('#')) text = b.origin + b.pathname + b.search + text;
      else text = b.origin + b.pathname.replace(/[^/]*$/, '') + text;
    }
    const m = URL_PARTS.exec(text);
    if (!m) throw new TypeError('Invalid URL: ' + text);
    this.protocol = m[1].toLowerCase();
    this.host = m[2].toLowerCase();
    const colon = this.host.lastIndexOf(':');
    this.hostname = colon > 0 && !this.host.endsWith(']') ? this.host.slice(0, colon) : this.host;
    this.port = colon > 0 && !this.host.endsWith(']') ? this.host.slice(colon + 1) : '';
    this.pathname = normalizePath(m[3] || '/');
    this.searchParams = new URLSearchParams(m[4] ?? '');
    this.hash = m[5] && m[5] !== '#' ? m[5] : '';
  }
  get search() { const q = this.searchParams.toString(); return q ? '?' + q : ''; }
  get origin() { return this.protocol + '//' + this.host; }
  get href() { return this.origin + this.pathname + this.search + this.hash; }
  toString() { return this.href; }
  toJSON() { return this.href; }
}
class Request {
  #body;
  constructor(url, init = {}) {
    this.url = GuestString(url);
    this.method = GuestString(init.method ?? 'GET').toUpperCase();
    this.headers = new Headers(init.headers);
    this.#body = init.body ?? null;
  }
  async text() { return this.#body ?? ''; }
  async json() { return parse(this.#body ?? ''); }
  async formData() { return new URLSearchParams(this.#body ?? ''); }
}
class Response {
  #body;
  constructor(body = null, init = {}) {
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? '';
    this.headers = new Headers(init.headers);
    this.#body = body == null ? '' : GuestString(body);
    if (typeof body === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', 'text/plain; charset=utf-8');
  }
  get ok() { return this.status >= 200 && this.status < 300; }
  async text() { return this.#body; }
  async json() { return parse(this.#body); }
  static json(value, init = {}) { const r = new Response(stringify(value), init); r.headers.set('content-type', 'application/json; charset=utf-8'); return r; }
  static redirect(url, status = 302) { return new Response(null, { status, headers: { location: GuestString(url) } }); }
}
// One web request of a site: input is { method, url, headers, body }, the result { status, headers, body }.
async function serveSite(handlers, fn) {
  globalThis.__SVC_ASSETS__ = context.assets;
  const env = { storeId: context.storeId, storefrontApiUrl: context.storefrontApiUrl, siteUrl: context.siteUrl, version: context.version };
  const request = new Request(input.url, input);
  const { headers } = request;
  Object.defineProperty(request, 'headers', {
    get() {
      volatile = true;
      return headers;
    },
  });
  const res = await fn.call(handlers, request, env);
  if (!(res instanceof Response)) throw new TypeError('fetch(request, env) must return a Response');
  return { status: res.status, headers: [...res.headers], body: await res.text(), volatile };
}
// JSON never holds a raw newline: the first one ends the head.
function sitePage({ status, headers, body, volatile }) {
  const head = stringify({ status, headers, volatile });
  const page = GuestString(body);
  return head.length + page.length > target.resultBytes ? 'L' + (head.length + page.length) : 'S' + head + '\n' + page;
}
if (meta.site) Object.assign(globalThis, { Headers, URL, URLSearchParams, Request, Response });

async function runHandler(app) {
  const { group, name, resultBytes } = target;
  const handlers = app != null ? app[group] : undefined;
  const fn = handlers != null && (hasOwn(handlers, name) || group === 'default') ? handlers[name] : undefined;
  if (typeof fn !== 'function') return 'M';
  try {
    if (group === 'default') return sitePage(await serveSite(handlers, fn));
    const value = await fn(input, context);
    const json = value === undefined ? 'null' : stringify(value) ?? 'null';
    return json.length > resultBytes ? 'L' + json.length : 'R' + json;
  } catch (error) {
    return 'E' + describe(error);
  }
}

let started = false;
let warmApp;
Object.defineProperty(globalThis, '__svc_run', {
  value: (app) => {
    if (started) throw new TypeError('__svc_run is called once, by the runtime');
    started = true;
    // A warm context keeps the bundle's app for the calls to come (each through dispatch).
    if (meta.warm) {
      warmApp = app;
      return 'W';
    }
    return runHandler(app);
  },
});
// Not a global: an app calling it could reset its own count of pending host calls.
function dispatch(targetJson, inputJson, contextJson) {
  target = parse(targetJson);
  input = parse(inputJson);
  context = parse(contextJson);
  lines = 0;
  volatile = false;
  // Host calls the previous call left pending are never answered (the worker drops their replies).
  pending.clear();
  waiting = 0;
  globalThis.context = context;
  return runHandler(warmApp);
}
return meta.warm ? { settle, dispatch } : settle;
`;

/**
 * The bootstrap as a script whose value is a function of `$0`…`$4`: compiled once per isolate and run in
 * each new context before any app code (`Reference.apply` then hands it one call's values), rather than
 * compiled again for every call as `evalClosure` would.
 */
export const GUEST_BOOTSTRAP_FUNCTION = `(function ($0, $1, $2, $3, $4) {${GUEST_BOOTSTRAP}})`;
export const BOOTSTRAP_FILENAME = 'svc:///bootstrap.js';

/** Appended to every bundle: the compiled script ends by running the requested function. */
export const BUNDLE_ENTRY = `\n;__svc_run(typeof __app === 'undefined' ? undefined : __app);\n`;

/** Frames of the app's code carry this file name; the host maps them through the bundle's source map. */
export const BUNDLE_FILENAME = 'app:///bundle.js';
