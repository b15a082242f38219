/**
 * Hostile app functions (issue 6 §6): each is contained with its own error code, the installation's next
 * call runs in a fresh isolate, and the server keeps answering meanwhile.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RuntimeHost, type InvokeResult } from '../../src/runtime-host/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { toolCall } from '../helpers/runtime-apps.js';

let svc: TestService;
let host: RuntimeHost;
test.before(async () => {
  svc = await startTestService();
  // CPU time, not wall time, decides these cases: a generous wall limit keeps them exact on a busy machine.
  host = new RuntimeHost({ limits: { cpuMs: 300, wallMs: 15_000 } });
});
test.after(async () => {
  await host?.close();
  await svc?.close();
});

const failedWith = (r: InvokeResult, code: string) => {
  assert.is(r.ok, false, r.ok ? 'the call succeeded' : '');
  if (!r.ok) assert.is(r.error.code, code, JSON.stringify(r.error));
};

/** The same installation and bundle answer normally after the hostile call. */
async function stillWorks(installationId: string) {
  const r = await host.invoke(toolCall(`export const tools = { ping: () => 'pong' }`, 'ping', {}, { installationId }));
  assert.equal(r.ok && r.result, 'pong', r.ok ? '' : JSON.stringify(r.error));
}

test('infinite loop: CPU_LIMIT while the server keeps serving', async () => {
  // 1.5 s of CPU time can take longer than the suite's 15 s of wall time when a dozen runs share two cores.
  const limits = { cpuMs: 1500, wallMs: 60_000 };
  const call = host.invoke(toolCall(`export const tools = { spin: () => { for (;;) {} } }`, 'spin', {}, { installationId: 'inst_loop', limits }));
  await new Promise((r) => setTimeout(r, 200));
  // The server answers while the loop still runs: its answer comes before the call ends at the CPU limit.
  const store = svc.api('GET', '/v1/store');
  assert.is(await Promise.race([store.then(() => 'server'), call.then(() => 'loop')]), 'server');
  assert.is((await store).status, 200);
  const r = await call;
  failedWith(r, 'CPU_LIMIT');
  assert.match(!r.ok ? r.error.message : '', '1500 ms of CPU');
  await stillWorks('inst_loop');
});

test('memory bomb: MEMORY_LIMIT, and a fresh isolate next call', async () => {
  const r = await host.invoke(
    toolCall(
      `export const tools = { bomb: () => { const a: number[][] = []; for (;;) a.push(new Array(100000).fill(1)); } }`,
      'bomb',
      {},
      { installationId: 'inst_mem', limits: { cpuMs: 5000 } },
    ),
  );
  failedWith(r, 'MEMORY_LIMIT');
  assert.match(!r.ok ? r.error.message : '', '64 MB');
  await stillWorks('inst_mem');
});

test('deep recursion: APP_ERROR with the RangeError, stack mapped to the source', async () => {
  const r = await host.invoke(
    toolCall(`const down = (n: number): number => down(n + 1) + 1;\nexport const tools = { deep: () => down(0) };`, 'deep', {}, { installationId: 'inst_rec' }),
  );
  failedWith(r, 'APP_ERROR');
  if (!r.ok) {
    assert.is(r.error.message, 'RangeError: Maximum call stack size exceeded');
    assert.match(r.error.stack ?? '', 'at down (src/app.ts:1:');
  }
  await stillWorks('inst_rec');
});

test('huge result: RESULT_TOO_LARGE at 64 KB of JSON; exactly 64 KB passes', async () => {
  // Encoding 10 MB takes CPU time of its own; on a busy machine more than the suite's 300 ms.
  failedWith(
    await host.invoke(toolCall(`export const tools = { big: () => 'x'.repeat(10_000_000) }`, 'big', {}, { limits: { cpuMs: 3000 } })),
    'RESULT_TOO_LARGE',
  );
  // JSON of a string adds two quotes; multi-byte characters count as UTF-8 bytes.
  failedWith(await host.invoke(toolCall(`export const tools = { big: () => 'é'.repeat(32768) }`, 'big')), 'RESULT_TOO_LARGE');
  const exact = await host.invoke(toolCall(`export const tools = { big: () => 'x'.repeat(65534) }`, 'big'));
  assert.is(exact.ok, true);
});

test('while(true) inside a promise: CPU_LIMIT', async () => {
  const r = await host.invoke(
    toolCall(`export const tools = { spin: () => new Promise(() => { for (;;) {} }) }`, 'spin', {}, { installationId: 'inst_promise' }),
  );
  failedWith(r, 'CPU_LIMIT');
  const later = await host.invoke(
    toolCall(`export const tools = { spin: async () => { await null; await Promise.resolve(); for (;;) {} } }`, 'spin', {}, { installationId: 'inst_promise' }),
  );
  failedWith(later, 'CPU_LIMIT');
  await stillWorks('inst_promise');
});

test('while(true) after an awaited host call (not covered by `timeout`): CPU_LIMIT', async () => {
  const storage = { get: async () => 'v', set: async () => {}, delete: async () => true, list: async () => [] };
  const r = await host.invoke(
    toolCall(`export const tools = { spin: async () => { await storage.get('k'); for (;;) {} } }`, 'spin', {}, { installationId: 'inst_after' }),
    { storage },
  );
  failedWith(r, 'CPU_LIMIT');
  await stillWorks('inst_after');
});

test('a flood of un-awaited host calls: refused past 32, stopped at the CPU limit', async () => {
  let calls = 0;
  const storage = { get: () => (calls++, new Promise<never>(() => {})), set: async () => {}, delete: async () => true, list: async () => [] };
  const r = await host.invoke(toolCall(`export const tools = { flood: () => { for (;;) storage.get('k'); } }`, 'flood', {}, { installationId: 'inst_flood' }), {
    storage,
  });
  failedWith(r, 'CPU_LIMIT');
  assert.is(calls, 32, 'no more than 32 reached the server');
  assert.is((await svc.api('GET', '/v1/store')).status, 200);
  await stillWorks('inst_flood');
});

test('a host call that never answers: TIMEOUT at the wall-clock limit', async () => {
  const storage = { get: () => new Promise<never>(() => {}), set: async () => {}, delete: async () => true, list: async () => [] };
  // The host call never answers, so only the wall-clock limit can end this call.
  const r = await host.invoke(
    toolCall(`export const tools = { wait: async () => storage.get('k') }`, 'wait', {}, { installationId: 'inst_wait', limits: { wallMs: 400 } }),
    { storage },
  );
  failedWith(r, 'TIMEOUT');
  await stillWorks('inst_wait');
});

test("prototype tampering stays in its installation's context: another store's installation, and the call after a failure, are unaffected", async () => {
  const source = `
    const tamper = () => {
      (Object.prototype as any).polluted = 'yes';
      Array.prototype.map = () => ['hacked'] as any;
      JSON.stringify = () => '"hacked"';
      (globalThis as any).leftover = 1;
    };
    export const tools = {
      tamper: () => (tamper(), { done: true }),
      tamperAndFail: () => {
        tamper();
        throw new Error('after tampering');
      },
      check: () => ({ polluted: ({} as any).polluted ?? null, map: [1, 2].map((x) => x * 2), leftover: (globalThis as any).leftover ?? null }),
    };`;
  const call = (name: string, installationId: string, storeId: string) =>
    host.invoke(toolCall(source, name, {}, { installationId, bundleId: 'proto', context: { storeId } }));
  const clean = { polluted: null, map: [2, 4], leftover: null };
  const tamper = await call('tamper', 'inst_proto', 'store_1');
  assert.equal(tamper.ok && tamper.result, { done: true }, 'the result is encoded with the JSON captured before the app ran');
  // Calls of one installation may share a context (docs/decisions.md); another installation never does.
  const other = await call('check', 'inst_proto_other', 'store_2');
  assert.equal(other.ok && other.result, clean, "another store's installation of the same bundle");
  failedWith(await call('tamperAndFail', 'inst_proto_failed', 'store_3'), 'APP_ERROR');
  const afterFailure = await call('check', 'inst_proto_failed', 'store_3');
  assert.equal(afterFailure.ok && afterFailure.result, clean, 'the context of a failed call is dropped');
  assert.is(({} as any).polluted, undefined, 'the server realm is untouched');
});

/** Peak resident memory of a process so far (Linux), in MB. */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

test('log amplification: with Array/String prototypes replaced, lines stay 200 of 2,100 characters and the worker does not grow', async () => {
  // A worker of its own: its peak memory must not include other tests' memory bombs.
  const own = new RuntimeHost({ limits: { cpuMs: 1000, wallMs: 15_000 } });
  try {
    await own.invoke(toolCall(`export const tools = { ping: () => 'pong' }`, 'ping'));
    const pid = own.workerPid!;
    const before = peakRssMb(pid);
    const source = `export const tools = { flood: () => {
      const big = 'x'.repeat(8 * 1024 * 1024);
      (Array.prototype as any).map = function () { return { join: () => big }; };
      (Array.prototype as any).join = () => big;
      (String.prototype as any).slice = () => big;
      (globalThis as any).String = () => big;
      for (let i = 0; i < 300; i++) { console.log('a', 'b'); console.error(big, { big }); }
      throw Object.assign(new Error(big), { code: big });
    } };`;
    const r = await own.invoke(toolCall(source, 'flood'));
    failedWith(r, 'APP_ERROR');
    assert.ok(!r.ok && r.error.message.length <= 2100, 'the error message is clipped');
    assert.is(r.logs.length, 200);
    assert.ok(
      r.logs.every((l) => l.message.length <= 2100),
      `longest line: ${Math.max(...r.logs.map((l) => l.message.length))}`,
    );
    const grown = peakRssMb(pid) - before;
    // The isolate's own heap (64 MB at most) lives in the worker; 200 copies of 8 MB would not fit under this.
    assert.ok(grown < 200, `the worker's peak memory grew by ${Math.round(grown)} MB`);
  } finally {
    await own.close();
  }
});

test('no Node APIs and no way to host objects from the guest', async () => {
  const source = `
    export const tools = {
      probe: (input: unknown, ctx: any) => {
        const g = globalThis as any;
        const viaCallback = (console.log as any).constructor('return this')();
        const viaFetch = (fetch as any).constructor.constructor('return typeof process')();
        ctx.storeId = 'changed';
        return {
          process: typeof g.process, require: typeof g.require, Buffer: typeof g.Buffer, ivm: typeof g.ivm,
          setTimeout: typeof g.setTimeout, sameGlobal: viaCallback === globalThis, viaFetch,
          globals: Object.getOwnPropertyNames(globalThis).filter((k) => /^[a-z]/.test(k)).sort(),
        };
      },
    };`;
  const context = { storeId: 'store_1' };
  const r = await host.invoke(toolCall(source, 'probe', {}, { context }));
  assert.ok(r.ok, JSON.stringify(r));
  const result = r.ok ? (r.result as any) : {};
  assert.equal(
    {
      process: result.process,
      require: result.require,
      Buffer: result.Buffer,
      ivm: result.ivm,
      setTimeout: result.setTimeout,
      sameGlobal: result.sameGlobal,
      viaFetch: result.viaFetch,
    },
    { process: 'undefined', require: 'undefined', Buffer: 'undefined', ivm: 'undefined', setTimeout: 'undefined', sameGlobal: true, viaFetch: 'undefined' },
  );
  for (const name of ['api', 'console', 'context', 'fetch', 'storage']) assert.ok(result.globals.includes(name), name);
  assert.is(context.storeId, 'store_1', 'the context was copied in');
});

test.run();
