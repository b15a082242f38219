/**
 * The CLI as scripts and CI use it (issue 10), over real services: store codes with narrow tokens (the
 * README's CI recipe as written), a saved login that no other server can take away, `svc api` paths,
 * headers and paging, closed pipes, a busy port, and the small courtesies around them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliEnv, jsonOf, packageRoot, runCli } from '../helpers/cli.js';
import { oauthLogin } from '../helpers/oauth.js';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
/** Another svc service: the server a mistyped SVC_API_URL reaches. */
let foreign: TestService;
const dirs: string[] = [];
const tmp = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `svc-scripting-${label}-`));
  dirs.push(dir);
  return dir;
};

test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  foreign = await startTestService();
});
test.after(async () => {
  await Promise.all([svc.close(), foreign.close()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A CI job's variables against the test service with the seeded owner's token, in a config dir of its own. */
const owner = (extra: Record<string, string> = {}) => ({ SVC_CONFIG_DIR: tmp('config'), SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, ...extra });

// ─── store codes: the service resolves them ─────────────────────────────────────────────────────

test('X-Store-Id takes a store code: admin and buyer API; a wrong or foreign code is 404 STORE_NOT_FOUND', async () => {
  const byCode = await svc.api('GET', '/v1/store', { storeId: 'dev-store' });
  assert.is(byCode.status, 200, JSON.stringify(byCode.body));
  assert.is(byCode.data.storeId, svc.storeId);
  const unknown = await svc.api('GET', '/v1/store', { storeId: 'no-such-store' });
  assert.is(unknown.status, 404);
  assert.is(unknown.body.error.code, 'STORE_NOT_FOUND');

  // Another tenant's store: its code answers as a code nobody holds, so codes reveal nothing.
  const anon = apiClient(svc.url);
  assert.is((await anon('POST', '/auth/v1/signup', { body: { email: 'other@example.com', password: 'password-1234', name: 'Other' } })).status, 201);
  const otherLogin = await anon('POST', '/auth/v1/login', { body: { email: 'other@example.com', password: 'password-1234' } });
  const otherStore = await anon('POST', '/auth/v1/stores', { token: otherLogin.data.accessToken, body: { name: 'Other Shop', code: 'other-shop' } });
  assert.is(otherStore.status, 201);
  const foreignCode = await svc.api('GET', '/v1/store', { storeId: 'other-shop' });
  assert.is(foreignCode.status, 404);
  assert.equal(foreignCode.body.error.code, unknown.body.error.code);
  assert.is((await svc.api('GET', '/v1/store', { storeId: otherStore.data.storeId })).body.error.code, 'NOT_A_MEMBER', 'ids answer as before');

  // A code of one's own store outside the token's store scope is refused as its id would be.
  const second = await svc.api('POST', '/auth/v1/stores', { body: { name: 'Second', code: 'second-shop' } });
  const scoped = await svc.api('POST', '/auth/v1/access-tokens', { body: { name: 'scoped', scopes: ['store:r'], storeScope: { storeIds: [svc.storeId] } } });
  assert.is(scoped.status, 201, JSON.stringify(scoped.body));
  const outside = await anon('GET', '/v1/store', { token: scoped.data.token, storeId: 'second-shop' });
  assert.is(outside.status, 403);
  assert.is(outside.body.error.code, 'STORE_NOT_GRANTED');
  assert.is((await anon('GET', '/v1/store', { token: scoped.data.token, storeId: 'dev-store' })).data.storeId, svc.storeId);
  assert.is(second.status, 201);

  // The buyer API: its store context and the catalog's own header reading both take codes.
  const store = await anon('GET', '/storefront/v1/store', { storeId: 'dev-store' });
  assert.is(store.status, 200, JSON.stringify(store.body));
  assert.is(store.data.storeId, svc.storeId);
  assert.is((await anon('GET', '/storefront/v1/store', { storeId: 'no-such-store' })).body.error.code, 'STORE_NOT_FOUND');
  const products = await anon('GET', '/storefront/v1/collections/all/products', { storeId: 'dev-store' });
  assert.is(products.status, 200);
  assert.ok(products.data.contents.length > 0, 'the seeded samples are listed by code');
  const first = products.data.contents[0];
  const byNumber = await anon('GET', `/storefront/v1/products/${first.productNo}`, { storeId: 'dev-store' });
  assert.is(byNumber.status, 200, JSON.stringify(byNumber.body));
  assert.is(byNumber.data.productId, first.productId);
});

// ─── the README's CI recipe, as written ─────────────────────────────────────────────────────────

test('README CI recipe: tokens create --scopes product:rw,order:r, then --store dev-store with that token', async () => {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const recipe = [
    'npx svc tokens create --name ci --scopes product:rw,order:r',
    'npx svc products list --store dev-store',
    'npx svc orders list --store dev-store --json',
  ];
  for (const line of recipe) assert.ok(readme.includes(line), `the README shows: ${line}`);
  const args = (line: string) => line.split(' ').slice(2);

  const created = await runCli(args(recipe[0]), owner());
  assert.is(created.exitCode, 0, created.stderr);
  const token = created.stdout.trim().split('\n').pop()!;
  assert.match(token, /^ey/, 'the value is the last line printed');

  const job = { SVC_CONFIG_DIR: tmp('ci'), SVC_API_URL: svc.url, SVC_TOKEN: token };
  const products = await runCli(args(recipe[1]), job);
  assert.is(products.exitCode, 0, products.stdout + products.stderr);
  assert.match(products.stdout, /^PRODUCT ID\s+PRODUCT NO\s+NAME\s+SALE PRICE\s+STATUS\s+STOCK QUANTITY$/m, 'spaced, upper-case headers');
  assert.match(products.stdout, /[\d,]+원/, 'money as people read it');
  const orders = await runCli(args(recipe[2]), job);
  assert.is(orders.exitCode, 0, orders.stdout + orders.stderr);
  assert.equal(
    Object.keys(jsonOf(orders))
      .filter((k) => ['contents', 'page', 'size', 'totalElements', 'totalPages'].includes(k))
      .sort(),
    ['contents', 'page', 'size', 'totalElements', 'totalPages'],
  );

  // No store named: this token cannot list stores, so it must be told which (a usage error, exit 2)…
  const unnamed = await runCli(['products', 'list', '--json'], job);
  assert.is(unnamed.exitCode, 2, unnamed.stdout);
  assert.match(jsonOf(unnamed).message, /--store/);
  // …unless its store scope holds one store: then that one is used.
  const single = await runCli(['tokens', 'create', '--name', 'one-store', '--scopes', 'product:r', '--stores', 'dev-store', '--json'], owner());
  assert.is(single.exitCode, 0, single.stdout + single.stderr);
  assert.equal(jsonOf(single).storeScope, { storeIds: [svc.storeId] }, '--stores takes codes');
  const picked = await runCli(['products', 'list', '--json'], { ...job, SVC_TOKEN: jsonOf(single).token });
  assert.is(picked.exitCode, 0, picked.stdout + picked.stderr);
  assert.ok(jsonOf(picked).contents.length > 0);
});

// ─── a saved login is the profile's, at the profile's address ───────────────────────────────────

/** A config dir whose profile `p` (current) holds a real login of the test service, its access token expired. */
async function savedLogin() {
  const dir = tmp('login');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 'p', profiles: { p: { apiUrl: svc.url } } }));
  const pair = await oauthLogin(svc.url);
  const credentials = {
    p: { kind: 'login', accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt: Date.now() - 60_000, clientId: 'svc-cli', apiUrl: svc.url },
  };
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify(credentials));
  return { dir, credentials: () => JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) };
}

test('SVC_API_URL naming another service without SVC_TOKEN: a usage error naming both; the saved login is untouched', async () => {
  const { dir, credentials } = await savedLogin();
  const before = credentials();
  const r = await runCli(['whoami', '--json'], { SVC_CONFIG_DIR: dir, SVC_API_URL: foreign.url });
  assert.is(r.exitCode, 2, r.stdout + r.stderr);
  const message = jsonOf(r).message as string;
  assert.ok(message.includes(foreign.url) && message.includes(svc.url), message);
  assert.match(message, /SVC_TOKEN/);
  assert.equal(credentials(), before, 'nothing was sent elsewhere, nothing was dropped');

  // The same login still works where it belongs (its refresh token was never spent elsewhere).
  const home = await runCli(['whoami', '--json'], { SVC_CONFIG_DIR: dir });
  assert.is(home.exitCode, 0, home.stdout + home.stderr);
  assert.is(jsonOf(home).token.kind, 'login');
  assert.is(jsonOf(home).tokenFrom, 'profile');
  // The same address written differently is the same service.
  assert.is((await runCli(['whoami', '--json'], { SVC_CONFIG_DIR: dir, SVC_API_URL: `${svc.url}/` })).exitCode, 0);

  // A profile pointed elsewhere keeps its login (bound to the old address) unused, not deleted.
  const saved = credentials().p;
  assert.is((await runCli(['profiles', 'add', 'p', '--api-url', foreign.url], { SVC_CONFIG_DIR: dir })).exitCode, 0);
  const moved = await runCli(['whoami', '--json'], { SVC_CONFIG_DIR: dir });
  assert.is(moved.exitCode, 2);
  assert.match(jsonOf(moved).message, /saved login of profile "p" is for/);
  assert.equal(credentials().p, saved);
});

test('a refresh the service refuses says what happened and keeps the saved login', async () => {
  const { dir, credentials } = await savedLogin();
  const broken = { ...credentials().p, refreshToken: 'not-a-refresh-token' };
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ p: broken }));
  const r = await runCli(['whoami', '--json'], { SVC_CONFIG_DIR: dir });
  assert.is(r.exitCode, 1, r.stdout + r.stderr);
  const error = jsonOf(r);
  assert.is(error.code, 'UNAUTHORIZED');
  assert.match(error.message, /could not be refreshed at .*the session has ended \(invalid_grant/);
  assert.match(error.message, /svc login --profile p/);
  assert.is(error.details.refresh.error, 'invalid_grant');
  assert.equal(credentials().p, broken, 'only svc login and svc logout replace a saved login');
});

test('whoami says when the token comes from SVC_TOKEN', async () => {
  const r = await runCli(['whoami'], owner());
  assert.is(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /from SVC_TOKEN/);
  assert.is(jsonOf(await runCli(['whoami', '--json'], owner())).tokenFrom, 'SVC_TOKEN');
});

test('login checks the server before any browser: a dead or foreign address fails at once', async () => {
  const dir = tmp('login-check');
  const web = createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>not found</h1>'));
  await new Promise<void>((ok) => web.listen(0, '127.0.0.1', ok));
  try {
    const webUrl = `http://127.0.0.1:${(web.address() as { port: number }).port}`;
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ currentProfile: 'dead', profiles: { dead: { apiUrl: 'http://127.0.0.1:1' }, web: { apiUrl: webUrl } } }),
    );
    // Before: the address was printed and the login waited 5 minutes for a browser that could not succeed.
    const dead = await runCli(['login', '--no-browser', '--json'], { SVC_CONFIG_DIR: dir }, 20_000);
    assert.is(dead.exitCode, 1, dead.stdout + dead.stderr);
    assert.is(jsonOf(dead).code, 'CONNECTION_FAILED');
    assert.not.match(dead.stderr, /Open this address/);
    const other = await runCli(['login', '--no-browser', '--profile', 'web'], { SVC_CONFIG_DIR: dir }, 20_000);
    assert.is(other.exitCode, 1, other.stdout + other.stderr);
    assert.match(other.stderr, /not an svc service/);
  } finally {
    web.close();
  }
});

// ─── svc api ────────────────────────────────────────────────────────────────────────────────────

test('svc api: spec paths (/me/stores), the buyer API with X-Store-Id, full URLs refused, raw documents', async () => {
  const env = owner();
  const mine = await runCli(['api', 'GET', '/me/stores', '--json'], env);
  assert.is(mine.exitCode, 0, mine.stdout + mine.stderr);
  assert.ok(jsonOf(mine).contents.some((s: any) => s.code === 'dev-store'));

  // Buyer API: the store goes in X-Store-Id (a code is fine) and the account token stays home.
  const buyerStore = await runCli(['api', 'GET', '/storefront/v1/store', '--store', 'dev-store', '--json'], env);
  assert.is(buyerStore.exitCode, 0, buyerStore.stdout + buyerStore.stderr);
  assert.is(jsonOf(buyerStore).storeId, svc.storeId);

  const url = await runCli(['api', 'GET', `${svc.url}/v1/store?x=1`, '--json'], env);
  assert.is(url.exitCode, 2, url.stdout);
  assert.match(jsonOf(url).message, /not a URL.*svc api METHOD \/v1\/store\?x=1/);

  const openapi = await runCli(['api', 'GET', '/v1/openapi.json'], env);
  assert.is(openapi.exitCode, 0, openapi.stderr);
  assert.type(JSON.parse(openapi.stdout).openapi, 'string', 'the document as it is, not an envelope');
  const metadata = await runCli(['api', 'GET', '/.well-known/oauth-protected-resource/v1', '--json'], env);
  assert.is(metadata.exitCode, 0, metadata.stderr);
  assert.is(jsonOf(metadata).resource, `${svc.url}/v1`);
});

test("svc api -H: a header of the caller's own wins (here another token)", async () => {
  const narrow = await svc.api('POST', '/auth/v1/access-tokens', { body: { name: 'header', scopes: ['store:r'], storeScope: { all: true } } });
  const r = await runCli(
    ['api', 'GET', '/auth/v1/me', '-H', `Authorization: Bearer ${narrow.data.token}`, '--header', 'Accept-Language: ko', '--json'],
    owner(),
  );
  assert.is(r.exitCode, 0, r.stdout + r.stderr);
  assert.is(jsonOf(r).token.kind, 'access');
  assert.is(jsonOf(r).token.tokenId, narrow.data.tokenId);
  const bad = await runCli(['api', 'GET', '/store', '-H', 'no-colon'], owner());
  assert.is(bad.exitCode, 2);
});

test('svc api --paginate: every page of page/size lists and of cursor lists, one JSON line each', async () => {
  for (let i = 0; i < 3; i++) {
    assert.is((await svc.api('POST', '/v1/products', { body: { name: `페이지 ${i}`, salePrice: 1000, stockQuantity: 1 } })).status, 201);
  }
  const env = owner({ SVC_STORE_ID: 'dev-store' });
  const paged = await runCli(['api', 'GET', '/products', '--query', 'size=2', '--paginate', '--json'], env);
  assert.is(paged.exitCode, 0, paged.stdout + paged.stderr);
  const pages = paged.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.is(pages.length, pages[0].totalPages);
  assert.ok(pages.length >= 2);
  assert.equal(
    pages.map((p) => p.page),
    pages.map((_, i) => i + 1),
  );
  const ids = pages.flatMap((p) => p.contents.map((c: any) => c.productId));
  assert.is(ids.length, pages[0].totalElements);
  assert.is(new Set(ids).size, ids.length);

  const cursor = await runCli(['api', 'GET', '/audit-logs', '--query', 'limit=2', '--paginate', '--json'], env);
  assert.is(cursor.exitCode, 0, cursor.stdout + cursor.stderr);
  const cursorPages = cursor.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.ok(cursorPages.length >= 2, `${cursorPages.length} pages`);
  assert.is(cursorPages.at(-1).nextCursor, null);
  const records = cursorPages.flatMap((p) => p.contents.map((c: any) => c.auditLogId));
  assert.is(new Set(records).size, records.length, 'no record twice');

  assert.is((await runCli(['api', 'POST', '/products', '--paginate'], env)).exitCode, 2, '--paginate reads, GET only');
});

test('svc api picks the only store in reach where the service asks for one', async () => {
  const dir = tmp('single');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 'default', profiles: {} }));
  const token = await svc.api('POST', '/auth/v1/access-tokens', { body: { name: 'single', scopes: ['store:r'], storeScope: { storeIds: [svc.storeId] } } });
  const r = await runCli(['api', 'GET', '/store', '--json'], { SVC_CONFIG_DIR: dir, SVC_API_URL: svc.url, SVC_TOKEN: token.data.token });
  assert.is(r.exitCode, 0, r.stdout + r.stderr);
  assert.is(jsonOf(r).storeId, svc.storeId);
});

// ─── pipes and ports ────────────────────────────────────────────────────────────────────────────

test('a closed pipe ends the command quietly with exit 0 (svc orders list | head)', async () => {
  await svc.api('PATCH', '/v1/store', { body: { guestCheckout: true } });
  for (const args of [
    ['orders', 'list', '--store', 'dev-store'],
    ['products', 'list', '--store', 'dev-store'],
  ]) {
    const proc = execa(process.execPath, ['bin/run.js', ...args], { cwd: packageRoot, env: cliEnv(owner()), extendEnv: false, reject: false, stdin: 'ignore' });
    // The reader goes away before the first line is written, as `head` does once it has its lines.
    proc.stdout!.destroy();
    const r = await proc;
    assert.is(r.exitCode, 0, `${args.join(' ')}: exit ${r.exitCode}\n${r.stderr}`);
    assert.is(String(r.stderr), '', 'quietly');
  }
  // Through a shell with pipefail, as a script would write it.
  const piped = await execa('bash', ['-c', 'set -o pipefail; node bin/run.js products list --store dev-store | head -1'], {
    cwd: packageRoot,
    env: cliEnv(owner()),
    extendEnv: false,
    reject: false,
  });
  assert.is(piped.exitCode, 0, String(piped.stderr));
  assert.match(String(piped.stdout), /^PRODUCT ID/);
});

test('svc dev on a busy port says so and suggests --port 0; --json gets an error line; no data dir is made', async () => {
  const blocker: Server = createServer();
  await new Promise<void>((ok) => blocker.listen(0, '127.0.0.1', ok));
  const port = (blocker.address() as { port: number }).port;
  try {
    const dataDir = join(tmp('busy'), 'data');
    const human = await runCli(['dev', '--port', String(port), '--data-dir', dataDir], {}, 60_000);
    assert.is(human.exitCode, 1, human.stdout + human.stderr);
    assert.match(human.stderr, new RegExp(`port ${port} of 127\\.0\\.0\\.1 is in use`));
    assert.match(human.stderr, /--port 0/);
    const asJson = await runCli(['dev', '--port', String(port), '--data-dir', dataDir, '--json'], {}, 60_000);
    assert.is(asJson.exitCode, 1);
    const lines = asJson.stdout.trim().split('\n');
    assert.is(lines.length, 1, asJson.stdout);
    const line = JSON.parse(lines[0]);
    assert.equal([line.event, line.code], ['error', 'PORT_IN_USE']);
    assert.match(line.message, /--port 0/);
    assert.not.ok(existsSync(dataDir), 'a failed start leaves no data dir behind');
  } finally {
    blocker.close();
  }
});

// ─── the smaller courtesies ─────────────────────────────────────────────────────────────────────

test('listen --events takes APP.* and any case', async () => {
  const env = cliEnv(owner({ SVC_STORE_ID: 'dev-store' }));
  const listen = execa(process.execPath, ['bin/run.js', 'webhooks', 'listen', '--events', 'order.paid,APP.*', '--json'], {
    cwd: packageRoot,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  try {
    let out = '';
    let err = '';
    let exited = false;
    listen.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    listen.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    void listen.then(() => (exited = true));
    const deadline = Date.now() + 30_000;
    // The stream carries events made after it opened: emit until one shows.
    const eventLines = () => out.split('\n').filter((l) => l.startsWith('{"event":{'));
    while (eventLines().length === 0 && Date.now() < deadline && !exited) {
      await svc.api('POST', '/_dev/v1/events', { body: { type: 'ORDER.PAID' } });
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(eventLines().length > 0, `no event line (exited: ${exited}): ${out} ${err}`);
    assert.is(JSON.parse(out.split('\n')[0]).event, 'ready');
    assert.is(JSON.parse(eventLines()[0]).event.type, 'ORDER.PAID');
  } finally {
    listen.kill('SIGINT');
    await listen;
  }
  const unknown = await runCli(['webhooks', 'listen', '--events', 'ORDER.NOPE'], owner({ SVC_STORE_ID: 'dev-store' }));
  assert.is(unknown.exitCode, 2);
});

test('webhook samples (test sends and trigger) carry the statuses of their event; trigger events a sequence', async () => {
  const hook = await svc.api('POST', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['ORDER.PAID'] } });
  assert.is(hook.status, 201, JSON.stringify(hook.body));
  const expected: Record<string, Record<string, unknown>> = {
    'ORDER.CONFIRMED': { status: 'CONFIRMED' },
    'ORDER.DISPATCHED': { status: 'DISPATCHED' },
    'ORDER.PURCHASE_DECIDED': { status: 'PURCHASE_DECIDED' },
    'CLAIM.RETURN_REQUESTED': { claimType: 'RETURN', status: 'REQUESTED' },
    'CLAIM.EXCHANGE_REQUESTED': { claimType: 'EXCHANGE', status: 'REQUESTED', refundAmount: null },
    'CLAIM.COMPLETED': { status: 'COMPLETED' },
  };
  for (const [eventType, fields] of Object.entries(expected)) {
    const sent = await svc.api('POST', `/v1/webhooks/${hook.data.webhookId}/test`, { body: { eventType } });
    assert.is(sent.status, 200, JSON.stringify(sent.body));
    const body = JSON.parse(sent.data.payload);
    for (const [k, v] of Object.entries(fields)) assert.equal(body.data[k], v, `${eventType} ${k}`);
    assert.not.ok('sequence' in body, 'spec 01 §6.1: absent on test sends');
  }
  const triggered = await runCli(['webhooks', 'trigger', 'CLAIM.COMPLETED', '--json'], owner({ SVC_STORE_ID: 'dev-store' }));
  assert.is(triggered.exitCode, 0, triggered.stdout + triggered.stderr);
  assert.type(jsonOf(triggered).sequence, 'number');
});

test('checkout try explains GUEST_CHECKOUT_DISABLED', async () => {
  assert.is((await svc.api('PATCH', '/v1/store', { body: { guestCheckout: false } })).status, 200);
  try {
    const r = await runCli(['checkout', 'try', '--store', 'dev-store'], owner(), 60_000);
    assert.is(r.exitCode, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /GUEST_CHECKOUT_DISABLED/);
    assert.match(r.stderr, /checkout try buys as a guest.*"guestCheckout":true/);
  } finally {
    await svc.api('PATCH', '/v1/store', { body: { guestCheckout: true } });
  }
});

test('app init with an invalid handle states the rule and suggests one', async () => {
  const r = await runCli(['app', 'init', join(tmp('init'), 'Demo_1')], {});
  assert.is(r.exitCode, 2);
  assert.match(r.stderr, /3 to 30 lowercase letters, digits and hyphens, starting with a letter/);
  assert.match(r.stderr, /svc app init demo-1/);
});

test('package: a scoped name that is not the unrelated `svc`; the bin is still svc; docs import what is installed', async () => {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
  assert.match(pkg.name, /^@[a-z0-9-]+\/[a-z0-9-]+$/);
  assert.equal(Object.keys(pkg.bin), ['svc']);
  const webhooksDoc = readFileSync(join(packageRoot, 'docs', 'webhooks.md'), 'utf8');
  assert.ok(webhooksDoc.includes(`import { verifyWebhook } from '${pkg.name}';`));
  assert.match(webhooksDoc, /npm install PATH\/TO\/svc/);
  for (const doc of ['README.md', 'docs/webhooks.md', 'docs/apps.md']) {
    assert.not.match(readFileSync(join(packageRoot, doc), 'utf8'), /from 'svc'/, `${doc} imports the package by its name`);
  }
});

test.run();
