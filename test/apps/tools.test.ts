import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ok } from '../helpers/assert.js';
import { apiClient, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { appStorage } from '../../src/modules/apps/schema.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';
import { addMember } from '../helpers/invitations.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
});
test.after(async () => {
  await svc.close();
});

const CODE = `var __app = {
  tools: {
    echo: async (input) => ({ input }),
    boom: async () => { throw new Error('partner API down'); },
    huge: async () => 'x'.repeat(70 * 1024),
    count: async () => { const n = (await storage.get('n')) ?? 0; await storage.set('n', n + 1); return n + 1; },
    'store-name': async () => (await api('GET', '/v1/store')).data.name,
    slow: async () => { for (let i = 0; i < 100000; i++) await storage.get('x'); return 'finished'; },
    ctx: async (input, ctx) => ({ storeId: ctx.storeId, installationId: ctx.installationId, version: ctx.app.version, settings: ctx.settings }),
  },
  routes: {
    'GET /status/:id': async (req) => ({ body: { id: req.params.id, query: req.query } }),
    'POST /hook': async (req) => ({ status: 202, headers: { 'x-app': 'yes' }, body: req.body }),
  },
  schedules: { tick: async (input) => { await storage.set('ticked', input.scheduledAt); return true; } },
  events: { 'APP.SCOPES_UPDATED': async (notice) => { await storage.set('scopes', notice.scopes); } },
};`;

const tools = {
  echo: { description: 'Echoes its input', input: { a: { type: 'string', required: true }, b: { type: 'number' } } },
  boom: { description: 'Always fails' },
  huge: { description: 'Returns 70 KB' },
  count: { description: 'Counts in storage' },
  'store-name': { description: 'Reads the store' },
  ctx: { description: 'Shows its context' },
  slow: { description: 'Waits on many host calls' },
};
const manifest = (handle: string, more: Record<string, unknown> = {}) => ({
  handle,
  name: 'Sandbox tools',
  scopes: ['store:r'],
  mcp: { tools },
  http: { public: ['GET /status/:id', 'POST /hook'] },
  schedules: { tick: { interval: '1h' } },
  settings: { region: { type: 'string', label: 'Region' } },
  ...more,
});

async function setup(more: Record<string, unknown> = {}, owner = svc.api) {
  const handle = uniqueHandle('tools');
  const m = manifest(handle, more);
  await deploy(owner, m, bundleFor(m, CODE, ['events/APP.SCOPES_UPDATED']));
  const inst = await installApp(owner, handle);
  const call = (name: string, input: unknown = {}, api = svc.api) =>
    api('POST', `/v1/apps/installations/${inst.installationId}/tools/${name}`, { body: { input } });
  return { handle, inst, call, manifest: m };
}

test('GET /v1/apps/tools lists installed tools with installation, app, name, description and input', async () => {
  const { inst, handle } = await setup();
  const list = await svc.api('GET', '/v1/apps/tools');
  assert.is(list.status, 200);
  const echo = list.data.contents.find((t: any) => t.installationId === inst.installationId && t.name === 'echo');
  assert.equal(echo.app.handle, handle);
  assert.is(echo.description, 'Echoes its input');
  assert.equal(echo.input, tools.echo.input);
});

test('a tool call returns the result; undeclared input keys are dropped', async () => {
  const { call } = await setup();
  const res = await call('echo', { a: 'hi', b: 2, sneaky: true });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.data, { result: { input: { a: 'hi', b: 2 } } });
});

test('input checked against the declared shape: APP_TOOL_INPUT_INVALID names the field', async () => {
  const { call } = await setup();
  const missing = await call('echo', { b: 1 });
  assert.is(missing.status, 400);
  assert.is(missing.body.error.code, 'APP_TOOL_INPUT_INVALID');
  assert.equal(
    missing.body.error.details.issues.map((i: any) => [i.field, i.code]),
    [['input.a', 'REQUIRED']],
  );
  const wrong = await call('echo', { a: 'x', b: 'two' });
  assert.equal(
    wrong.body.error.details.issues.map((i: any) => [i.field, i.code]),
    [['input.b', 'INVALID_TYPE']],
  );
  const notObject = await svc.api('POST', `/v1/apps/installations/${(await setup()).inst.installationId}/tools/echo`, { body: { input: 'x' } });
  assert.is(notObject.status, 400);
});

test("APP_TOOL_NOT_FOUND for an undeclared tool; APP_TOOL_FAILED 502 with the app's message; 64 KB results", async () => {
  const { call } = await setup();
  const nope = await call('nope');
  assert.is(nope.status, 404);
  assert.is(nope.body.error.code, 'APP_TOOL_NOT_FOUND');
  const boom = await call('boom');
  assert.is(boom.status, 502);
  assert.is(boom.body.error.code, 'APP_TOOL_FAILED');
  assert.match(boom.body.error.message, 'partner API down');
  assert.is(boom.body.error.details.reason, 'APP_ERROR');
  assert.match(boom.body.error.details.appMessage, 'partner API down');
  const huge = await call('huge');
  assert.is(huge.status, 502);
  assert.is(huge.body.error.details.reason, 'RESULT_TOO_LARGE');
});

test('functions get storage, the admin API as the installation, and their context', async () => {
  const { call, inst } = await setup();
  assert.is((await call('count')).data.result, 1);
  assert.is((await call('count')).data.result, 2);
  assert.is((await call('store-name')).data.result, 'Dev Store');
  await svc.api('PUT', `/v1/apps/installations/${inst.installationId}/settings`, { body: { settings: { region: 'kr' } } });
  assert.equal((await call('ctx')).data.result, { storeId: svc.storeId, installationId: inst.installationId, version: 1, settings: { region: 'kr' } });
  const activity = await svc.api('GET', `/v1/apps/installations/${inst.installationId}/activity`);
  assert.ok(activity.data.deliveries.length >= 4);
  assert.ok(activity.data.apiCalls.count >= 1, 'the store-name call went through the API');
});

test('uninstalling rejects a call in flight', async () => {
  const { call, inst } = await setup();
  const running = call('slow');
  await new Promise((r) => setTimeout(r, 150));
  assert.is((await svc.api('DELETE', `/v1/apps/installations/${inst.installationId}`)).status, 200);
  const res = await running;
  assert.is(res.status, 404, JSON.stringify(res.body));
  assert.is(res.body.error.code, 'APP_TOOL_NOT_FOUND');
});

test('tool calls need store OWNER or ADMIN', async () => {
  const { call } = await setup();
  const staff = await newSellerWithStore(svc, 'staff');
  await addMember(svc, { token: svc.ownerToken, storeId: svc.storeId }, staff, 'STAFF');
  const res = await call('echo', { a: 'x' }, apiClient(svc.url, { token: staff.token, storeId: svc.storeId }));
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'INSUFFICIENT_ROLE');
});

test('public routes answer without login at /apps/{handle}/hooks/{installationId}/…', async () => {
  const { handle, inst } = await setup();
  const base = `${svc.url}/apps/${handle}/hooks/${inst.installationId}`;
  const get = await fetch(`${base}/status/42?x=1`);
  assert.is(get.status, 200);
  assert.equal(await get.json(), { id: '42', query: { x: '1' } });
  const post = await fetch(`${base}/hook`, { method: 'POST', body: 'raw text' });
  assert.is(post.status, 202);
  assert.is(post.headers.get('x-app'), 'yes');
  assert.is(await post.text(), 'raw text', 'a string body is sent as is');
  assert.is((await fetch(`${base}/undeclared`)).status, 404);
  assert.is((await fetch(`${svc.url}/apps/other-handle/hooks/${inst.installationId}/status/1`)).status, 404);
});

test('the admin page is served sandboxed at /apps/{handle}', async () => {
  const handle = uniqueHandle('ui');
  const m = { handle, name: 'UI', ui: { adminPage: 'ui/admin.html' } };
  const created = await svc.api('POST', '/v1/developer/apps', { storeId: null, body: { manifest: m } });
  const without = await svc.api('POST', `/v1/developer/apps/${created.data.appId}/versions`, {
    storeId: null,
    body: { manifest: m, bundle: { code: 'var __app={}', functions: [] } },
  });
  assert.is(without.body.error.code, 'HANDLER_MISSING');
  assert.equal(without.body.error.details.functions, ['ui/adminPage']);
  await deploy(svc.api, m, { ...bundleFor(m), adminPage: '<h1>Settings</h1>' });
  const page = await fetch(`${svc.url}/apps/${handle}`);
  assert.is(page.status, 200);
  assert.is(await page.text(), '<h1>Settings</h1>');
  assert.match(page.headers.get('content-security-policy')!, /^sandbox /);
  assert.is((await fetch(`${svc.url}/apps/no-such-app`)).status, 404);
});

test('a widened version: consent, then the app hears APP.SCOPES_UPDATED', async () => {
  const { handle, inst, manifest: m } = await setup();
  const wider = { ...m, scopes: ['store:r', 'order:r'] };
  await deploy(svc.api, wider, bundleFor(wider, CODE, ['events/APP.SCOPES_UPDATED']));
  const pending = await svc.api('GET', `/v1/apps/installations/${inst.installationId}`);
  assert.equal(pending.data.pendingVersion, { version: 2, requires: { scopes: ['order:r'] } });
  assert.is((await svc.api('POST', '/v1/apps/installations', { body: { handle } })).data.version, 2, 'installing again consents');
  await svc.api('POST', '/_dev/v1/jobs/run');
  const stored = await svc.services.db.select().from(appStorage).where(eq(appStorage.installationId, inst.installationId)).all();
  assert.equal(JSON.parse(stored.find((s) => s.key === 'scopes')!.value), ['store:r', 'order:r']);
});

test('external runtime: signed call (x-svc-signature, keys at /.well-known/svc-apps-jwks.json)', async () => {
  const jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/svc-apps-jwks.json`));
  const seen: any[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`;
    try {
      const { payload } = await jwtVerify(String(req.headers['x-svc-signature']), jwks, { audience: url, issuer: svc.url });
      if (payload.bodySha256 !== createHash('sha256').update(body).digest('base64url')) throw new Error('body mismatch');
      const call = JSON.parse(body);
      seen.push({ call, sub: payload.sub });
      if (call.name === 'boom') return res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'remote broke' } }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { hello: call.input.a } }));
    } catch (error) {
      res.writeHead(401).end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  try {
    const handle = uniqueHandle('ext');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/run`;
    const m = { handle, name: 'External', runtime: 'external', external: { url }, mcp: { tools: { echo: tools.echo, boom: tools.boom } } };
    await deploy(svc.api, m, { code: '/* external */', functions: [] });
    const inst = await installApp(svc.api, handle);
    const ok = await svc.api('POST', `/v1/apps/installations/${inst.installationId}/tools/echo`, { body: { input: { a: 'x' } } });
    assert.is(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.data.result, { hello: 'x' });
    assert.is(seen[0].sub, inst.installationId);
    assert.is(seen[0].call.kind, 'tool');
    assert.ok(seen[0].call.context.api.token, 'the external runtime gets an installation token');
    const boom = await svc.api('POST', `/v1/apps/installations/${inst.installationId}/tools/boom`, { body: {} });
    assert.is(boom.status, 502);
    assert.is(boom.body.error.details.appMessage, 'remote broke');
  } finally {
    server.close();
  }
});

test('schedules run per installation on the clock, once for the latest of the intervals that passed, and keep to their grid', async () => {
  const { inst } = await setup();
  // Logins last 15 minutes; the clock moves by hours here.
  const owner = async () => apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  const installation = async () => (await (await owner())('GET', `/v1/apps/installations/${inst.installationId}`)).data;
  const first = Date.parse((await installation()).schedules[0].nextRunAt);
  // Three and a half intervals in one move: the runs at +1 h, +2 h and +3 h come due together, and run once.
  await svc.advance(3.5 * 3600);
  const ticked = await svc.services.db
    .select()
    .from(appStorage)
    .where(and(eq(appStorage.installationId, inst.installationId), eq(appStorage.key, 'ticked')))
    .get();
  assert.ok(ticked, 'the hourly schedule ran');
  assert.is(JSON.parse(ticked.value), new Date(first + 2 * 3600_000).toISOString(), 'the run is for the latest interval that came due');
  assert.is((await installation()).schedules[0].nextRunAt, new Date(first + 3 * 3600_000).toISOString(), 'the next run stays on the hour grid');
  const activity = await (await owner())('GET', `/v1/apps/installations/${inst.installationId}/activity`);
  assert.is(activity.data.deliveries.filter((d: any) => d.kind === 'SCHEDULE' && d.name === 'tick' && d.status === 'SUCCEEDED').length, 1);
});

test('24 hours of nothing but app errors suspend the app until a new version', async () => {
  // Logins last 15 minutes; the clock moves by hours here.
  const fresh = async () => apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  // No schedule: its successful runs would break the run of failures.
  const { handle, inst, call, manifest: m } = await setup({ schedules: undefined }, await fresh());
  assert.is((await call('boom', {}, await fresh())).status, 502);
  await svc.advance(24 * 3600);
  const owner = await fresh();
  const last = await call('boom', {}, owner);
  assert.is(last.status, 502, 'the call that completes 24 hours of failures still runs');
  const suspended = await call('echo', { a: 'x' }, owner);
  assert.is(suspended.status, 409);
  assert.is(suspended.body.error.code, 'APP_SUSPENDED');
  assert.is((await owner('GET', `/v1/apps/installations/${inst.installationId}`)).data.app.status, 'SUSPENDED');
  assert.is((await fetch(`${svc.url}/apps/${handle}/hooks/${inst.installationId}/status/1`)).status, 409);
  assert.is((await call('boom', {}, owner)).status, 409);

  // The developer (the account that registered the app) is mailed once, in Korean: which app, why, what to do.
  const mails = async () => ok(await svc.api('GET', '/_dev/v1/mail')).contents.filter((mail: any) => mail.body.includes(handle));
  const [mail, ...more] = await mails();
  assert.equal(more, [], 'one mail per suspension');
  assert.is(mail.to, 'dev@svc.local');
  assert.match(mail.subject, `'Sandbox tools' 앱이 정지되었습니다`);
  assert.match(mail.body, '24시간 동안 모든 호출이 앱 오류로 실패');
  assert.match(mail.body, 'partner API down', 'the last error tells the developer where to look');
  assert.match(mail.body, '새 버전', 'a new version lifts the suspension');
  assert.match(mail.body, '설치는 그대로', 'installations are kept');

  await deploy(owner, m, bundleFor(m, CODE, ['events/APP.SCOPES_UPDATED']));
  assert.is((await call('echo', { a: 'x' }, owner)).status, 200, 'a new version lifts the suspension; the installation was kept');
  assert.is((await mails()).length, 1);
});

test.run();
