import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';
import { SEED_EMAIL } from '../../src/server/seed.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const audit = async (query: Record<string, string | number> = {}, api = svc.api) => (await api('GET', '/v1/audit-logs', { query })).data;

test('every non-GET store request writes one REQUEST record; GETs do not', async () => {
  const before = (await audit({ limit: 100 })).contents.length;
  await svc.api('GET', '/v1/store');
  const res = await svc.api('PATCH', '/v1/store', { body: { name: 'Audited Store' }, headers: { 'idempotency-key': 'audit-1' } });
  const after = await audit({ limit: 100 });
  assert.is(after.contents.length, before + 1);
  const record = after.contents[0];
  assert.is(record.kind, 'REQUEST');
  assert.is(record.action, 'updateStore');
  assert.equal(record.actor.type, 'USER');
  assert.is(record.actor.name, '개발자');
  assert.is(record.source, 'STORE_PLATFORM');
  assert.equal(record.target, { type: 'STORE', id: svc.storeId });
  assert.equal(record.outcome, { statusCode: 200, result: 'SUCCEEDED', errorCode: null });
  assert.is(record.requestId, res.headers.get('x-request-id'));
  assert.is(record.traceId, res.headers.get('x-trace-id'));
  assert.is(record.idempotencyKey, 'audit-1');
});

test('failed and refused requests are recorded with their outcome; unauthenticated ones are not', async () => {
  await svc.api('PATCH', '/v1/store', { body: { bogus: true } });
  const failed = (await audit({ limit: 1 })).contents[0];
  assert.equal(failed.outcome, { statusCode: 400, result: 'FAILED', errorCode: 'VALIDATION_FAILED' });

  const readOnly = await createAccessToken(svc, await login(svc), { scopes: ['store:r'] });
  await apiClient(svc.url)('PATCH', '/v1/store', { token: readOnly, storeId: svc.storeId, body: { name: 'x' } });
  const denied = (await audit({ limit: 1 })).contents[0];
  assert.equal(denied.outcome, { statusCode: 403, result: 'DENIED', errorCode: 'INSUFFICIENT_ROLE' });
  assert.is(denied.source, 'API');

  const count = (await audit({ limit: 100 })).contents.length;
  await apiClient(svc.url)('PATCH', '/v1/store', { token: 'garbage', storeId: svc.storeId, body: { name: 'x' } });
  await apiClient(svc.url)('PATCH', '/v1/store', { storeId: svc.storeId, body: { name: 'x' } });
  assert.is((await audit({ limit: 100 })).contents.length, count);
});

test("outsiders cannot write into another store's audit log", async () => {
  const mallory = await newSellerWithStore(svc, 'mallory');
  const count = (await audit({ limit: 100 })).contents.length;
  await apiClient(svc.url)('PATCH', '/v1/store', { token: mallory.token, storeId: svc.storeId, body: { name: 'pwned' } });
  assert.is((await audit({ limit: 100 })).contents.length, count);
  // And they cannot read it.
  const res = await apiClient(svc.url)('GET', '/v1/audit-logs', { token: mallory.token, storeId: svc.storeId });
  assert.is(res.body.error.code, 'NOT_A_MEMBER');
});

test('filters: actorType, action, outcome, targetType/targetId, source, requestId, from/to', async () => {
  const all = (await audit({ limit: 100 })).contents;
  assert.ok(all.length >= 3);
  const updates = (await audit({ action: 'updateStore' })).contents;
  assert.ok(updates.every((r: any) => r.action === 'updateStore'));
  assert.ok((await audit({ outcome: 'DENIED' })).contents.every((r: any) => r.outcome.result === 'DENIED'));
  assert.ok((await audit({ outcome: 'VALIDATION_FAILED' })).contents.every((r: any) => r.outcome.errorCode === 'VALIDATION_FAILED'));
  assert.ok((await audit({ outcome: '403' })).contents.every((r: any) => r.outcome.statusCode === 403));
  assert.ok((await audit({ actorType: 'AGENT,APP' })).contents.length === 0);
  assert.is((await audit({ actorType: 'USER,AGENT' })).contents.length, all.length);
  assert.ok((await audit({ source: 'API' })).contents.every((r: any) => r.source === 'API'));
  assert.ok((await audit({ targetType: 'STORE', targetId: svc.storeId })).contents.length >= 1);
  const one = all[1];
  assert.equal(
    (await audit({ requestId: one.requestId })).contents.map((r: any) => r.auditLogId),
    [one.auditLogId],
  );
  const newest = all[0].createdAt;
  assert.is((await audit({ from: new Date(Date.parse(newest) + 1).toISOString() })).contents.length, 0);
  assert.ok((await audit({ to: newest })).contents.every((r: any) => r.createdAt < newest));
  const bad = await svc.api('GET', '/v1/audit-logs', { query: { from: 'yesterday' } });
  assert.is(bad.body.error.code, 'VALIDATION_FAILED');
  const backwards = await svc.api('GET', '/v1/audit-logs', { query: { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' } });
  assert.is(backwards.body.error.code, 'INVALID_PARAMETER');
});

test('cursor paging walks every record once, newest first', async () => {
  for (let i = 0; i < 5; i++) await svc.api('PATCH', '/v1/store', { body: { name: `Page ${i}` } });
  const everything = (await audit({ limit: 100 })).contents.map((r: any) => r.auditLogId);
  const walked: string[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await audit(cursor ? { limit: 2, cursor } : { limit: 2 });
    walked.push(...page.contents.map((r: any) => r.auditLogId));
    cursor = page.nextCursor;
  } while (cursor);
  assert.equal(walked, everything);
  const limitTooBig = await svc.api('GET', '/v1/audit-logs', { query: { limit: 101 } });
  assert.is(limitTooBig.status, 400);
});

test('Idempotency-Key: same request returns the first response; a different one is 409 IDEMPOTENCY_KEY_REUSED', async () => {
  const headers = { 'idempotency-key': 'rename-1' };
  const first = await svc.api('PATCH', '/v1/store', { body: { name: 'Once' }, headers });
  await svc.api('PATCH', '/v1/store', { body: { name: 'Changed in between' } });
  const replay = await svc.api('PATCH', '/v1/store', { body: { name: 'Once' }, headers });
  assert.is(replay.status, 200);
  assert.equal(replay.data, first.data);
  assert.is(replay.headers.get('idempotent-replayed'), 'true');
  assert.is((await svc.api('GET', '/v1/store')).data.name, 'Changed in between');
  const reused = await svc.api('PATCH', '/v1/store', { body: { name: 'Different' }, headers });
  assert.is(reused.status, 409);
  assert.is(reused.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  const otherPath = await svc.api('POST', '/v1/member-invitations', { body: { email: 'x@example.com', role: 'STAFF' }, headers });
  assert.is(otherPath.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
});

test('Idempotency-Key is per token; errors are replayed too', async () => {
  const other = await login(svc);
  // Inviting the owner's own e-mail is refused (ALREADY_A_MEMBER): an error to replay.
  const invite = { email: SEED_EMAIL, role: 'STAFF' };
  const a = await svc.api('POST', '/v1/member-invitations', { body: invite, headers: { 'idempotency-key': 'k' } });
  assert.is(a.body.error.code, 'ALREADY_A_MEMBER');
  const again = await svc.api('POST', '/v1/member-invitations', { body: invite, headers: { 'idempotency-key': 'k' } });
  assert.equal(again.body.error.traceId, a.body.error.traceId);
  const otherToken = await svc.api('POST', '/v1/member-invitations', {
    token: other,
    body: invite,
    headers: { 'idempotency-key': 'k' },
  });
  assert.is.not(otherToken.body.error.traceId, a.body.error.traceId);
});

test('concurrent requests with one key: a second one while the first runs gets 409 IDEMPOTENCY_KEY_IN_USE, later the first result', async () => {
  const token = await login(svc);
  // Whether two requests overlap depends on scheduling, so each round fires several at once under a new
  // key until one overlapped; every round must still create exactly one token.
  let sawInUse = false;
  for (let round = 0; round < 10 && !sawInUse; round++) {
    const key = `race-${round}`;
    const send = () =>
      apiClient(svc.url)('POST', '/auth/v1/access-tokens', {
        token,
        headers: { 'idempotency-key': key },
        body: { name: key, scopes: ['store:r'], storeScope: { all: true } },
      });
    const results = await Promise.all([send(), send(), send(), send()]);
    for (const r of results) assert.ok(r.status === 201 || (r.status === 409 && r.body.error.code === 'IDEMPOTENCY_KEY_IN_USE'), JSON.stringify(r.body));
    sawInUse ||= results.some((r) => r.status === 409);
    const created = new Set(results.filter((r) => r.status === 201).map((r) => r.data.tokenId));
    const later = await send();
    assert.is(later.status, 201);
    created.add(later.data.tokenId);
    assert.is(created.size, 1, 'one key, one token');
    const list = await apiClient(svc.url)('GET', '/auth/v1/access-tokens', { token });
    assert.is(list.data.contents.filter((t: any) => t.name === key).length, 1);
  }
  assert.ok(sawInUse, 'no round overlapped');
});

test('dry run validates, previews only changed fields, and changes nothing', async () => {
  const current = (await svc.api('GET', '/v1/store')).data;
  const headers = { 'x-svc-dry-run': '1' };
  const res = await svc.api('PATCH', '/v1/store', { headers, body: { name: 'Dry Name', guestCheckout: current.guestCheckout } });
  assert.is(res.status, 200);
  assert.is(res.body.meta.code, 'DRY_RUN');
  assert.is(res.data.dryRun, true);
  assert.is(res.data.decision, 'ALLOW');
  assert.is(res.data.preview.operationId, 'updateStore');
  assert.equal(res.data.preview.target, { type: 'STORE', id: svc.storeId });
  assert.equal(res.data.preview.changes, [{ field: 'name', before: current.name, after: 'Dry Name' }]);
  assert.is((await svc.api('GET', '/v1/store')).data.name, current.name);
  assert.is((await audit({ limit: 1 })).contents[0].outcome.result, 'DRY_RUN');
  const bad = await svc.api('PATCH', '/v1/store', { headers, body: { guestCheckout: 'maybe' } });
  assert.is(bad.status, 400);
  assert.is(bad.body.error.fieldErrors[0].field, 'guestCheckout');
});

test('AI agents: denied operations are 403 AGENT_OPERATION_DENIED and change nothing; reads run directly', async () => {
  const agent = await createAccessToken(svc, await login(svc), { scopes: ['store:rw'], agent: true });
  const api = apiClient(svc.url, { token: agent, storeId: svc.storeId });
  assert.is((await api('GET', '/v1/store')).status, 200);
  const terms = await api('PATCH', '/v1/store', { body: { termsVersion: '2026-12' } });
  assert.is(terms.status, 403);
  assert.is(terms.body.error.code, 'AGENT_OPERATION_DENIED');
  assert.is((await svc.api('GET', '/v1/store')).data.termsVersion, null);
  const record = (await audit({ limit: 1 })).contents[0];
  assert.is(record.actor.type, 'AGENT');
  assert.is(record.outcome.result, 'DENIED');
  assert.is(record.outcome.errorCode, 'AGENT_OPERATION_DENIED');
});

test.run();
