/**
 * `GET /v1/openapi.json` as a typed client takes it (issue 32): openapi-typescript + openapi-fetch code that
 * chooses the store once, as it sets the token, type-checks and works; shared shapes keep the document and its
 * types small; the document is compressed for clients that ask; Redocly lints it clean.
 */
import { typesOf } from '@svc-internal/openapi-types';
import { execa } from 'execa';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';

const root = join(import.meta.dirname, '..', '..');
let svc: TestService;
let text: string;
let doc: any;
let dir: string;

test.before(async () => {
  svc = await startTestService();
  text = await (await fetch(`${svc.url}/v1/openapi.json`)).text();
  doc = JSON.parse(text);
  dir = mkdtempSync(join(tmpdir(), 'svc-openapi-client-'));
  // The client's imports (openapi-fetch) resolve as in a project that installed them.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
});
test.after(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

test('openapi-fetch code sets X-Store-Id once, for every call: it type-checks (TypeScript 5) and works', async () => {
  writeFileSync(join(dir, 'api.d.ts'), await typesOf(doc));
  writeFileSync(
    join(dir, 'client.mts'),
    `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const [baseUrl, token, storeId] = process.argv.slice(2);
// The store is chosen once, beside the token: no call repeats it.
const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${token}\`, 'X-Store-Id': storeId } });
const store = await client.GET('/v1/store');
const products = await client.GET('/v1/products', { params: { query: { size: 5 } } });
const name: string | undefined = store.data?.data.name;
const total: number | undefined = products.data?.data.totalElements;
console.log(JSON.stringify({ statuses: [store.response.status, products.response.status], name, total }));
`,
  );
  const tsc = join(root, 'tools', 'openapi-types', 'node_modules', '.bin', 'tsc');
  const flags = ['--strict', '--noEmit', '--pretty', 'false', '--module', 'nodenext', '--target', 'es2022', '--types', 'node'];
  const checked = await execa(tsc, [...flags, 'client.mts'], { cwd: dir, reject: false, all: true });
  assert.is(checked.exitCode, 0, checked.all);
  const run = await execa(process.execPath, ['client.mts', svc.url, svc.ownerToken, svc.storeId], { cwd: dir, reject: false, all: true });
  assert.is(run.exitCode, 0, run.all);
  const answer = JSON.parse(run.stdout);
  assert.equal(answer.statuses, [200, 200]);
  assert.type(answer.name, 'string');
  assert.type(answer.total, 'number');
});

test('the store is chosen by one security scheme, never a parameter of each operation', () => {
  const schemes = doc.components.securitySchemes;
  const [name] = Object.entries<any>(schemes).find(([, s]) => s.type === 'apiKey' && s.in === 'header' && s.name === 'X-Store-Id') ?? [];
  assert.ok(name, 'an apiKey scheme for X-Store-Id');
  const operations = Object.values<any>(doc.paths).flatMap((methods) => Object.values<any>(methods));
  assert.not.ok(
    operations.some((op) => (op.parameters ?? []).some((p: any) => p.name === 'X-Store-Id')),
    'no X-Store-Id parameter',
  );
  // Store and buyer operations need it in every alternative; account operations (/v1/me/stores) never.
  assert.ok(doc.paths['/v1/products'].get.security.every((r: object) => name in r && 'bearer' in r));
  assert.ok(doc.paths['/storefront/v1/cart'].get.security.every((r: object) => name in r));
  assert.ok(doc.paths['/v1/me/stores'].get.security.every((r: object) => !(name in r)));
});

/** Measured on the document before shapes were shared (issue 32): 2,250,232 bytes, 65,204 lines of types. */
const BEFORE = { bytes: 2_250_232, typeLines: 65_204 };

test('shared shapes are $refs: the document and its generated types are at most half their former size', async () => {
  const bytes = Buffer.byteLength(text);
  assert.ok(bytes <= BEFORE.bytes / 2, `${bytes} bytes`);
  const lines = (await typesOf(doc)).split('\n').length;
  assert.ok(lines <= BEFORE.typeLines / 2, `${lines} lines of types`);
  assert.ok(doc.components.responses && Object.keys(doc.components.responses).length > 0, 'error answers are shared responses');
});

function get(path: string, acceptEncoding?: string): Promise<{ headers: Record<string, any>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${path}`, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the document is served gzip or br when the client accepts it, as is otherwise', async () => {
  const br = await get('/v1/openapi.json', 'gzip, deflate, br');
  assert.is(br.headers['content-encoding'], 'br');
  assert.is(brotliDecompressSync(br.body).toString(), text);
  const gzip = await get('/v1/openapi.json', 'gzip');
  assert.is(gzip.headers['content-encoding'], 'gzip');
  assert.is(gunzipSync(gzip.body).toString(), text);
  assert.match(gzip.headers.vary ?? '', /accept-encoding/i);
  for (const plain of [await get('/v1/openapi.json'), await get('/v1/openapi.json', 'br;q=0, gzip;q=0')]) {
    assert.is(plain.headers['content-encoding'], undefined);
    assert.is(plain.body.toString(), text);
  }
});

test('Redocly lints the document with no error and no warning', async () => {
  writeFileSync(join(dir, 'openapi.json'), text);
  const lint = await execa(join(root, 'node_modules', '.bin', 'redocly'), ['lint', join(dir, 'openapi.json'), '--format', 'json'], {
    cwd: root,
    reject: false,
    env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  const report = JSON.parse(lint.stdout);
  const problems = report.problems.map((p: any) => `${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer})`);
  assert.equal(report.totals, { errors: 0, warnings: 0, ignored: 0 }, problems.slice(0, 20).join('\n'));
});

test.run();
