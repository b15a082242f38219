/** RuntimeHost: the bundle contract, host callbacks, the per-app queue, worker crashes and uninstall. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RuntimeCallbackError, RuntimeHost, type StorageCallbacks } from '../../src/runtime-host/index.js';
import { bundle, toolCall } from '../helpers/runtime-apps.js';

let host: RuntimeHost;
let callbackErrors: unknown[] = [];
test.before(() => {
  host = new RuntimeHost({ limits: { cpuMs: 500, wallMs: 5000 }, onCallbackError: (e) => callbackErrors.push(e) });
});
test.after(() => host.close());

/** A storage whose `get` waits until released, to hold calls in flight. */
function heldStorage() {
  let entered = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const storage: StorageCallbacks = {
    get: async () => {
      entered += 1;
      await gate;
      return 'value';
    },
    set: async () => {},
    delete: async () => true,
    list: async () => ({ keys: [] }),
  };
  return { storage, release, entered: () => entered };
}
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

test('a tool gets input and context, returns JSON, and its console lines come back', async () => {
  const source = `export const tools = { 'add-up': async (input: { a: number; b: number }, context: any) => {
    console.log('adding', input.a, input.b);
    console.warn({ store: context.storeId });
    return { sum: input.a + input.b, sameContext: context === (globalThis as any).context };
  } };`;
  const r = await host.invoke(toolCall(source, 'add-up', { a: 2, b: 3 }, { context: { storeId: 'store_9' } }));
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.equal(r.result, { sum: 5, sameContext: true });
  assert.equal(
    r.logs.map((l) => [l.level, l.message]),
    [
      ['log', 'adding 2 3'],
      ['warn', '{"store":"store_9"}'],
    ],
  );
  assert.ok(r.durationMs >= 0);
});

test('every kind has its group; undefined results are null', async () => {
  const source = `
    export const notifications = { 'send-proof': (input: any) => ({ sent: input.orderItemId }) };
    export const schedules = { nightly: () => undefined };
    export const routes = { 'POST /hooks/:id': (req: any) => ({ status: 201, body: req.params.id }) };
    export const events = { 'APP.SCOPES_UPDATED': () => 'ok' };`;
  const call = (kind: any, name: string, input: unknown = {}) =>
    host.invoke({ ...toolCall(source, name, input, { installationId: 'inst_kinds', bundleId: 'kinds' }), kind });
  assert.equal(((await call('notification', 'send-proof', { orderItemId: 'oi_1' })) as any).result, { sent: 'oi_1' });
  assert.equal(((await call('schedule', 'nightly')) as any).result, null);
  assert.equal(((await call('route', 'POST /hooks/:id', { params: { id: 'x' } })) as any).result, { status: 201, body: 'x' });
  assert.equal(((await call('event', 'APP.SCOPES_UPDATED')) as any).result, 'ok');
  const missing = await call('tool', 'send-proof');
  assert.is(!missing.ok && missing.error.code, 'HANDLER_MISSING');
  assert.match(!missing.ok ? missing.error.message : '', '__app.tools["send-proof"]');
});

test('APP_ERROR carries the message and a stack mapped to the app source; syntax errors too', async () => {
  const source = `function check(n: number) {\n  if (n > 1) throw new TypeError('n too big: ' + n);\n}\nexport const tools = { t: (i: { n: number }) => check(i.n) };`;
  const r = await host.invoke(toolCall(source, 't', { n: 5 }));
  assert.is(!r.ok && r.error.code, 'APP_ERROR');
  if (r.ok) return;
  assert.is(r.error.message, 'TypeError: n too big: 5');
  const lines = r.error.stack!.split('\n');
  assert.is(lines[0], 'TypeError: n too big: 5');
  assert.match(lines[1], /at check \(src\/app\.ts:2:\d+\)/);
  assert.not.match(r.error.stack!, 'bootstrap', 'runtime frames are left out');

  const broken = await host.invoke({ ...toolCall('export const tools = {}', 't'), bundleId: 'broken', bundleCode: 'var __app = {;' });
  assert.is(!broken.ok && broken.error.code, 'APP_ERROR');
  assert.match(!broken.ok ? broken.error.message : '', 'SyntaxError');
});

test('storage and api calls go to the callbacks; RuntimeCallbackError codes reach the guest, other errors do not', async () => {
  const saved = new Map<string, unknown>();
  const storage: StorageCallbacks = {
    get: async (key) => saved.get(key) ?? null,
    set: async (key, value) => {
      if (key === 'full') throw new RuntimeCallbackError('APP_STORAGE_QUOTA_EXCEEDED', 'at most 1,000 keys per installation');
      saved.set(key, value);
    },
    delete: async (key) => saved.delete(key),
    list: async (options) => ({ keys: [...saved.keys()].filter((k) => k.startsWith(options.prefix ?? '')), nextCursor: null }),
  };
  const api = async (request: { method: string; path: string; body?: unknown }) => {
    if (request.path === '/v1/boom') throw new Error('SQLITE_BUSY: database is locked at /secret/path');
    return { status: 200, body: { meta: { status: 200 }, data: { echo: request }, error: null } };
  };
  const source = `export const tools = { t: async () => {
    await storage.set('a:1', { n: 1 });
    const got = await storage.get('a:1');
    const listed = await storage.list({ prefix: 'a:' });
    const quota = await storage.set('full', 1).catch((e: any) => [e.code, e.message]);
    const removed = await storage.delete('a:1');
    const products = await api('get', '/v1/products?limit=1');
    const hidden = await api('POST', '/v1/boom', {}).catch((e: any) => [e.code, e.message]);
    return { got, listed, quota, removed, products: products.data, ok: products.ok, hidden };
  } };`;
  const r = await host.invoke(toolCall(source, 't'), { storage, api });
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.ok && r.result, {
    got: { n: 1 },
    listed: { keys: ['a:1'], nextCursor: null },
    quota: ['APP_STORAGE_QUOTA_EXCEEDED', 'at most 1,000 keys per installation'],
    removed: true,
    products: { echo: { method: 'GET', path: '/v1/products?limit=1' } },
    ok: true,
    hidden: ['HOST_ERROR', 'api failed'],
  });
  assert.match(String(callbackErrors.at(-1)), 'SQLITE_BUSY', 'the server hears about its own failure');
});

test('a value nested deeper than 64 levels is refused before any callback runs (TOO_DEEP); 64 pass', async () => {
  const saved: unknown[] = [];
  const storage: StorageCallbacks = {
    get: async () => null,
    set: async (_key, value) => void saved.push(value),
    delete: async () => true,
    list: async () => ({}),
  };
  const source = `const nest = (n: number): unknown => (n === 0 ? 1 : [nest(n - 1)]);
  export const tools = { t: async () => [
    await storage.set('deep', nest(5000)).catch((e: any) => e.code),
    await storage.set('ok', nest(64)).then(() => 'stored'),
  ] };`;
  const r = await host.invoke(toolCall(source, 't'), { storage });
  assert.equal(r.ok && r.result, ['TOO_DEEP', 'stored']);
  assert.is(saved.length, 1);
});

test('at most 32 host calls of one invocation wait at once; more are refused, not queued', async () => {
  // Answers come late, so all 40 are asked while the first are still pending.
  const storage: StorageCallbacks = {
    get: (k) => new Promise((r) => setTimeout(() => r(k), 100)),
    set: async () => {},
    delete: async () => true,
    list: async () => null,
  };
  const source = `export const tools = { t: async () => {
    const all = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => storage.get('k' + i)));
    return { ok: all.filter((r) => r.status === 'fulfilled').length, refused: [...new Set(all.flatMap((r) => (r.status === 'rejected' ? [(r.reason as any).code] : [])))] };
  } };`;
  const r = await host.invoke(toolCall(source, 't'), { storage });
  assert.equal(r.ok && r.result, { ok: 32, refused: ['TOO_MANY_REQUESTS'] });
});

test('the 21st concurrent call of an app is queued, not refused, and runs when one finishes', async () => {
  const held = heldStorage();
  const source = `export const tools = { t: async (i: { n: number }) => { await storage.get('k'); return i.n; } };`;
  const base = toolCall(source, 't', {}, { appId: 'app_busy', installationId: 'inst_busy', bundleId: 'busy' });
  const calls = Array.from({ length: 21 }, (_, n) => host.invoke({ ...base, input: { n } }, { storage: held.storage }));
  await until(() => held.entered() === 20);
  await new Promise((r) => setTimeout(r, 150));
  assert.is(held.entered(), 20, 'only 20 run at once');
  const other = await host.invoke(toolCall(`export const tools = { t: () => 'free' }`, 't', {}, { appId: 'app_other' }));
  assert.equal(other.ok && other.result, 'free', 'another app is not held up');
  held.release();
  const results = await Promise.all(calls);
  assert.equal(
    results.map((r) => r.ok && r.result),
    Array.from({ length: 21 }, (_, n) => n),
  );
  assert.is(held.entered(), 21);
});

test('worker killed mid-call: RUNTIME_CRASHED, and the next call runs in a new worker', async () => {
  const held = heldStorage();
  const source = `export const tools = { t: async () => storage.get('k'), u: () => 'alive' };`;
  const call = host.invoke(toolCall(source, 't', {}, { installationId: 'inst_crash', bundleId: 'crash' }), { storage: held.storage });
  await until(() => held.entered() === 1);
  const pid = host.workerPid!;
  process.kill(pid, 'SIGKILL');
  const r = await call;
  assert.is(!r.ok && r.error.code, 'RUNTIME_CRASHED');
  held.release();
  const next = await host.invoke(toolCall(source, 'u', {}, { installationId: 'inst_crash', bundleId: 'crash' }));
  assert.equal(next.ok && next.result, 'alive');
  assert.is.not(host.workerPid, pid);
});

test('evictInstallation: running and queued calls are rejected at once; other installations go on', async () => {
  const held = heldStorage();
  const source = `export const tools = { t: async () => storage.get('k') };`;
  const mine = toolCall(source, 't', {}, { appId: 'app_evict', installationId: 'inst_evict', bundleId: 'evict' });
  const running = Array.from({ length: 20 }, () => host.invoke(mine, { storage: held.storage }));
  await until(() => held.entered() === 20);
  const queued = host.invoke(mine, { storage: held.storage });
  host.evictInstallation('inst_evict');
  // The held storage is released only afterwards: every call settling proves they were rejected, not finished.
  const results = await Promise.all([...running, queued]);
  assert.ok(results.every((r) => !r.ok && r.error.code === 'INSTALLATION_EVICTED'));
  held.release();
  const after = await host.invoke(toolCall(`export const tools = { t: () => 1 }`, 't', {}, { appId: 'app_evict', installationId: 'inst_other' }));
  assert.equal(after.ok && after.result, 1);
});

test("a site's warm contexts: each request sees only its own input, context, logs and host answers, and another store's site never shares them", async () => {
  // Module state of the bundle lives on between requests of one version (as in edge runtimes); the runtime's
  // per-request state must not: a request left waiting on a host answer, then dropped, leaks nothing into the next.
  const { code } = bundle(`let served = 0;
    export default { async fetch(request: Request, env: any) {
      served += 1;
      const visitor = request.headers.get('x-visitor');
      console.log('visitor', visitor);
      const contextSeen = JSON.stringify((globalThis as any).context);
      if (visitor === 'slow') { fetch('http://site.test/storefront/v1/late'); return new Response('left a fetch pending'); }
      const answer = await (await fetch('http://site.test/storefront/v1/me')).text();
      return new Response(JSON.stringify({ served, visitor, store: env.storeId, contextSeen, answer, url: request.url }));
    } };`);
  const site = (storeId: string, visitor: string) =>
    host.invoke(
      {
        installationId: `site:${storeId}`,
        appId: `site:${storeId}`,
        bundleId: 'site_bundle',
        bundleCode: code,
        kind: 'site',
        name: 'fetch',
        input: { method: 'GET', url: `http://site.test/${visitor}`, headers: [['x-visitor', visitor]], body: null },
        context: { storeId, visitor },
      },
      { fetch: async (request) => ({ status: 200, statusText: 'OK', url: request.url, headers: [], body: `answer for ${visitor} of ${storeId}` }) },
    );
  const page = async (storeId: string, visitor: string) => {
    const r = await site(storeId, visitor);
    assert.ok(r.ok, JSON.stringify(r));
    if (!r.ok) throw new Error('failed');
    return { body: (r.result as { body: string }).body, logs: r.logs.map((l) => l.message) };
  };
  const slow = await page('store_a', 'slow');
  assert.equal(slow.logs, ['visitor slow']);
  for (const visitor of ['ann', 'bob', 'cho']) {
    const { body, logs } = await page('store_a', visitor);
    const seen = JSON.parse(body);
    assert.equal(logs, [`visitor ${visitor}`], "only this request's console lines");
    assert.equal([seen.visitor, seen.store, seen.url], [visitor, 'store_a', `http://site.test/${visitor}`]);
    assert.equal(JSON.parse(seen.contextSeen), { storeId: 'store_a', visitor }, "the global context is this request's");
    assert.is(seen.answer, `answer for ${visitor} of store_a`, 'host answers go to the request that asked, never to a later one');
  }
  const other = JSON.parse((await page('store_b', 'dan')).body);
  assert.is(other.served, 1, "another store's site runs in its own isolate: none of store A's state");
  assert.equal([other.store, other.answer], ['store_b', 'answer for dan of store_b']);
});

test("an installation's tool calls share warm contexts: each call runs its own function with its own input, context, logs and host answers; another store's installation shares nothing", async () => {
  const source = `let calls = 0;
    export const tools = {
      who: async (input: { caller: string }, context: any) => {
        calls += 1;
        console.log('caller', input.caller);
        if (input.caller === 'slow') { storage.get('late'); return 'left a host call pending'; }
        const answer = await storage.get(input.caller);
        return { calls, caller: input.caller, store: context.storeId, seen: (globalThis as any).context.caller, answer };
      },
      count: () => calls,
    };`;
  const call = (name: string, caller: string, installationId: string, storeId: string) =>
    host.invoke(toolCall(source, name, { caller }, { installationId, bundleId: 'warm_tools', context: { storeId, caller } }), {
      storage: { get: async (key) => `answer for ${key} of ${storeId}`, set: async () => {}, delete: async () => true, list: async () => ({ keys: [] }) },
    });
  const slow = await call('who', 'slow', 'inst_warm_a', 'store_a');
  assert.equal(slow.ok && slow.logs.map((l) => l.message), ['caller slow']);
  for (const caller of ['ann', 'bob']) {
    const r = await call('who', caller, 'inst_warm_a', 'store_a');
    assert.ok(r.ok, JSON.stringify(r));
    const seen = r.ok ? (r.result as Record<string, unknown>) : {};
    assert.equal([seen.caller, seen.store, seen.seen, seen.answer], [caller, 'store_a', caller, `answer for ${caller} of store_a`]);
    assert.equal(
      r.logs.map((l) => l.message),
      [`caller ${caller}`],
      "only this call's console lines",
    );
  }
  const counted = await call('count', '', 'inst_warm_a', 'store_a');
  assert.ok(counted.ok && typeof counted.result === 'number', 'another function of the bundle answers from a warm context');
  const other = await call('count', '', 'inst_warm_b', 'store_b');
  assert.equal(other.ok && other.result, 0, "another store's installation runs in its own isolate: none of store A's state");
});

test.run();
