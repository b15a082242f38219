/**
 * Every command of README.md and docs/*.md, run as written (issue 32), so the docs cannot drift from the CLI.
 *
 * The commands are the lines of each doc's fenced `sh` blocks, in order (a `\` continues a line). Each doc runs
 * in a fresh folder standing in for a clone of this repository, against a test service standing in
 * for the `svc dev` of "another terminal" (its address replaces 127.0.0.1:8787), logged in with the seeded
 * owner's token (the docs' `svc login` opens a browser). `npx` resolves `svc` as npx does: the nearest
 * project's `node_modules/.bin/svc` (what a scaffold links), this package's own bin in the clone, and
 * anywhere else a failure, since there npx would fetch the unrelated `svc` package of the registry. A bare
 * `svc` is not on the PATH (no `npm link`), except inside `npm run` scripts, as for a newcomer.
 *
 * Placeholders are filled from what earlier commands printed: `oi_…` is the first `oi_` id of the latest output
 * that has one (the top of a list, what a walk prints first), and
 * `"orderPassword":"…"` the guest order password `svc checkout try` printed. Commands that run until stopped
 * (`svc storefront dev`, `svc webhooks listen`, `--follow`, `--watch`) run in the background from their first
 * line of output until the doc ends. What cannot run in a test is listed in NOT_RUN with its reason; a command
 * that is neither listed nor runnable (an elided `…`) fails the test, which names the doc and line.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa, type ResultPromise } from 'execa';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ADDRESS, connectSandbox } from './checkout.js';
import { apiClient, createAccessToken, newSellerWithStore, startTestService, type TestService } from './service.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'run.js');

/** Docs whose blocks are not run, with the reason. */
const NOT_RUN_DOCS: Record<string, string> = {
  'cli.md': 'the generated reference (npm run docs): usage synopses with placeholders, one per command, made from the commands themselves',
  'console.md': "the web console's doc, tested with the console",
};

/** Commands that cannot run in a test, by how they start, each with its reason. */
const NOT_RUN: [RegExp, string][] = [
  [/^npm install && npx svc dev$/, 'installs the dependencies from the registry; the test service stands in for svc dev'],
  [/^npx svc dev\b|^svc dev\b/, 'the test service stands in for svc dev (on a free port, with its own data dir)'],
  [/^npm ci && npm test/, 'the test suite itself'],
  [/^npm run bench\b/, 'the benchmarks run for minutes at full load; `npm run bench -- --quick` is their own check'],
  [/^npx svc login$/, 'opens a browser for OAuth; the test uses a token instead, as the docs say for no browser (test/cli/cli.test.ts logs in)'],
  [/^npx @modelcontextprotocol\/inspector /, 'downloads the MCP Inspector from the registry; test/mcp/stdio.test.ts makes the same svc mcp calls'],
  [
    /^npm install PATH\/TO\/svc\b/,
    'installs this package into a project of yours; the scaffolds link it the same way (test/apps/cli.test.ts, test/storefront/cli.test.ts)',
  ],
  [
    /^export SVC_DATABASE_URL='postgres:\/\/svc:…@db\.example\.com/,
    'a managed PostgreSQL elsewhere; npm run test:pg runs the suite on PostgreSQL and test/scale the workers',
  ],
  [
    /^export SVC_PUBLIC_URL=https:\/\/api\.example\.com|^export SVC_DATA_DIR=\/mnt\/shared\/svc/,
    'settings of that deployment (docs/scale.md), not of this machine',
  ],
  [/^npx svc serve --workers 4/, 'a deployment on the PostgreSQL above; test/scale runs svc serve with workers'],
  [
    /^curl -s -X POST http:\/\/127\.0\.0\.1:8787\/storefront\/v1\/guest\/orders\/ord_…\/items\/oi_…\/claims … \(same body\)$/,
    'repeats the line above with its body elided; the test files that claim through the buyer API instead',
  ],
  [
    /^curl -s -X POST 127\.0\.0\.1:8787\/storefront\/v1\/(coupons|checkout)\b/,
    "a buyer's calls with the buyer token ($BUYER) and elided headers and bodies (…); test/coupons and test/points make them",
  ],
  [/\| dot -Tsvg > flow\.svg$/, 'needs Graphviz (dot), which is not part of the toolchain; the Mermaid form above is run'],
];

/** Commands that run until stopped: started in the background, kept from their first output line to the doc's end. */
const RUNS_UNTIL_STOPPED = [/^npx svc (storefront|app) dev\b/, /^npm run dev\b/, /^npx svc webhooks listen\b/, / --follow\b/, / --watch\b/];

/** Values earlier commands printed that later ones name: `"orderPassword":"…"` is filled from `svc checkout try`. */
const PRINTED_VALUES: [string, RegExp][] = [['orderPassword', /guest order password (\S+)/]];

/** npx as it resolves `svc` (module comment), in the shell every command runs in. */
const PREAMBLE = `set -o pipefail
npx() {
  if [ "$1" != svc ]; then command npx "$@"; return; fi
  shift
  local dir=$PWD
  while [ "$dir" != / ] && [ ! -f "$dir/package.json" ]; do dir=$(dirname "$dir"); done
  if [ -x "$dir/node_modules/.bin/svc" ]; then "$dir/node_modules/.bin/svc" "$@"
  elif [ "$dir" = "$SVC_DOCS_CLONE" ]; then node "$SVC_DOCS_BIN" "$@"
  else echo "npx svc in $PWD would fetch the unrelated svc package of the npm registry" >&2; return 127; fi
}
`;

interface Command {
  line: number;
  text: string;
}

/** The commands of a doc's fenced sh blocks: one per line, `\\` continuations joined, comments and blank lines left out. */
export function commandsOf(markdown: string): Command[] {
  const commands: Command[] = [];
  let inBlock = false;
  let pending: Command | null = null;
  for (const [index, raw] of markdown.split('\n').entries()) {
    if (raw.startsWith('```')) {
      inBlock = !inBlock && raw.trim() === '```sh';
      continue;
    }
    if (!inBlock) continue;
    const continued = pending ? `${pending.text} ${raw.trim()}` : raw.trim();
    const start = pending?.line ?? index + 1;
    if (continued.endsWith('\\')) {
      pending = { line: start, text: continued.slice(0, -1).trim() };
      continue;
    }
    pending = null;
    const command = withoutComment(continued);
    if (command) commands.push({ line: start, text: command });
  }
  return commands;
}

/** The line without its shell comment (a `#` after a space, outside quotes): comments show output, they are not run. */
function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i).trim();
  }
  return line.trim();
}

export const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

// The docs run three at a time, each against a service of its own (a doc's walk changes its store: flows.md gives the
// mug a flow without CONFIRM): most of a doc's time is spent waiting (builds, the service, other processes), not on
// this machine's two cores. Each doc's test waits for its own run.
const DOCS_AT_ONCE = 3;

/** The scaffolds' walks (an app and a shop made and deployed from their folders): test/cli/docs-projects.test.ts runs them. */
export const PROJECT_DOCS = ['docs/apps.md', 'docs/storefront.md'];

/**
 * One test per doc that `include` takes, each awaiting its doc's run; the runs start at once, DOCS_AT_ONCE at a
 * time. Two test files share the docs (test/cli/docs.test.ts, docs-projects.test.ts) to stay within the
 * runner's time per file.
 */
export function testDocs(include: (doc: string) => boolean) {
  const runs = new Map<string, Promise<void>>();
  const slots: Promise<void>[] = [];
  for (const doc of docs.filter(include)) {
    const commands = commandsOf(readFileSync(join(root, doc), 'utf8'));
    const notRun = NOT_RUN_DOCS[doc.replace(/^docs\//, '')];
    // SVC_DOCS_ONLY=apps runs only the docs whose path contains it (while writing one).
    if (!commands.length || notRun || !doc.includes(process.env.SVC_DOCS_ONLY ?? '')) continue;
    const index = slots.length;
    const run = (async () => {
      if (index >= DOCS_AT_ONCE) await slots[index - DOCS_AT_ONCE].catch(() => {});
      await runDoc(doc, commands);
    })();
    run.catch(() => {}); // reported by the doc's test below
    slots.push(run);
    runs.set(doc, run);
    test(`${doc}: every command works as written`, async () => {
      await runs.get(doc);
    });
  }
}

async function runDoc(doc: string, commands: Command[]) {
  const svc = await startTestService();
  const clone = mkdtempSync(join(tmpdir(), 'svc-docs-'));
  // The clone's package.json is where npx finds this package's own `svc` (the preamble's second case).
  copyFileSync(join(root, 'package.json'), join(clone, 'package.json'));
  const background: ResultPromise[] = [];
  const seen = new Map<string, string>();
  const printed = new Map<string, string>();
  const remember = (output: string) => {
    // Each prefix's first id in the latest output that has one: what a list shows on top, what a walk prints first.
    const first = new Map<string, string>();
    for (const [id, prefix] of output.matchAll(/\b([a-z]{2,4})_[0-9A-Za-z]{20}\b/g)) if (!first.has(prefix)) first.set(prefix, id);
    for (const [prefix, id] of first) seen.set(prefix, id);
    for (const [name, pattern] of PRINTED_VALUES) {
      const value = pattern.exec(output)?.[1];
      if (value) printed.set(name, value);
    }
  };
  const host = new URL(svc.url).host;
  let cwd = clone;
  const env: Record<string, string> = {
    SVC_API_URL: svc.url,
    SVC_TOKEN: svc.ownerToken,
    SVC_CONFIG_DIR: join(clone, '.config'),
    SVC_DOCS_CLONE: clone,
    SVC_DOCS_BIN: bin,
    CI: '1',
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
  };
  try {
    await given(doc, null, { svc, seen, printed, remember, cwd });
    for (const command of commands) {
      const where = `${doc}:${command.line}: ${command.text}`;
      if (NOT_RUN.some(([pattern]) => pattern.test(command.text))) continue;
      await given(doc, command.text, { svc, seen, printed, remember, cwd });
      const text = fill(command.text, seen, printed, where).replaceAll('127.0.0.1:8787', host).replaceAll('localhost:8787', host);
      // The shell's state that later lines see: the folder and exported variables.
      const cd = /^cd (\S+)$/.exec(text);
      if (cd) {
        cwd = resolve(cwd, cd[1]);
        continue;
      }
      const exported = /^export (\w+)=(?:'([^']*)'|"([^"]*)"|(\S*))$/.exec(text);
      if (exported) {
        env[exported[1]] = exported[2] ?? exported[3] ?? exported[4];
        continue;
      }
      const run = execa('bash', ['-c', PREAMBLE + text], { cwd, env, reject: false, all: true, detached: true, timeout: 120_000 });
      if (RUNS_UNTIL_STOPPED.some((pattern) => pattern.test(text))) {
        background.push(run);
        remember(await firstLine(run, where));
        continue;
      }
      const result = await run;
      assert.is(result.exitCode, 0, `${where}\n→ exit ${result.exitCode}\n${result.all}`);
      remember(String(result.all));
    }
  } finally {
    for (const run of background) {
      if (run.pid) process.kill(-run.pid, 'SIGTERM');
      await run;
    }
    await svc.close();
    rmSync(clone, { recursive: true, force: true });
  }
}

/** The command with its placeholders filled (module comment); an elision that cannot be filled fails with the doc's line. */
function fill(text: string, seen: Map<string, string>, printed: Map<string, string>, where: string): string {
  const filled = text
    .replace(/\b([a-z]{2,4})_…/g, (placeholder, prefix: string) => {
      const id = seen.get(prefix);
      assert.ok(id, `${where}\n→ ${placeholder}: no ${prefix}_ id was printed before (add a command that prints one, or a given)`);
      return id!;
    })
    .replace(/"(\w+)":"…"/g, (placeholder, name: string) => {
      const value = printed.get(name);
      assert.ok(value, `${where}\n→ ${placeholder}: nothing printed it before`);
      return `"${name}":"${value}"`;
    });
  assert.not.match(filled, '…', `${where}\n→ elided (…): write it runnably, or list it in NOT_RUN with the reason`);
  return filled;
}

/** Resolves with the output so far once a long-running command printed its first line; fails if it ends first. */
function firstLine(run: ResultPromise, where: string): Promise<string> {
  return new Promise((ok, ko) => {
    let output = '';
    run.all!.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes('\n')) ok(output);
    });
    void run.then((r) => ko(new Error(`${where}\n→ ended (exit ${r.exitCode}) before printing a line: ${r.all}`)));
  });
}

/**
 * What a doc's walk takes for granted and its commands do not make, or what its lines that cannot run (NOT_RUN)
 * would have made, made through the API before the command named (`before`; null: before the doc's first):
 * agents' requests held for approval (made by an agent over MCP in docs/agents.md), a client's stores
 * (docs/apps.md), the picture a buyer uploads (flows.md), the guest's return request (orders.md's curl), the member's purchase with a coupon and points
 * (promotions.md's curls).
 */
async function given(doc: string, before: string | null, { svc, seen, printed, remember, cwd }: Given) {
  // The buyer's picture the doc uploads (a 1×1 PNG).
  if (doc === 'docs/flows.md' && before?.startsWith('curl -F file=@design.png')) {
    writeFileSync(
      join(cwd, 'design.png'),
      Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'),
    );
  }
  if (doc === 'docs/apps.md' && before === null) {
    // The client's stores a private app is published to: `client-store` by code, another by its id.
    const client = await newSellerWithStore(svc, 'client');
    const store = await apiClient(svc.url)('POST', '/auth/v1/stores', { token: client.token, body: { name: 'Client Store', code: 'client-store' } });
    assert.is(store.status, 201, JSON.stringify(store.body));
    remember(client.storeId);
  }
  // A held coupon for `approvals list … approve` to find, and another for `approvals reject` (the one just approved is done).
  if (doc === 'docs/agents.md' && (before === null || before.startsWith('npx svc approvals reject'))) {
    const agent = await createAccessToken(svc, svc.ownerToken, { scopes: ['promotion:rw'], agent: true });
    const body = { name: '에이전트 쿠폰', issueType: 'MANUAL', benefit: { method: 'AMOUNT', value: 1000 } };
    const held = await svc.api('POST', '/v1/coupons', { token: agent, body });
    assert.is(held.status, 202, JSON.stringify(held.body));
    remember(held.data.approvalId);
  }
  const buyer = (token?: string) => apiClient(svc.url, { storeId: 'dev-store', token });
  if (doc === 'docs/orders.md' && before?.startsWith('npx svc claims list')) {
    const body = { orderPassword: printed.get('orderPassword'), claimType: 'RETURN', quantity: 1, reason: 'CHANGE_OF_MIND' };
    const claim = await buyer()('POST', `/storefront/v1/guest/orders/${seen.get('ord')}/items/${seen.get('oi')}/claims`, { body });
    assert.is(claim.status, 201, JSON.stringify(claim.body));
    remember(claim.data.claimId);
  }
  if (doc === 'docs/promotions.md' && before?.startsWith('npx svc orders get ord_')) {
    const login = await buyer()('POST', '/storefront/v1/members/login', { body: { email: 'kim@example.com', password: 'secret-pass-1' } });
    const member = buyer(login.data.accessToken);
    const { code } = (await member('POST', `/storefront/v1/coupons/${seen.get('cpn')}/download`)).data;
    const product = (await svc.api('GET', '/v1/products', { query: { status: 'ON_SALE' } })).data.contents.find((p: any) => p.fulfillment.type === 'SHIPPING');
    const optionId = (await member('GET', `/storefront/v1/products/${product.productId}`)).data.variants.find((v: any) => !v.soldOut).variantId;
    await connectSandbox(svc.api);
    const sheetAnswer = await member('POST', '/storefront/v1/checkout', { body: { directItem: { productId: product.productId, optionId, quantity: 1 } } });
    assert.is(sheetAnswer.status, 201, JSON.stringify(sheetAnswer.body));
    const sheet = sheetAnswer.data;
    const body = { option: 'pg_one:CARD', returnUrl: 'http://localhost:5173/done', shippingAddress: ADDRESS, coupons: [{ code }], pointAmount: 4000 };
    const payment = await member('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, { body });
    assert.is(payment.status, 201, JSON.stringify(payment.body));
    const approved = await member('POST', `/_dev/v1/payments/${payment.data.paymentId}/simulate`, { body: { outcome: 'APPROVE' } });
    assert.ok(approved.data?.orderId, JSON.stringify(approved.body));
    remember(approved.data.orderId);
  }
}

interface Given {
  svc: TestService;
  seen: Map<string, string>;
  printed: Map<string, string>;
  remember: (output: string) => void;
  cwd: string;
}
