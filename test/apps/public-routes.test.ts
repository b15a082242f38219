/** App public routes and admin pages never act as the service's origin: sandboxed in svc dev, on their own host in svc serve. */
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { startService } from '../../src/server/main.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';

const CODE = `var __app = { routes: {
  'GET /page': async () => ({ headers: { 'content-type': 'text/html', 'set-cookie': 'svc_session=stolen; Path=/', 'Clear-Site-Data': '"cookies"', 'x-app': 'yes' }, body: '<script>document.title = "app"</script>' }),
  'GET /bad-header': async () => ({ headers: { 'x-bad': 'line\\r\\nset-cookie: a=b' }, body: 'never sent' }),
  'GET /bad-name': async () => ({ headers: { 'bad header': 'x' }, body: 'never sent' }),
  'GET /empty': async () => ({ status: 204, body: { ignored: true } }),
  'POST /echo': async (req) => ({ body: { length: req.body.length } }),
} };`;
const PAGE = '<h1>Settings</h1>';

async function appWithRoutes(api: Api) {
  const handle = uniqueHandle('routes');
  const m = {
    handle,
    name: 'Routes',
    http: { public: ['GET /page', 'GET /bad-header', 'GET /bad-name', 'GET /empty', 'POST /echo'] },
    ui: { adminPage: 'ui/admin.html' },
  };
  await deploy(api, m, { ...bundleFor(m, CODE), adminPage: PAGE });
  const inst = await installApp(api, handle);
  return { handle, inst };
}

/** A request with an explicit `Host` (fetch does not let a caller choose it). */
function get(url: string, host: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

test('svc dev: an app route answering HTML is sandboxed, sets no cookie and cannot wipe site data', async () => {
  const { handle, inst } = await appWithRoutes(svc.api);
  const res = await fetch(`${svc.url}/apps/${handle}/hooks/${inst.installationId}/page`);
  assert.is(res.status, 200);
  assert.is(await res.text(), '<script>document.title = "app"</script>');
  assert.is(res.headers.get('x-app'), 'yes');
  assert.match(res.headers.get('content-security-policy') ?? '', /^sandbox( |$)/);
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assert.is(res.headers.get('set-cookie'), null);
  assert.is(res.headers.get('clear-site-data'), null);
  const page = await fetch(`${svc.url}/apps/${handle}`);
  assert.is(await page.text(), PAGE);
  assert.match(page.headers.get('content-security-policy') ?? '', /^sandbox( |$)/);
});

test("svc dev: a header HTTP cannot carry is the app's error (502 INVALID_RESPONSE, recorded as failed), never a 500", async () => {
  const { handle, inst } = await appWithRoutes(svc.api);
  for (const path of ['/bad-header', '/bad-name']) {
    const res = await fetch(`${svc.url}/apps/${handle}/hooks/${inst.installationId}${path}`);
    const body = await res.json();
    assert.is(res.status, 502, path);
    assert.is(body.error.code, 'APP_ROUTE_FAILED');
    assert.is(body.error.details.reason, 'INVALID_RESPONSE');
    assert.match(body.error.details.appMessage, 'response header');
  }
  const activity = await svc.api('GET', `/v1/apps/installations/${inst.installationId}/activity`);
  const failed = activity.data.deliveries.filter((d: any) => d.kind === 'HTTP' && d.status === 'FAILED');
  assert.is(failed.length, 2, JSON.stringify(activity.data.deliveries));
  const empty = await fetch(`${svc.url}/apps/${handle}/hooks/${inst.installationId}/empty`);
  assert.is(empty.status, 204, 'a body with 204 is dropped, not a 500');
});

test('svc dev: route bodies go through the shared reader (size counted while streaming, UTF-8 only)', async () => {
  const { handle, inst } = await appWithRoutes(svc.api);
  const url = `${svc.url}/apps/${handle}/hooks/${inst.installationId}/echo`;
  const ok = await fetch(url, { method: 'POST', body: '민지' });
  assert.equal(await ok.json(), { length: 2 });
  // A chunked body (no Content-Length) past 256 KB is cut off at the limit.
  const chunks = (function* () {
    for (let i = 0; i < 64; i++) yield new Uint8Array(16 * 1024).fill(120);
  })();
  const stream = new ReadableStream({
    pull(controller) {
      const next = chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  const big = await fetch(url, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
  assert.is(big.status, 413);
  const notUtf8 = await fetch(url, { method: 'POST', body: new Uint8Array([0x61, 0xff, 0xfe]) });
  assert.is(notUtf8.status, 400);
  assert.is((await notUtf8.json()).error.fieldErrors[0].code, 'INVALID_UTF8');
});

test('svc serve: every app has its own host; the service origin serves no app content and app hosts no API', async () => {
  const running = await startService({ port: 0, host: '127.0.0.1', mode: 'serve', clock: 'manual', dataDir: `${svc.dataDir}/serve`, appsHost: 'apps.test' });
  try {
    const seller = await newSellerWithStore({ url: running.url } as TestService, 'apphost');
    const { handle, inst } = await appWithRoutes(seller.api);
    const appHost = `${handle}.apps.test`;
    const port = new URL(running.url).port;

    const detail = await seller.api('GET', `/v1/apps/installations/${inst.installationId}`);
    assert.equal(detail.data.publicHttp[0], { method: 'GET', path: '/page', url: `http://${appHost}:${port}/hooks/${inst.installationId}/page` });

    const page = await get(`${running.url}/hooks/${inst.installationId}/page`, appHost);
    assert.is(page.status, 200);
    assert.is(page.body, '<script>document.title = "app"</script>');
    assert.is(page.headers['set-cookie'], undefined, 'no cookie even on its own host: siblings share the parent domain');
    const admin = await get(`${running.url}/`, `${appHost}:${port}`);
    assert.is(admin.body, PAGE);

    const onService = await get(`${running.url}/apps/${handle}/hooks/${inst.installationId}/page`, `127.0.0.1:${port}`);
    assert.is(onService.status, 404);
    assert.is((await get(`${running.url}/apps/${handle}`, `127.0.0.1:${port}`)).status, 404);
    assert.is((await get(`${running.url}/v1/store`, appHost)).status, 404, 'the API is not served on an app host');
    assert.is((await get(`${running.url}/hooks/${inst.installationId}/page`, `other.${appHost}`)).status, 404);
    assert.is((await get(`${running.url}/hooks/${inst.installationId}/page`, `nope-${appHost}`)).status, 404, 'another handle is another app');
    const bad = await get(`${running.url}/hooks/${inst.installationId}/bad-name`, appHost);
    assert.is(bad.status, 502);
  } finally {
    await running.close();
  }
});

test("svc serve: an apps host that contains the service's own host is refused at start", async () => {
  const start = (appsHost: string, publicUrl?: string) =>
    startService({ port: 0, host: '127.0.0.1', mode: 'serve', dataDir: `${svc.dataDir}/refused`, appsHost, publicUrl });
  for (const [appsHost, publicUrl] of [
    ['example.com', 'https://api.example.com'],
    ['api.example.com', 'https://api.example.com'],
    ['https://apps.example.com', undefined],
  ]) {
    try {
      await (await start(appsHost!, publicUrl)).close();
      assert.unreachable(`${appsHost} was accepted`);
    } catch (error) {
      assert.match((error as Error).message, 'apps host');
    }
  }
});

test.run();
