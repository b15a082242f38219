/** The guest's fetch: only declared hosts, only public addresses (checked at connect), clear errors. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createGuardedFetch, RuntimeHost } from '../../src/runtime-host/index.js';
import { toolCall } from '../helpers/runtime-apps.js';

let host: RuntimeHost;
let server: Server;
let port: number;
test.before(async () => {
  host = new RuntimeHost({ limits: { cpuMs: 500, wallMs: 3000 } });
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-seen-method', req.method ?? '');
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.end(JSON.stringify({ path: req.url, body, host: req.headers.host })));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
test.after(async () => {
  await host.close();
  server.close();
});

/** Everything resolves to loopback, as a rebinding or internal name would. */
const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
const fetchTool = `export const tools = { get: async (input: { url: string }) => { const r = await fetch(input.url); return { status: r.status, body: await r.json() }; } };`;

test('fetch to an undeclared host: FETCH_BLOCKED, naming the host and the manifest key', async () => {
  const fetch = createGuardedFetch({ hosts: ['api.partner.example'], resolve: toLoopback });
  const r = await host.invoke(toolCall(fetchTool, 'get', { url: 'https://evil.example/steal' }), { fetch });
  assert.is(r.ok, false);
  if (!r.ok) {
    assert.is(r.error.code, 'FETCH_BLOCKED');
    assert.match(r.error.message, 'evil.example is not allowed: add it to network.hosts');
  }
});

test('fetch to a declared host that resolves to 127.0.0.1: FETCH_BLOCKED', async () => {
  const fetch = createGuardedFetch({ hosts: ['api.partner.example'], resolve: toLoopback });
  const r = await host.invoke(toolCall(fetchTool, 'get', { url: `https://api.partner.example:${port}/x` }), { fetch });
  assert.is(r.ok, false);
  if (!r.ok) {
    assert.is(r.error.code, 'FETCH_BLOCKED');
    assert.match(r.error.message, 'private or reserved address (127.0.0.1)');
  }
});

test('a declared IP literal in a private range, plain http, user info: all blocked', async () => {
  const fetch = createGuardedFetch({ hosts: ['10.0.0.1', 'api.partner.example'] });
  for (const url of ['https://10.0.0.1/', 'http://api.partner.example/', 'https://user:pw@api.partner.example/']) {
    const r = await host.invoke(toolCall(fetchTool, 'get', { url }), { fetch });
    assert.is(!r.ok && r.error.code, 'FETCH_BLOCKED', url);
  }
});

test('IPv6 spellings of internal IPv4 addresses are blocked, as literals and as DNS answers (one check with webhooks)', async () => {
  const forms = ['::ffff:0:7f00:1', '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '2002:a00:1::1', '2001:0:4136:e378:8000:63bf:80ff:fffe'];
  const literal = createGuardedFetch({ hosts: forms });
  for (const form of forms) {
    const url = `https://[${form}]:${port}/`;
    const r = await host.invoke(toolCall(fetchTool, 'get', { url }), { fetch: literal });
    assert.is(!r.ok && r.error.code, 'FETCH_BLOCKED', url);
  }
  const translated = createGuardedFetch({ hosts: ['api.partner.example'], resolve: async () => [{ address: '::ffff:0:7f00:1', family: 6 }] });
  const r = await host.invoke(toolCall(fetchTool, 'get', { url: `https://api.partner.example:${port}/` }), { fetch: translated });
  assert.is(!r.ok && r.error.code, 'FETCH_BLOCKED');
  if (!r.ok) assert.match(r.error.message, 'private or reserved address (::ffff:0:7f00:1)');
});

test('the guest can catch a blocked fetch: an Error with code FETCH_BLOCKED, and the call succeeds', async () => {
  const fetch = createGuardedFetch({ hosts: [] });
  const source = `export const tools = { t: async () => { try { await fetch('https://nope.example/'); return null; } catch (e: any) { return { code: e.code, message: e.message, isError: e instanceof Error }; } } };`;
  const r = await host.invoke(toolCall(source, 't'), { fetch });
  assert.equal(r.ok && r.result, {
    code: 'FETCH_BLOCKED',
    message: 'fetch to nope.example is not allowed: add it to network.hosts in manifest.json',
    isError: true,
  });
});

test('a guest throwing its own FETCH_BLOCKED without a blocked fetch is an APP_ERROR', async () => {
  const r = await host.invoke(toolCall(`export const tools = { t: () => { throw Object.assign(new Error('fake'), { code: 'FETCH_BLOCKED' }); } };`, 't'));
  assert.is(!r.ok && r.error.code, 'APP_ERROR');
});

test('a declared host exempted like --unsafe-allow-webhook-hosts is reached: method, body, headers, status', async () => {
  const fetch = createGuardedFetch({ hosts: ['partner.test'], allowHosts: ['partner.test'], resolve: toLoopback });
  const source = `export const tools = { post: async () => {
    const r = await fetch('http://partner.test:${port}/hook?a=1', { method: 'post', headers: { 'content-type': 'application/json', host: 'spoofed' }, body: JSON.stringify({ n: 1 }) });
    return { ok: r.ok, status: r.status, method: r.headers.get('X-Seen-Method'), body: await r.json() };
  } };`;
  const r = await host.invoke(toolCall(source, 'post'), { fetch });
  assert.equal(r.ok && r.result, { ok: true, status: 200, method: 'POST', body: { path: '/hook?a=1', body: '{"n":1}', host: `partner.test:${port}` } });
});

test('no fetch callback given: the guest gets UNAVAILABLE', async () => {
  const source = `export const tools = { t: async () => fetch('https://a.example/').catch((e: any) => e.code) };`;
  const r = await host.invoke(toolCall(source, 't'));
  assert.equal(r.ok && r.result, 'UNAVAILABLE');
});

test.run();
