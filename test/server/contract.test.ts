/**
 * Every operation of the registry, taken from the generated OpenAPI document, answers bad input with an
 * error envelope of status 4xx — never a 500, never a success that ignored what it did not understand.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let operations: { method: string; path: string; operationId: string; tokenRequired: boolean }[];

test.before(async () => {
  svc = await startTestService();
  const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
  // A requirement of API keys only (X-Store-Id, the store) asks for no token.
  const tokenFree = (requirement: object) => Object.keys(requirement).every((name) => doc.components.securitySchemes[name].type === 'apiKey');
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      operationId: op.operationId,
      // Public operations list no security; buyer operations list a guest alternative without a token.
      tokenRequired: op.security.length > 0 && !op.security.some(tokenFree),
    })),
  );
});
test.after(async () => {
  await svc.close();
});

const concrete = (path: string) => path.replace(/\{\w+\}/g, 'zz_missing');

function assertEnvelopeError(res: { status: number; body: any }, label: string) {
  assert.ok(res.status >= 400 && res.status < 500, `${label}: status ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  assert.is(res.body?.meta?.isSuccess, false, `${label}: not an error envelope`);
  assert.type(res.body.error.code, 'string', label);
  assert.type(res.body.error.traceId, 'string', label);
}

test('the registry is large enough to mean something', () => {
  assert.ok(operations.length > 100, `${operations.length} operations`);
});

test('an unknown query parameter is refused by every operation', async () => {
  for (const op of operations) {
    const res = await svc.api(op.method, `${concrete(op.path)}?zz_unknown=1`, op.method === 'GET' ? {} : { body: {} });
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) assert.unreachable(`${op.operationId} opened a stream despite an unknown parameter`);
    assertEnvelopeError(res, `${op.method} ${op.path} (${op.operationId})`);
  }
});

test('malformed JSON and unknown body fields are refused by every write', async () => {
  for (const op of operations.filter((o) => o.method !== 'GET')) {
    const label = `${op.method} ${op.path} (${op.operationId})`;
    assertEnvelopeError(
      await svc.api(op.method, concrete(op.path), { rawBody: '{"a": ', headers: { 'content-type': 'application/json' } }),
      `${label} malformed`,
    );
    assertEnvelopeError(await svc.api(op.method, concrete(op.path), { body: { zz_unknown: true } }), `${label} unknown field`);
  }
});

test('without a token, every operation that needs one answers 401 UNAUTHORIZED', async () => {
  const guarded = operations.filter((o) => o.tokenRequired);
  assert.ok(guarded.length > 80, `${guarded.length} guarded operations`);
  for (const op of guarded) {
    const res = await svc.api(op.method, concrete(op.path), { token: null, ...(op.method === 'GET' ? {} : { body: {} }) });
    assert.is(res.status, 401, `${op.method} ${op.path} (${op.operationId}): ${res.status}`);
    assert.is(res.body.error.code, 'UNAUTHORIZED', op.operationId);
  }
});

test.run();
