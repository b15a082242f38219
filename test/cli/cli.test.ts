/**
 * The compiled CLI (`node bin/run.js …`) against an in-process service, as a script or CI would run
 * it: no TTY, CI=1, a private config dir (DESIGN.md §4). Invocations run one after another.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authorize as authorizeAs, oauthLogin as oauthLoginAt } from '../helpers/oauth.js';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';

const root = join(import.meta.dirname, '..', '..');
const SEED_EMAIL = 'dev@svc.local';

let svc: TestService;
const dirs: string[] = [];
const tmp = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `svc-cli-${label}-`));
  dirs.push(dir);
  return dir;
};
/** The config dir most tests share; precedence tests use fresh ones. */
let config: string;

test.before(async () => {
  svc = await startTestService();
  // Not created yet: the CLI makes it (private) on the first write.
  config = join(tmp('config'), 'svc');
});
test.after(async () => {
  await svc.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function baseEnv(configDir: string, extra: Record<string, string | undefined>) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SVC_') && k !== 'CI') env[k] = v;
  Object.assign(env, { SVC_CONFIG_DIR: configDir, CI: '1', FORCE_COLOR: '0', NO_COLOR: '1' });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

interface CliOptions {
  env?: Record<string, string | undefined>;
  configDir?: string;
}

/** Runs `svc ARGS` to the end; stdin is not a terminal. */
async function svcCli(args: string[], options: CliOptions = {}) {
  const r = await execa(process.execPath, ['bin/run.js', ...args], {
    cwd: root,
    env: baseEnv(options.configDir ?? config, options.env ?? {}),
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
    timeout: 20_000,
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** `--json` output: the whole of stdout must be one JSON value. */
function json(r: { exitCode?: number; stdout: string; stderr: string }) {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`stdout is not JSON (exit ${r.exitCode}): ${r.stdout}\nstderr: ${r.stderr}`);
  }
}

const readJsonFile = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8'));
const modeOf = (path: string) => statSync(path).mode & 0o777;
const anon = () => apiClient(svc.url);

const authorize = (authorizeUrl: string, decision: 'allow' | 'deny') => authorizeAs(svc.url, authorizeUrl, decision);

/** Starts `svc login --no-browser` and resolves the authorization URL it prints on stderr. */
function startLogin(args: string[]) {
  const proc = execa(process.execPath, ['bin/run.js', 'login', '--no-browser', ...args], {
    cwd: root,
    env: baseEnv(config, {}),
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
    timeout: 20_000,
  });
  let stderr = '';
  const url = new Promise<string>((resolve, reject) => {
    proc.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = /(http:\/\/\S+\/auth\/authorize\?\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    proc.then((r) => reject(new Error(`login exited ${r.exitCode} before printing a URL: ${r.stdout} ${r.stderr}`)));
  });
  return { proc, url };
}

const oauthLogin = () => oauthLoginAt(svc.url);

async function refreshStatus(refreshToken: string) {
  const res = await fetch(`${svc.url}/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'svc-cli' }),
  });
  return { status: res.status, body: await res.json() };
}

// ─── profiles ────────────────────────────────────────────────────────────────────────────────────

test('profiles add | list | use | remove; config file mode 0600', async () => {
  const added = await svcCli(['profiles', 'add', 'local', '--api-url', `${svc.url}/`, '--default-store', svc.storeId, '--use', '--json']);
  assert.is(added.exitCode, 0, added.stderr);
  assert.equal(json(added), { name: 'local', apiUrl: svc.url, storeId: svc.storeId, current: true });
  assert.is(modeOf(join(config, 'config.json')), 0o600);
  assert.is(modeOf(config), 0o700, 'the config dir is private');

  assert.is((await svcCli(['profiles', 'add', 'other', '--api-url', 'http://127.0.0.1:1', '--json'])).exitCode, 0);
  let list = json(await svcCli(['profiles', 'list', '--json'])).contents;
  assert.equal(
    list.map((p: any) => [p.name, p.current, p.apiUrl, p.storeId]),
    [
      ['default', false, 'http://127.0.0.1:8787', null],
      ['local', true, svc.url, svc.storeId],
      ['other', false, 'http://127.0.0.1:1', null],
    ],
  );
  const human = await svcCli(['profiles', 'list']);
  assert.is(human.exitCode, 0);
  assert.match(human.stdout, /\*\s+local\s/);

  const use = await svcCli(['profiles', 'use', 'other', '--json']);
  assert.is(use.exitCode, 0);
  assert.equal(json(use), { currentProfile: 'other' });
  assert.is(readJsonFile(config, 'config.json').currentProfile, 'other');
  list = json(await svcCli(['profiles', 'list', '--json'])).contents;
  assert.equal(
    list.filter((p: any) => p.current).map((p: any) => p.name),
    ['other'],
  );

  const removed = await svcCli(['profiles', 'remove', 'other', '--json']);
  assert.is(removed.exitCode, 0);
  assert.equal(json(removed), { removed: 'other' });
  const after = readJsonFile(config, 'config.json');
  assert.not.ok('other' in after.profiles);
  assert.is(after.currentProfile, 'default', 'removing the current profile falls back to default');
  assert.is(modeOf(join(config, 'config.json')), 0o600);

  // Usage errors: exit 2, nothing changed.
  assert.is((await svcCli(['profiles', 'use', 'nope'])).exitCode, 2);
  assert.is((await svcCli(['profiles', 'remove', 'nope'])).exitCode, 2);
  assert.is((await svcCli(['profiles', 'remove', 'default'])).exitCode, 2);
  const badUrl = await svcCli(['profiles', 'add', 'bad', '--api-url', 'not a url', '--json']);
  assert.is(badUrl.exitCode, 2);
  assert.is(json(badUrl).code, 'USAGE');
  assert.is((await svcCli(['profiles', 'add', 'bad'])).exitCode, 2, 'missing --api-url');
  assert.not.ok('bad' in readJsonFile(config, 'config.json').profiles);

  assert.is((await svcCli(['profiles', 'use', 'local'])).exitCode, 0);
});

// ─── login (PKCE through the loopback listener) ──────────────────────────────────────────────────

test('login: PKCE flow with a loopback callback; whoami shows the login; credentials mode 0600', async () => {
  const { proc, url } = startLogin(['--profile', 'local', '--json']);
  const authorizeUrl = new URL(await url);
  assert.is(authorizeUrl.origin, svc.url);
  assert.is(authorizeUrl.searchParams.get('client_id'), 'svc-cli');
  assert.is(authorizeUrl.searchParams.get('code_challenge_method'), 'S256');
  assert.is(authorizeUrl.searchParams.get('response_type'), 'code');
  const redirectUri = authorizeUrl.searchParams.get('redirect_uri')!;
  assert.match(redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);

  // The page a browser would show.
  const page = await fetch(authorizeUrl);
  assert.is(page.status, 200);
  assert.match(await page.text(), /<form method="post" action="\/auth\/authorize">/);

  const location = await authorize(authorizeUrl.toString(), 'allow');
  const back = new URL(location);
  assert.is(`${back.origin}${back.pathname}`, redirectUri);
  assert.ok(back.searchParams.get('code'));
  assert.is(back.searchParams.get('state'), authorizeUrl.searchParams.get('state'));
  const callback = await fetch(location);
  assert.is(callback.status, 200);
  assert.match(await callback.text(), /로그인되었습니다/);

  const result = await proc;
  assert.is(result.exitCode, 0, String(result.stderr));
  assert.match(String(result.stderr), /waiting for the browser… \(Ctrl-C to stop\)/);
  const out = JSON.parse(String(result.stdout));
  assert.equal(out, { profile: 'local', userId: out.userId, email: SEED_EMAIL, kind: 'login' });
  assert.match(out.userId, /^usr_/);

  const credentials = join(config, 'credentials.json');
  assert.is(modeOf(credentials), 0o600);
  const saved = readJsonFile(config, 'credentials.json').local;
  assert.is(saved.kind, 'login');
  assert.is(saved.clientId, 'svc-cli');
  assert.ok(saved.refreshToken && saved.accessToken);
  assert.ok(saved.expiresAt > Date.now() + 5 * 60_000, 'expiry from expires_in');

  const who = await svcCli(['whoami', '--json']);
  assert.is(who.exitCode, 0, who.stderr);
  const me = json(who);
  assert.is(me.profile, 'local');
  assert.is(me.apiUrl, svc.url);
  assert.is(me.email, SEED_EMAIL);
  assert.is(me.token.kind, 'login');
  assert.is(me.token.clientId, 'svc-cli');
  assert.is(me.token.storePlatform, true);

  const list = json(await svcCli(['profiles', 'list', '--json']));
  assert.equal(Object.keys(list).sort(), ['contents', 'nextCursor'], 'a whole list is a page with no next one');
  assert.is(list.contents.find((p: any) => p.name === 'local').credential, 'login');
});

test('login: denied consent exits non-zero and keeps the saved credential', async () => {
  const before = readJsonFile(config, 'credentials.json').local;
  const { proc, url } = startLogin(['--profile', 'local']);
  const location = await authorize(await url, 'deny');
  assert.is(new URL(location).searchParams.get('error'), 'access_denied');
  assert.is(new URL(location).searchParams.get('code'), null);
  await fetch(location);
  const result = await proc;
  assert.is(result.exitCode, 2, `exit ${result.exitCode}: ${result.stderr}`);
  assert.match(String(result.stderr), /not approved \(access_denied\)/);
  assert.equal(readJsonFile(config, 'credentials.json').local, before);
});

// ─── stores and tokens ───────────────────────────────────────────────────────────────────────────

let ciToken = '';
let ciTokenId = '';

test('stores list --json: the stores of the login', async () => {
  const r = await svcCli(['stores', 'list', '--json']);
  assert.is(r.exitCode, 0, r.stderr);
  const stores = json(r);
  assert.equal(stores.nextCursor, null, 'one list shape: { contents, nextCursor }');
  assert.equal(
    stores.contents.map((s: any) => [s.storeId, s.code, s.role]),
    [[svc.storeId, 'dev-store', 'OWNER']],
  );
  const human = await svcCli(['stores', 'list']);
  assert.match(human.stdout, /^STORE ID\s+CODE\s+NAME\s+ROLE$/m, 'spaced, upper-case headers');
  assert.match(human.stdout, new RegExp(`${svc.storeId}\\s+dev-store`));
});

test('tokens create | list; the value is shown once and works', async () => {
  const created = await svcCli(['tokens', 'create', '--name', 'ci', '--scopes', 'store:r,stores:read', '--json']);
  assert.is(created.exitCode, 0, created.stderr);
  const token = json(created);
  assert.is(token.name, 'ci');
  assert.equal([...token.scopes].sort(), ['store:r', 'stores:read']);
  assert.equal(token.storeScope, { all: true });
  assert.type(token.token, 'string');
  ciToken = token.token;
  ciTokenId = token.tokenId;

  const listed = await svcCli(['tokens', 'list', '--json']);
  assert.is(listed.exitCode, 0);
  const tokens = json(listed).contents;
  const row = tokens.find((t: any) => t.tokenId === ciTokenId);
  assert.ok(row, 'the new token is listed');
  assert.is(row.name, 'ci');
  assert.not.ok('token' in row);
  assert.not.ok(listed.stdout.includes(ciToken), 'the value never appears again');

  // The token reads the store and nothing more.
  const who = await svcCli(['whoami', '--json'], { env: { SVC_TOKEN: ciToken } });
  assert.is(json(who).token.kind, 'access', 'SVC_TOKEN wins over the saved login');
  const read = await svcCli(['api', 'GET', '/v1/store', '--json'], { env: { SVC_TOKEN: ciToken } });
  assert.is(read.exitCode, 0, read.stdout);
  assert.is(json(read).storeId, svc.storeId, 'the profile default store is used');
  const write = await svcCli(['api', 'PATCH', '/v1/store', '--data', '{"name":"nope"}', '--json'], { env: { SVC_TOKEN: ciToken } });
  assert.is(write.exitCode, 1);
  assert.is(json(write).code, 'INSUFFICIENT_ROLE');
});

test('tokens create without --name in CI (or without a TTY) is a usage error', async () => {
  const ci = await svcCli(['tokens', 'create', '--scopes', 'store:r']);
  assert.is(ci.exitCode, 2);
  assert.match(ci.stderr, /missing --name/);
  // No CI variable, but stdin is not a terminal: still no prompt.
  const noTty = await svcCli(['tokens', 'create', '--name', 'x'], { env: { CI: undefined } });
  assert.is(noTty.exitCode, 2);
  assert.match(noTty.stderr, /missing --scopes/);
  const asJson = await svcCli(['tokens', 'create', '--json']);
  assert.is(asJson.exitCode, 2);
  assert.equal(json(asJson), { code: 'USAGE', message: 'missing --name' });
  assert.not.ok(json(await svcCli(['tokens', 'list', '--json'])).contents.some((t: any) => t.name === 'x'));
});

test('login --token saves an access token for the profile', async () => {
  assert.is((await svcCli(['profiles', 'add', 'tok', '--api-url', svc.url])).exitCode, 0);
  const r = await svcCli(['login', '--token', ciToken, '--profile', 'tok', '--json']);
  assert.is(r.exitCode, 0, r.stderr);
  assert.equal(json(r), { profile: 'tok', userId: json(r).userId, email: SEED_EMAIL, kind: 'token' });
  assert.match(json(r).userId, /^usr_/);
  assert.equal(readJsonFile(config, 'credentials.json').tok, { kind: 'token', token: ciToken, apiUrl: svc.url }, 'bound to the service it was checked against');
  assert.is(modeOf(join(config, 'credentials.json')), 0o600);
  const who = json(await svcCli(['whoami', '--profile', 'tok', '--json']));
  assert.is(who.token.kind, 'access');
  assert.is(who.token.tokenId, ciTokenId);
  const stores = json(await svcCli(['stores', 'list', '--profile', 'tok', '--json']));
  assert.equal(
    stores.contents.map((s: any) => s.code),
    ['dev-store'],
  );

  // A bad token is refused before anything is saved.
  const bad = await svcCli(['login', '--token', 'not-a-token', '--profile', 'tok', '--json']);
  assert.is(bad.exitCode, 1);
  assert.is(json(bad).code, 'UNAUTHORIZED');
  assert.is(readJsonFile(config, 'credentials.json').tok.token, ciToken);
});

test('tokens revoke: the token stops working with 401 TOKEN_REVOKED', async () => {
  const r = await svcCli(['tokens', 'revoke', ciTokenId, '--json']);
  assert.is(r.exitCode, 0, r.stderr);
  assert.is(json(r).tokenId, ciTokenId);
  const res = await anon()('GET', '/auth/v1/me', { token: ciToken });
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'TOKEN_REVOKED');
  const who = await svcCli(['whoami', '--profile', 'tok', '--json']);
  assert.is(who.exitCode, 1);
  assert.is(json(who).code, 'TOKEN_REVOKED');
  assert.is(json(await svcCli(['tokens', 'list', '--json'])).contents.find((t: any) => t.tokenId === ciTokenId).status, 'REVOKED');
  const again = await svcCli(['tokens', 'revoke', 'tok_nope', '--json']);
  assert.is(again.exitCode, 1);
  assert.is(json(again).code, 'NOT_FOUND');
});

// ─── svc api ─────────────────────────────────────────────────────────────────────────────────────

const storeName = async () => (await svc.api('GET', '/v1/store')).data.name as string;

test('api: --store by code or id; --json prints only the data', async () => {
  const byCode = await svcCli(['api', 'GET', '/v1/store', '--store', 'dev-store', '--json']);
  assert.is(byCode.exitCode, 0, byCode.stderr);
  const data = json(byCode);
  assert.is(data.storeId, svc.storeId);
  assert.not.ok('meta' in data, 'the data alone, not the envelope');
  const byId = await svcCli(['api', 'GET', '/v1/store', '--store', svc.storeId, '--json']);
  assert.equal(json(byId), data);
  const lower = await svcCli(['api', 'get', 'v1/store', '--json']);
  assert.is(json(lower).storeId, svc.storeId, 'lower-case method, path without slash, profile store');

  // The service resolves codes: an unknown one is its 404, not NOT_A_MEMBER.
  const unknown = await svcCli(['api', 'GET', '/v1/store', '--store', 'no-such-store', '--json']);
  assert.is(unknown.exitCode, 1);
  assert.is(json(unknown).code, 'STORE_NOT_FOUND');
  const unknownHuman = await svcCli(['api', 'GET', '/v1/store', '--store', 'no-such-store']);
  assert.match(unknownHuman.stderr, /no such store "no-such-store"/);
});

test('api: --query is sent as query parameters', async () => {
  assert.is((await svcCli(['api', 'PATCH', '/v1/store', '--data', '{"guestCheckout":true}'])).exitCode, 0);
  const r = await svcCli(['api', 'GET', '/v1/audit-logs', '--query', 'limit=1', '-q', 'source=CLI', '--json']);
  assert.is(r.exitCode, 0, r.stdout);
  const page = json(r);
  assert.is(page.contents.length, 1);
  assert.is(page.contents[0].source, 'CLI');
  const unknown = await svcCli(['api', 'GET', '/v1/store', '--query', 'foo=bar', '--json']);
  assert.is(unknown.exitCode, 1);
  assert.is(json(unknown).fieldErrors[0].field, 'foo');
});

test('api: --data inline and @file', async () => {
  const file = join(tmp('data'), 'store.json');
  writeFileSync(file, JSON.stringify({ name: 'From File' }));
  const r = await svcCli(['api', 'PATCH', '/v1/store', '--data', `@${file}`, '--json']);
  assert.is(r.exitCode, 0, r.stdout);
  assert.is(json(r).name, 'From File');
  assert.is(await storeName(), 'From File');
  const inline = await svcCli(['api', 'PATCH', '/v1/store', '-d', '{"name":"Inline"}', '--json']);
  assert.is(json(inline).name, 'Inline');
  assert.is(await storeName(), 'Inline');
});

test('api: --idempotency-key replays the first response; another body under the key is IDEMPOTENCY_KEY_REUSED', async () => {
  const args = ['api', 'PATCH', '/v1/store', '--data', '{"name":"Idem One"}', '--idempotency-key', 'cli-key-1', '--json'];
  const first = await svcCli(args);
  assert.is(first.exitCode, 0, first.stdout);
  assert.is(json(first).name, 'Idem One');
  // Someone else renames the store; a replay must not apply the change again.
  assert.is((await svc.api('PATCH', '/v1/store', { body: { name: 'Changed Meanwhile' } })).status, 200);
  const second = await svcCli(args);
  assert.is(second.exitCode, 0);
  assert.equal(json(second), json(first));
  assert.is(await storeName(), 'Changed Meanwhile', 'the replay did not run the handler again');

  const reused = await svcCli(['api', 'PATCH', '/v1/store', '--data', '{"name":"Idem Two"}', '--idempotency-key', 'cli-key-1', '--json']);
  assert.is(reused.exitCode, 1);
  assert.is(json(reused).code, 'IDEMPOTENCY_KEY_REUSED');
  assert.is(await storeName(), 'Changed Meanwhile');
});

test('api: --dry-run previews and changes nothing', async () => {
  const before = await storeName();
  const r = await svcCli(['api', 'PATCH', '/v1/store', '--data', '{"name":"Dry Run"}', '--dry-run', '--json']);
  assert.is(r.exitCode, 0, r.stdout);
  const data = json(r);
  assert.is(data.dryRun, true);
  assert.is(data.preview.operationId, 'updateStore');
  assert.is(await storeName(), before);
  const human = await svcCli(['api', 'PATCH', '/v1/store', '--data', '{"name":"Dry Run"}', '--dry-run']);
  assert.is(human.exitCode, 0);
  assert.match(human.stderr, /^DRY_RUN: /m, 'meta code DRY_RUN is shown');
  assert.is(await storeName(), before);
  const audit = json(await svcCli(['api', 'GET', '/v1/audit-logs', '-q', 'outcome=DRY_RUN', '-q', 'limit=5', '--json']));
  assert.ok(audit.contents.length >= 2 && audit.contents.every((a: any) => a.action === 'updateStore'));
});

test('api errors: exit 1; --json prints exactly the error object', async () => {
  const r = await svcCli(['api', 'PATCH', '/v1/store', '--data', '{"colour":"blue"}', '--json']);
  assert.is(r.exitCode, 1);
  const error = json(r);
  assert.equal(Object.keys(error).sort(), ['code', 'details', 'docs', 'fieldErrors', 'message', 'traceId']);
  assert.is(error.code, 'VALIDATION_FAILED');
  assert.equal(
    error.fieldErrors.map((f: any) => [f.field, f.code]),
    [['colour', 'UNKNOWN_FIELD']],
  );
  assert.match(error.traceId, /\S/);
  assert.is(r.stderr, '');

  const human = await svcCli(['api', 'PATCH', '/v1/store', '--data', '{"colour":"blue"}']);
  assert.is(human.exitCode, 1);
  assert.is(human.stdout, '');
  assert.match(human.stderr, /✗ VALIDATION_FAILED: /);
  assert.match(human.stderr, /colour: UNKNOWN_FIELD/);
  assert.match(human.stderr, /traceId: \S+/);

  const missing = await svcCli(['api', 'GET', '/v1/nothing-here', '--json']);
  assert.is(missing.exitCode, 1);
  assert.is(json(missing).code, 'ROUTE_NOT_FOUND');

  const down = await svcCli(['api', 'GET', '/v1/store', '--json'], { env: { SVC_API_URL: 'http://127.0.0.1:1', SVC_TOKEN: 'any' } });
  assert.is(down.exitCode, 1);
  assert.is(json(down).code, 'CONNECTION_FAILED');
});

test('usage errors: exit 2 (unknown flag, bad --query, invalid --data, missing file, bad method)', async () => {
  const before = await storeName();
  const cases: [string, string[]][] = [
    ['unknown flag', ['api', 'GET', '/v1/store', '--bogus']],
    ['bad --query', ['api', 'GET', '/v1/store', '--query', 'novalue']],
    ['invalid JSON in --data', ['api', 'PATCH', '/v1/store', '--data', '{"name":']],
    ['missing --data file', ['api', 'PATCH', '/v1/store', '--data', `@${join(tmp('nofile'), 'missing.json')}`]],
    ['unknown method', ['api', 'FETCH', '/v1/store']],
    ['missing path', ['api', 'GET']],
    ['unknown profile', ['whoami', '--profile', 'nope']],
  ];
  for (const [label, args] of cases) {
    const r = await svcCli(args);
    assert.is(r.exitCode, 2, `${label}: exit ${r.exitCode}\n${r.stdout}\n${r.stderr}`);
  }
  const bad = await svcCli(['api', 'PATCH', '/v1/store', '--data', 'nope', '--json']);
  assert.is(bad.exitCode, 2);
  assert.equal(json(bad), { code: 'USAGE', message: '--data is not valid JSON' });
  assert.is(await storeName(), before);
});

// ─── precedence: flags > variables > saved profile ───────────────────────────────────────────────

test('SVC_API_URL + SVC_TOKEN + SVC_STORE_ID work with no saved profile; --store beats SVC_STORE_ID', async () => {
  const empty = tmp('empty');
  // A second store of the seeded owner, so the two store choices give different answers.
  const second = await svc.api('POST', '/auth/v1/stores', { body: { name: 'Second Store', code: 'second-store' } });
  assert.is(second.status, 201);
  const env = { SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: second.data.storeId };

  const viaEnv = await svcCli(['api', 'GET', '/v1/store', '--json'], { configDir: empty, env });
  assert.is(viaEnv.exitCode, 0, viaEnv.stdout);
  assert.is(json(viaEnv).storeId, second.data.storeId);
  assert.is(json(viaEnv).name, 'Second Store');
  assert.not.ok(existsSync(join(empty, 'credentials.json')), 'SVC_TOKEN is never saved');

  const flagCode = await svcCli(['api', 'GET', '/v1/store', '--store', 'dev-store', '--json'], { configDir: empty, env });
  assert.is(json(flagCode).storeId, svc.storeId);
  const flagId = await svcCli(['api', 'GET', '/v1/store', '--store', svc.storeId, '--json'], { configDir: empty, env });
  assert.is(json(flagId).storeId, svc.storeId);
  const codeEnv = await svcCli(['api', 'GET', '/v1/store', '--json'], { configDir: empty, env: { ...env, SVC_STORE_ID: 'second-store' } });
  assert.is(json(codeEnv).storeId, second.data.storeId, 'SVC_STORE_ID takes a code too');

  // Without SVC_API_URL the default address is used (and nothing listens there in this test).
  const noUrl = await svcCli(['api', 'GET', '/v1/store', '--json'], { configDir: empty, env: { ...env, SVC_API_URL: undefined } });
  assert.is(noUrl.exitCode, 1);
  assert.match(json(noUrl).message, /127\.0\.0\.1:8787/);
  // No store anywhere and two in reach: `svc api` cannot pick one, and says which there are.
  const noStore = await svcCli(['api', 'GET', '/v1/store', '--json'], { configDir: empty, env: { ...env, SVC_STORE_ID: undefined } });
  assert.is(noStore.exitCode, 2);
  assert.match(json(noStore).message, /no store chosen among dev-store, second-store/);
});

test('--profile beats SVC_PROFILE; SVC_PROFILE beats the saved current profile', async () => {
  const dir = tmp('profiles');
  const opts = (env: Record<string, string>) => ({ configDir: dir, env });
  // p-env → the service with an access token; p-flag → the service with the owner's login token;
  // p-saved (current) → nowhere.
  const token = json(await svcCli(['tokens', 'create', '--name', 'precedence', '--scopes', 'stores:read', '--json'])).token as string;
  for (const [name, url] of [
    ['p-env', svc.url],
    ['p-flag', svc.url],
    ['p-saved', 'http://127.0.0.1:1'],
  ]) {
    assert.is((await svcCli(['profiles', 'add', name, '--api-url', url], opts({}))).exitCode, 0);
  }
  assert.is((await svcCli(['login', '--token', token, '--profile', 'p-env'], opts({}))).exitCode, 0);
  assert.is((await svcCli(['login', '--token', svc.ownerToken, '--profile', 'p-flag'], opts({}))).exitCode, 0);
  assert.is((await svcCli(['profiles', 'use', 'p-saved'], opts({}))).exitCode, 0);

  const saved = await svcCli(['whoami', '--json'], opts({}));
  assert.is(saved.exitCode, 1);
  assert.is(json(saved).code, 'CONNECTION_FAILED');
  const env = json(await svcCli(['whoami', '--json'], opts({ SVC_PROFILE: 'p-env' })));
  assert.is(env.profile, 'p-env');
  assert.is(env.token.kind, 'access');
  const flag = json(await svcCli(['whoami', '--profile', 'p-flag', '--json'], opts({ SVC_PROFILE: 'p-env' })));
  assert.is(flag.profile, 'p-flag');
  assert.is(flag.token.kind, 'login');
  // SVC_API_URL wins over the profile's address.
  const url = json(await svcCli(['whoami', '--json'], opts({ SVC_API_URL: svc.url, SVC_TOKEN: token })));
  assert.is(url.apiUrl, svc.url);
  assert.is(url.profile, 'p-saved');
});

// ─── refresh and logout ──────────────────────────────────────────────────────────────────────────

test('an expired login access token is refreshed automatically and the rotated pair is saved', async () => {
  const dir = tmp('refresh');
  assert.is((await svcCli(['profiles', 'add', 'r', '--api-url', svc.url, '--use'], { configDir: dir })).exitCode, 0);
  const pair = await oauthLogin();
  writeFileSync(
    join(dir, 'credentials.json'),
    JSON.stringify({
      r: { kind: 'login', accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt: Date.now() - 60_000, clientId: 'svc-cli' },
    }),
    { mode: 0o644 },
  );
  chmodSync(join(dir, 'credentials.json'), 0o644);

  const who = await svcCli(['whoami', '--json'], { configDir: dir });
  assert.is(who.exitCode, 0, who.stdout + who.stderr);
  assert.is(json(who).email, SEED_EMAIL);
  assert.is(json(who).token.kind, 'login');
  const saved = readJsonFile(dir, 'credentials.json').r;
  assert.is(saved.kind, 'login');
  assert.is.not(saved.refreshToken, pair.refreshToken, 'the refresh token rotated');
  assert.is.not(saved.accessToken, pair.accessToken);
  assert.ok(saved.expiresAt > Date.now() + 5 * 60_000);
  assert.is(modeOf(join(dir, 'credentials.json')), 0o600, 'a file that was looser is tightened when rewritten');

  // A rejected access token (401) with a future expiry is refreshed once and retried.
  const rotated = saved.refreshToken;
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ r: { ...saved, accessToken: 'garbage' } }), { mode: 0o600 });
  const retried = await svcCli(['api', 'GET', '/v1/store', '--store', 'dev-store', '--json'], { configDir: dir });
  assert.is(retried.exitCode, 0, retried.stdout);
  assert.is(json(retried).storeId, svc.storeId);
  assert.is.not(readJsonFile(dir, 'credentials.json').r.refreshToken, rotated);

  // The first refresh token was spent by the CLI: presenting it again is refused.
  assert.is((await refreshStatus(pair.refreshToken)).status, 400);
});

test('logout revokes the session and forgets the credential', async () => {
  const saved = readJsonFile(config, 'credentials.json').local;
  assert.is(saved.kind, 'login');
  const r = await svcCli(['logout', '--profile', 'local', '--json']);
  assert.is(r.exitCode, 0, r.stderr);
  assert.equal(json(r), { loggedOut: true, profile: 'local' });
  assert.not.ok('local' in readJsonFile(config, 'credentials.json'));
  assert.is(modeOf(join(config, 'credentials.json')), 0o600);

  const refresh = await refreshStatus(saved.refreshToken);
  assert.is(refresh.status, 400);
  assert.is(refresh.body.error, 'invalid_grant');
  const me = await anon()('GET', '/auth/v1/me', { token: saved.accessToken });
  assert.is(me.status, 401);
  assert.is(me.body.error.code, 'TOKEN_REVOKED');

  const who = await svcCli(['whoami', '--profile', 'local', '--json']);
  assert.is(who.exitCode, 1);
  assert.is(json(who).code, 'UNAUTHORIZED');
  const twice = await svcCli(['logout', '--profile', 'local']);
  assert.is(twice.exitCode, 0);
  assert.match(twice.stdout, /had no saved credential/);
});

test.run();
