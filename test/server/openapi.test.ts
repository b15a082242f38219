/**
 * `GET /v1/openapi.json` as outside tools take it: a real validator accepts it, openapi-typescript's types
 * of it compile under `tsc --strict` with typed `data`, and it says what the registry declares — every
 * operation's response schema, success statuses and error codes — and what the service enforces.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { typesOf } from '@svc-internal/openapi-types';
import Ajv2020 from 'ajv/dist/2020.js';
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ALL_SCOPES } from '../../src/kernel/scopes.js';
import { operationErrors, successStatuses } from '../../src/server/contract.js';
import { operations } from '../../src/server/modules.js';
import type { Operation } from '../../src/server/registry.js';
import { ok } from '../helpers/assert.js';
import { login, startTestService, type TestService } from '../helpers/service.js';

const root = join(import.meta.dirname, '..', '..');
let svc: TestService;
let doc: any;

test.before(async () => {
  svc = await startTestService();
  const res = await fetch(`${svc.url}/v1/openapi.json`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  doc = await res.json();
});
test.after(async () => {
  await svc.close();
});

const documented = (op: Operation) => doc.paths[op.path]?.[op.method.toLowerCase()];
/** A response of an operation, or the shared one (`components/responses`) it refers to. */
const answer = (response: any) => (response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response);

test('swagger-parser validates the document with no errors, every $ref resolving', async () => {
  await SwaggerParser.validate(structuredClone(doc));
  const text = JSON.stringify(doc);
  assert.not.ok(text.includes('"$schema"'), 'no embedded $schema keys');
  assert.not.ok(text.includes('"#/$defs/') || text.includes('"$ref":"#"'), 'no local references left');
  assert.ok(doc.info.license?.name, 'info.license');
});

test('openapi-typescript output compiles with tsc --strict: list contents, fields and error codes are typed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-types-'));
  try {
    writeFileSync(join(dir, 'api.d.ts'), await typesOf(doc));
    const header = `import type { paths } from './api.js';
type Customers = paths['/v1/customers']['get']['responses'][200]['content']['application/json'];
type AuditLogs = paths['/v1/audit-logs']['get']['responses'][200]['content']['application/json'];
type CustomerMissing = paths['/v1/customers/{customerId}']['get']['responses'][404]['content']['application/json'];
type UploadForm = paths['/v1/uploads']['post']['requestBody']['content']['multipart/form-data'];
`;
    writeFileSync(
      join(dir, 'consumer.ts'),
      `${header}
export function summary(page: Customers, audit: AuditLogs, missing: CustomerMissing, form: UploadForm): string {
  const first = page.data.contents[0];
  const id: string = first.customerId;
  const email: string | null = first.email;
  const total: number = page.data.totalElements;
  const next: string | null = audit.data.nextCursor;
  const status: number = audit.data.contents[0].outcome.statusCode;
  const code: 'CUSTOMER_NOT_FOUND' | 'STORE_NOT_FOUND' = missing.error.code;
  const purpose: string = form.purpose;
  return [id, email, total, next, status, code, purpose].join(' ');
}
`,
    );
    // Each line must fail to compile: the types are real, not \`any\`.
    writeFileSync(
      join(dir, 'wrong.ts'),
      `${header}
export const createdAtIsNoNumber = (page: Customers): number => page.data.contents[0].createdAt;
export const noSuchField = (page: Customers) => page.data.contents[0].nickname;
export const codesAreListed = (missing: CustomerMissing): 'APPROVAL_NOT_FOUND' => missing.error.code;
`,
    );
    const tsc = join(root, 'node_modules', '.bin', 'tsc');
    const flags = ['--strict', '--noEmit', '--pretty', 'false', '--module', 'nodenext', '--target', 'es2022'];
    const good = await execa(tsc, [...flags, 'consumer.ts'], { cwd: dir, reject: false, all: true });
    assert.is(good.exitCode, 0, good.all);
    const bad = await execa(tsc, [...flags, 'wrong.ts'], { cwd: dir, reject: false, all: true });
    const failedLines = [...(bad.all ?? '').matchAll(/^wrong\.ts\((\d+),\d+\): error/gm)].map((m) => Number(m[1]));
    const wrongLines = header.split('\n').length + 1;
    assert.equal(failedLines, [wrongLines, wrongLines + 1, wrongLines + 2], bad.all);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every operation declares its response schema', () => {
  const missing = operations.filter((op) => !op.response).map((op) => op.operationId);
  assert.ok(missing.length === 0, `${missing.length} operations without a response schema: ${missing.join(', ')}`);
});

/** An AI agent's write may be held for approval: 202 APPROVAL_REQUIRED (spec 01 §5.6). */
const mayAwaitApproval = (op: Operation) => op.auth === 'store' && op.method !== 'GET' && (op.agent === 'approval' || typeof op.agent === 'function');

test('every operation is documented with exactly its declared statuses and error codes', () => {
  assert.is(Object.values(doc.paths).flatMap((methods: any) => Object.keys(methods)).length, operations.length);
  for (const op of operations) {
    const entry = documented(op);
    assert.is(entry?.operationId, op.operationId, `${op.method} ${op.path}`);
    const expected = [
      ...successStatuses(op),
      ...(mayAwaitApproval(op) && !successStatuses(op).includes(202) ? [202] : []),
      ...Object.keys(operationErrors(op)).map(Number),
    ];
    assert.equal(Object.keys(entry.responses).map(Number).sort(), [...new Set(expected)].sort(), op.operationId);
    for (const [status, codes] of Object.entries(operationErrors(op))) {
      const schema = answer(entry.responses[status]).content['application/json'].schema;
      assert.equal(schema.allOf[1].properties.error.properties.code.enum, codes, `${op.operationId} ${status}`);
    }
    if (op.response && !op.streams)
      assert.ok(
        Object.keys(entry.responses[successStatuses(op)[0]].content['application/json'].schema.properties.data).length > 0,
        `${op.operationId} data schema`,
      );
  }
});

test('no two paths can match the same request', () => {
  const paths = Object.keys(doc.paths);
  const ambiguous: string[] = [];
  paths.forEach((a, i) =>
    paths.slice(i + 1).forEach((b) => {
      const [x, y] = [a.split('/'), b.split('/')];
      if (x.length !== y.length) return;
      const template = (s: string) => s.startsWith('{');
      if (x.some((s, k) => !template(s) && !template(y[k]) && s !== y[k])) return;
      // A literal segment wins over a template only when one path is more literal everywhere.
      if (x.some((s, k) => template(s) && !template(y[k])) && y.some((s, k) => template(s) && !template(x[k]))) ambiguous.push(`${a} ~ ${b}`);
    }),
  );
  assert.ok(ambiguous.length === 0, `ambiguous paths: ${ambiguous.join('; ')}`);
});

test('the stream, the upload form and the buyer API are described as they work', () => {
  const stream = doc.paths['/v1/events/stream'].get;
  assert.equal(Object.keys(stream.responses[200].content), ['text/event-stream']);
  assert.ok(stream.parameters.some((p: any) => p.name === 'Last-Event-ID' && p.in === 'header'));
  const upload = doc.paths['/v1/uploads'].post;
  const form = upload.requestBody.content['multipart/form-data'].schema;
  assert.equal(form.required.sort(), ['file', 'purpose']);
  assert.equal(form.properties.purpose.enum.sort(), ['flow-attachment', 'product-image']);
  assert.equal(
    Object.keys(upload.responses).filter((s) => s.startsWith('2')),
    ['201'],
  );
  const buyer = operations.filter((op) => op.auth === 'buyer');
  assert.ok(buyer.length > 0);
  for (const op of buyer)
    assert.ok(
      documented(op).security.some((s: object) => Object.keys(s).every((name) => doc.components.securitySchemes[name].type === 'apiKey')),
      `${op.operationId}: a guest needs no token (only the store's X-Store-Id)`,
    );
});

test('request formats say what the service enforces: comma lists, date-times, scopes, origins', async () => {
  const audit = doc.paths['/v1/audit-logs'].get.parameters;
  const actorType = audit.find((p: any) => p.name === 'actorType');
  assert.equal([actorType.style, actorType.explode, actorType.schema.type], ['form', false, 'array']);
  assert.is(audit.find((p: any) => p.name === 'from').schema.format, 'date-time');
  ok(await svc.api('GET', '/v1/audit-logs', { query: { actorType: actorType.schema.items.enum.join(','), from: '2026-01-01T09:00:00+09:00' } }));

  const scopes = doc.paths['/auth/v1/access-tokens'].post.requestBody.content['application/json'].schema.properties.scopes.items.enum;
  assert.equal(scopes, ALL_SCOPES);
  // Every scope the document offers is accepted (no over-promise), and one outside it is refused.
  ok(
    await svc.api('POST', '/auth/v1/access-tokens', {
      token: await login(svc),
      storeId: null,
      body: { name: 'every scope', scopes, storeScope: { all: true } },
    }),
    201,
  );
  assert.is(
    (
      await svc.api('POST', '/auth/v1/access-tokens', {
        token: await login(svc),
        storeId: null,
        body: { name: 'x', scopes: ['order:x'], storeScope: { all: true } },
      })
    ).status,
    400,
  );

  const origins = doc.paths['/v1/store'].patch.requestBody.content['application/json'].schema.properties.storefrontOrigins.items;
  const originShape = new RegExp(origins.pattern);
  for (const origin of ['https://shop.example.com', 'http://localhost:3000', 'http://[::1]:8080']) {
    assert.ok(originShape.test(origin), origin);
    ok(await svc.api('PATCH', '/v1/store', { body: { storefrontOrigins: [origin] } }));
  }
  for (const notOrigin of ['https://shop.example.com/', 'https://Shop.example.com', 'ftp://x.example', 'https://x.example/path']) {
    assert.not.ok(originShape.test(notOrigin), notOrigin);
    assert.is((await svc.api('PATCH', '/v1/store', { body: { storefrontOrigins: [notOrigin] } })).status, 400, notOrigin);
  }
});

test('live answers, writes included, have a documented status and validate against its published schema', async () => {
  const resolved: any = await SwaggerParser.dereference(structuredClone(doc));
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const conforms = (method: string, path: string, res: { status: number; body: unknown }) => {
    const documentedAnswer = resolved.paths[path][method].responses[res.status];
    assert.ok(documentedAnswer, `${method} ${path} answered ${res.status}, documented: ${Object.keys(resolved.paths[path][method].responses)}`);
    const validate = ajv.compile(documentedAnswer.content['application/json'].schema);
    assert.ok(validate(res.body), `${method} ${path}: ${JSON.stringify(validate.errors)} ${JSON.stringify(res.body).slice(0, 300)}`);
  };
  const token = await login(svc);
  const delegation = { token, body: { uid: 'openapi-1', email: 'openapi@example.com' } };
  conforms('post', '/v1/customers/delegations', await svc.api('POST', '/v1/customers/delegations', delegation));
  conforms('post', '/v1/customers/delegations', await svc.api('POST', '/v1/customers/delegations', delegation));
  conforms(
    'post',
    '/auth/v1/signup',
    await svc.api('POST', '/auth/v1/signup', { token: null, storeId: null, body: { email: 'openapi@example.com', password: 'password-1234', name: 'o' } }),
  );
  conforms(
    'post',
    '/auth/v1/password-reset',
    await svc.api('POST', '/auth/v1/password-reset', { token: null, storeId: null, body: { email: 'openapi@example.com' } }),
  );
  conforms('post', '/auth/v1/stores', await svc.api('POST', '/auth/v1/stores', { token, storeId: null, body: { name: 'OpenAPI', code: 'openapi-store' } }));
  const reads: [string, string | null][] = [
    ['/v1/store', svc.storeId],
    ['/v1/store/subscription', svc.storeId],
    ['/v1/members', svc.storeId],
    ['/v1/customers', svc.storeId],
    ['/v1/audit-logs', svc.storeId],
    ['/v1/public/plans', null],
    ['/v1/me/stores', null],
    ['/auth/v1/me', null],
    ['/auth/v1/access-tokens', null],
  ];
  for (const [path, storeId] of reads) {
    const res = await svc.api('GET', path, { token, storeId });
    conforms('get', path, res);
    assert.ok(res.data.contents === undefined || res.data.contents.length > 0, `${path}: the sample shows at least one item`);
  }
});

test.run();
