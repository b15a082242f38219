/**
 * The editing environment runs a store's code as hostile: its server code renders in the runtime worker's
 * isolates (never in the service process), so it reaches neither the service's `process`, environment nor
 * data directory, and a loop in it ends in an error page while every other store is served. Public files
 * are read only inside the project; an agent's start waits for a person's approval.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { localFetch } from '../helpers/sites.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { createSite, miniProject, storefrontApi, tarGz, uploadSource } from '../helpers/site-builds.js';

const CANARY = `canary-${Math.random().toString(36).slice(2)}-editing`;
let svc: TestService;
let api: Api;
let otherStore: Api;
let signingKey: string;
let url: string;
let editingId: string;

test.before(async () => {
  // What code in the service process would find first: the service's environment.
  process.env.SVC_TEST_EDITING_CANARY = CANARY;
  svc = await startTestService();
  signingKey = (JSON.parse(readFileSync(join(svc.dataDir, 'keys', 'signing.json'), 'utf8')) as { d: string }).d;
  api = await storefrontApi(svc);
  await createSite(api);
  ok(await uploadSource(svc, { token: svc.ownerToken, storeId: svc.storeId }, await tarGz(miniProject())));
  const other = await newSellerWithStore(svc, 'sf-contain');
  otherStore = apiClient(svc.url, other);
});
test.after(async () => {
  delete process.env.SVC_TEST_EDITING_CANARY;
  await svc.close();
});

const file = (path: string) => `/v1/storefront/site/files/${encodeURIComponent(path)}`;
const writeServer = async (body: string, top = '') =>
  ok(
    await api('PUT', file('src/server.ts'), {
      body: { content: `${top}\nexport default { async fetch(request: Request, env: any): Promise<Response> {\n${body}\n} };\n` },
    }),
  );
const page = async (path = '') => {
  const res = await localFetch(`${url}${path}`);
  return { status: res.status, text: await res.text() };
};
const leaksNothing = (text: string) => {
  assert.not.ok(text.includes(CANARY), 'the service environment leaked');
  assert.not.ok(text.includes(signingKey), 'the signing key leaked');
};

test("an agent's start waits for a person's approval; approved, the environment runs", async () => {
  const agent = await createAccessToken(svc, await login(svc), {
    name: 'agent',
    scopes: ['storefront:rw'],
    agent: true,
    expiresInDays: 30,
    storeScope: { all: true },
  });
  const held = await apiClient(svc.url, { token: agent, storeId: svc.storeId })('POST', '/v1/storefront/site/editing');
  assert.is(held.status, 202, JSON.stringify(held.body));
  assert.is(held.body.meta.code, 'APPROVAL_REQUIRED');
  assert.is(ok(await api('GET', '/v1/storefront/site/editing')), null, 'nothing started before the approval');
  ok(await svc.api('POST', `/v1/approval-requests/${held.data.approvalId}/approve`));
  const env = ok(await api('GET', '/v1/storefront/site/editing'));
  assert.is(env.status, 'READY');
  ({ url, editingId } = env);
});

test('a normal project: pages, client entries and public files; a write rebuilds and open pages are told to reload', async () => {
  const home = await page();
  assert.is(home.status, 200);
  assert.match(home.text, '<h1>mini dev /</h1>');
  assert.match(home.text, '/_svc/livereload', 'the reload script is added');
  const client = await localFetch(`${url}assets/client.js`);
  assert.is(client.status, 200);
  assert.match(await client.text(), 'dataset.ready');
  assert.is(await (await localFetch(`${url}style.css`)).text(), 'body { color: #333 }\n');

  const reload = (await localFetch(`${url}_svc/livereload`)).body!.getReader();
  assert.match(new TextDecoder().decode((await reload.read()).value), 'connected');
  await writeServer(`  return new Response('<html><body>second draft</body></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } });`);
  assert.match((await page()).text, 'second draft', 'a page asked for after the write shows it');
  let told = '';
  while (!told.includes('data: reload')) told += new TextDecoder().decode((await reload.read()).value);
  await reload.cancel();
});

test('server code that reaches for process (Request.constructor, globalThis.constructor.constructor) finds none of the service', async () => {
  const signing = join(svc.dataDir, 'keys', 'signing.json');
  await writeServer(`
  const found: Record<string, string> = {};
  const reaches: [string, () => any][] = [
    ['request', () => (Request as any).constructor('return process')()],
    ['global', () => (globalThis as any).constructor.constructor('return process')()],
  ];
  for (const [name, reach] of reaches) {
    try {
      const p = reach();
      found[name] = JSON.stringify({ type: typeof p, env: p.env, signing: p.getBuiltinModule('node:fs').readFileSync(${JSON.stringify(signing)}, 'utf8') });
    } catch (error) {
      found[name] = 'refused ' + String(error);
    }
  }
  return new Response('<html><body><pre>' + JSON.stringify(found) + '</pre></body></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } });`);
  const caught = await page();
  assert.is(caught.status, 200);
  leaksNothing(caught.text);
  assert.match(caught.text, '"request":"refused ReferenceError: process is not defined"');
  assert.match(caught.text, '"global":"refused ReferenceError: process is not defined"');

  // Uncaught, at the top of the bundle: the error page shows the seller's own error, nothing of the service.
  await writeServer(`  return new Response(JSON.stringify(leaked.env));`, `const leaked = (globalThis as any).constructor.constructor('return process')();`);
  const thrown = await page();
  assert.is(thrown.status, 500);
  leaksNothing(thrown.text);
  assert.match(thrown.text, 'ReferenceError: process is not defined');
});

test('an endless loop, at the top or in a request, ends in an error page while other stores are served', async () => {
  const otherStoreAnswers = async () => {
    for (let i = 0; i < 3; i++) assert.is((await otherStore('GET', '/v1/store')).status, 200);
  };
  await writeServer(`  return new Response('unreachable');`, 'for (;;) {}');
  const top = page();
  await otherStoreAnswers();
  const topLoop = await top;
  assert.is(topLoop.status, 504);
  assert.match(topLoop.text, 'CPU_LIMIT');

  await writeServer(`
  const { pathname } = new URL(request.url);
  if (pathname === '/spin') for (;;) {}
  if (pathname === '/spin-after-await') {
    await fetch(env.storefrontApiUrl + '/products');
    for (;;) {}
  }
  return new Response('<html><body>calm again</body></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } });`);
  for (const path of ['spin', 'spin-after-await']) {
    const spinning = page(path);
    await otherStoreAnswers();
    const answered = await spinning;
    assert.is(answered.status, 504, path);
    assert.match(answered.text, 'CPU_LIMIT');
  }
  assert.match((await page()).text, 'calm again', 'the next request gets a fresh isolate');
});

test('public files are read only inside the project: no dot segments, no links, no folder outside', async () => {
  const dir = join(svc.dataDir, 'editing', editingId);
  symlinkSync(join(svc.dataDir, 'keys', 'signing.json'), join(dir, 'public', 'linked.txt'));
  for (const path of ['linked.txt', '..%2F..%2F..%2Fkeys%2Fsigning.json', '%2E%2E%2Fsvc.storefront.json']) leaksNothing((await page(path)).text);
  assert.not.match((await page('%2E%2E%2Fsvc.storefront.json')).text, '"server"');
  // A public folder named outside the project serves nothing from there (the project is refused, or the folder is).
  ok(
    await api('PUT', file('svc.storefront.json'), {
      body: { content: JSON.stringify({ server: 'src/server.ts', client: ['src/client.ts'], public: '../..' }) },
    }),
  );
  const outside = await page('keys/signing.json');
  leaksNothing(outside.text);
  assert.not.match(outside.text, '"kid"');
});

test.run();
