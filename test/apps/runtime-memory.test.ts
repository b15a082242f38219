/** The runtime worker's memory stays bounded: few warm isolates, idle ones disposed, a worker past its ceiling replaced without losing a call. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RuntimeHost, type StorageCallbacks } from '../../src/runtime-host/index.js';
import { toolCall } from '../helpers/runtime-apps.js';

const MB = 1024 * 1024;
const SOURCE = `export const tools = { hold: async (input: { key: string }) => storage.get(input.key), quick: () => 'quick' };`;
let n = 0;
const call = (name: string, input: unknown = {}, installationId = `inst_mem_${++n}`) =>
  toolCall(SOURCE, name, input, { installationId, appId: `app_${installationId}` });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function eventually<T>(check: () => Promise<T | false | undefined> | T | false | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('past its memory ceiling the worker is replaced: calls in flight finish in it exactly once, new calls go to a new worker', async () => {
  // Any worker is past 1 MB: the first call that ends makes it ask to be replaced.
  const host = new RuntimeHost({ recycleRssMb: 1, limits: { cpuMs: 1000, wallMs: 15_000 } });
  const runs = new Map<string, number>();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const storage: StorageCallbacks = {
    get: async (key) => {
      runs.set(key, (runs.get(key) ?? 0) + 1);
      await gate;
      return key;
    },
    set: async () => {},
    delete: async () => true,
    list: async () => ({}),
  };
  try {
    const held = ['a', 'b', 'c', 'd', 'e'].map((key) => host.invoke(call('hold', { key }), { storage }));
    await eventually(() => runs.size === 5, 'five calls waiting in the first worker');
    const first = host.workerPid!;
    const quick = await host.invoke(call('quick'));
    assert.equal(quick.ok && quick.result, 'quick');
    // The ending call made the worker ask; the next call starts a new one while the first still holds five.
    assert.is(host.workerPid, undefined, 'the first worker takes no new calls');
    const next = await host.invoke(call('quick'));
    assert.equal(next.ok && next.result, 'quick');
    const second = host.workerPid!;
    assert.is.not(second, first, 'a new worker took the new call');
    assert.ok(alive(first), 'the old worker lives while its calls run');
    release();
    const results = await Promise.all(held);
    assert.equal(
      results.map((r) => (r.ok ? r.result : r.error.code)),
      ['a', 'b', 'c', 'd', 'e'],
    );
    assert.equal([...runs.values()], [1, 1, 1, 1, 1], 'no call ran twice');
    await eventually(() => !alive(first), 'the old worker stopped after its last call');
  } finally {
    await host.close();
  }
});

test('isolates are bounded: by count, by the heap idle ones hold, and by idle time', async () => {
  const byCount = new RuntimeHost({ maxIsolates: 2 });
  const byHeap = new RuntimeHost({ idleHeapMb: 1 });
  const byTime = new RuntimeHost({ idleIsolateMs: 300 });
  try {
    for (const host of [byCount, byHeap, byTime]) {
      for (let i = 0; i < 5; i++) assert.ok((await host.invoke(call('quick'))).ok);
    }
    assert.is((await byCount.workerStats())!.isolates, 2);
    const heap = (await byHeap.workerStats())!;
    assert.ok(heap.isolates < 5 && heap.idleHeapBytes <= 1 * MB, JSON.stringify(heap));
    assert.ok((await byTime.workerStats())!.isolates > 0, 'warm right after the calls');
    await eventually(async () => (await byTime.workerStats())!.isolates === 0, 'idle isolates disposed');
    assert.ok((await byTime.invoke(call('quick'))).ok, 'a disposed isolate is made again on demand');
  } finally {
    await Promise.all([byCount.close(), byHeap.close(), byTime.close()]);
  }
});

test.run();
