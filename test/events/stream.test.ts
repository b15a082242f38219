import { createHmac } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transaction } from '../../src/db/client.js';
import { verifyWebhook } from '../../src/index.js';
import { newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

setFlagsFromString('--expose-gc');
/** V8's collector, so the memory test counts what is retained, not garbage not yet collected. */
const collectGarbage = runInNewContext('gc') as () => void;

/** Array-buffer memory above `base` once two samples 200 ms apart, each after a collection, agree within 512 KB. */
async function settledMemory(base: number): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let sample = 0; sample < 25; sample++) {
    await new Promise((ok) => setTimeout(ok, 200));
    collectGarbage();
    const held = process.memoryUsage().arrayBuffers - base;
    if (Math.abs(held - last) < 512 * 1024) return held;
    last = held;
  }
  return last;
}

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => svc.close());

/** Opens the SSE stream and collects parsed messages. */
async function openStream(query = '', headers: Record<string, string> = {}, token = svc.ownerToken, storeId = svc.storeId) {
  const controller = new AbortController();
  const res = await fetch(`${svc.url}/v1/events/stream${query}`, {
    headers: { authorization: `Bearer ${token}`, 'x-store-id': storeId, ...headers },
    signal: controller.signal,
  });
  const messages: { id: string; event: string; data: any }[] = [];
  if (res.ok) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of res.body!) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const fields = Object.fromEntries(
              block
                .split('\n')
                .filter((l) => !l.startsWith(':'))
                .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
            );
            if (fields.data) messages.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) });
          }
        }
      } catch {
        // aborted by the test
      }
    })();
  }
  const waitFor = async (n: number) => {
    const until = Date.now() + 3000;
    while (messages.length < n) {
      if (Date.now() > until) throw new Error(`stream got ${messages.length} of ${n}`);
      await new Promise((ok) => setTimeout(ok, 20));
    }
    return messages;
  };
  return { res, messages, waitFor, close: () => controller.abort() };
}

const emit = (type: string, api = svc.api) => api('POST', '/_dev/v1/events', { body: { type } });

test('the stream carries new events of the store as webhook bodies, filtered by type, resumable', async () => {
  await emit('ORDER.PAID'); // before the stream opened: not replayed
  const all = await openStream();
  assert.is(all.res.status, 200);
  assert.match(all.res.headers.get('content-type')!, /^text\/event-stream/);
  const paidOnly = await openStream('?types=ORDER.PAID');
  const other = await newSellerWithStore(svc, 'streamer');
  const foreign = await openStream('', {}, other.token, other.storeId);

  const paid = (await emit('ORDER.PAID')).data;
  await emit('REVIEW.CREATED');
  const messages = await all.waitFor(2);
  assert.equal(
    messages.map((m) => m.event),
    ['ORDER.PAID', 'REVIEW.CREATED'],
  );
  assert.is(messages[0].data.id, paid.eventId);
  assert.is(messages[0].data.storeId, svc.storeId);
  assert.is(messages[0].data.sequence, 1);
  assert.equal(
    (await paidOnly.waitFor(1)).map((m) => m.event),
    ['ORDER.PAID'],
  );
  await new Promise((ok) => setTimeout(ok, 100));
  assert.is(paidOnly.messages.length, 1);
  assert.is(foreign.messages.length, 0);

  const resumed = await openStream('', { 'last-event-id': messages[0].id });
  assert.equal(
    (await resumed.waitFor(1)).map((m) => m.data.id),
    [messages[1].data.id],
  );
  for (const s of [all, paidOnly, foreign, resumed]) s.close();
  // A client that goes away frees its stream (listener and heartbeat) on the server: streams are the bus's only listeners.
  const { eventBus } = await import('../../src/modules/events/outbox.js');
  await new Promise((ok) => setTimeout(ok, 100));
  assert.is(eventBus(svc.services.db).listenerCount('event'), 0);
});

test('the stream needs a token, a store and webhook:r; bad filters are 400', async () => {
  const anonymous = await fetch(`${svc.url}/v1/events/stream`, { headers: { 'x-store-id': svc.storeId } });
  assert.is(anonymous.status, 401);
  assert.is((await anonymous.json()).meta.code, 'UNAUTHORIZED');
  const bad = await openStream('?types=NOPE');
  assert.is(bad.res.status, 400);
  assert.is((await bad.res.json()).meta.code, 'VALIDATION_FAILED');
  const unknown = await openStream('?since=1');
  assert.is(unknown.res.status, 400);
  const other = await newSellerWithStore(svc, 'outsider');
  const foreign = await openStream('', {}, other.token, svc.storeId);
  assert.is(foreign.res.status, 403);
});

test('verifyWebhook: valid, tampered, stale, rotated, malformed — on raw bytes', () => {
  const secret = 'whsec_test';
  const body = Buffer.from('{"id":"evt_1","data":{"name":"김"}}');
  const t = 1_800_000_000;
  const v1 = (s: string, b: Buffer | string = body) => createHmac('sha256', s).update(`${t}.`).update(b).digest('hex');
  const now = t * 1000 + 60_000;
  assert.equal(verifyWebhook({ secret, header: `t=${t},v1=${v1(secret)}`, body, now }), { valid: true, timestamp: t });
  assert.ok(verifyWebhook({ secret, header: `t=${t},v1=${v1(secret)}`, body: body.toString('utf8'), now }).valid);
  assert.ok(verifyWebhook({ secret, header: `t=${t},v1=${v1('whsec_new')},v1=${v1(secret)}`, body, now }).valid);
  assert.ok(verifyWebhook({ secret: ['whsec_new', secret], header: `t=${t},v1=${v1(secret)}`, body, now }).valid);
  assert.is(verifyWebhook({ secret, header: `t=${t},v1=${v1(secret)}`, body: Buffer.from('{"id":"evt_2"}'), now }).valid, false);
  const stale = verifyWebhook({ secret, header: `t=${t},v1=${v1(secret)}`, body, now: t * 1000 + 301_000 });
  assert.equal(stale, { valid: false, reason: 'TIMESTAMP_OUT_OF_TOLERANCE', timestamp: t });
  assert.ok(verifyWebhook({ secret, header: `t=${t},v1=${v1(secret)}`, body, now: t * 1000 + 301_000, toleranceSeconds: 600 }).valid);
  assert.is(verifyWebhook({ secret: 'whsec_other', header: `t=${t},v1=${v1(secret)}`, body, now }).valid, false);
  for (const header of ['', 'garbage', `v1=${v1(secret)}`, `t=${t}`, `t=abc,v1=${v1(secret)}`, `t=${t},v1=zz`]) {
    const r = verifyWebhook({ secret, header, body, now });
    assert.equal(r, { valid: false, reason: 'MALFORMED_HEADER', timestamp: null }, header);
  }
});

test('a client that stops reading costs the server no memory; reading again, it gets every event in order', async () => {
  const { emitEvent } = await import('../../src/modules/events/outbox.js');
  const res = await new Promise<IncomingMessage>((ok, fail) =>
    httpGet(`${svc.url}/v1/events/stream`, { headers: { authorization: `Bearer ${svc.ownerToken}`, 'x-store-id': svc.storeId } }, ok).on('error', fail),
  );
  assert.is(res.statusCode, 200);
  res.pause(); // the socket is no longer read: the kernel's buffers fill, then the server's writes wait

  const EVENTS = 1500;
  const blob = 'x'.repeat(20_000); // 30 MB of events in all, far beyond the socket buffers
  await transaction(svc.services.db, async () => {
    for (let n = 0; n < EVENTS; n++)
      await emitEvent(svc.services.db, Date.now(), { storeId: svc.storeId, type: 'ORDER.PAID', resource: null, data: { n, blob } });
  });
  // Retained memory only, counted from the commit that wakes the stream, once it settles: the stream hears
  // of the events, reads them page by page and fills its queue, and PostgreSQL's client buffers of a page
  // in flight are garbage once it stalls. A stream that kept reading would settle at the whole 30 MB.
  collectGarbage();
  const before = process.memoryUsage().arrayBuffers;
  const held = await settledMemory(before);
  assert.ok(held < 8 * 1024 * 1024, `a stalled stream holds ${(held / 1048576).toFixed(1)} MB`);

  const seen: number[] = [];
  let buffer = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .find((line) => line.startsWith('data: '));
      buffer = buffer.slice(end + 2);
      if (data) seen.push(JSON.parse(data.slice(6)).data.n);
    }
  });
  res.resume();
  const until = Date.now() + 10_000;
  while (seen.length < EVENTS && Date.now() < until) await new Promise((ok) => setTimeout(ok, 20));
  res.destroy();
  assert.is(seen.length, EVENTS);
  assert.ok(
    seen.every((n, i) => n === i),
    'in order, none lost, none twice',
  );
});

test.run();
