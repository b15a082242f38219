import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { apiClient, createAccessToken, login, newSellerWithStore, databaseAtRest, startTestService, type Api, type TestService } from '../helpers/service.js';
import { PG_ONE_TEST, PG_TWO_TEST, SECRETS, availability, fails, ok, providerOf, rejects } from '../helpers/payment-providers.js';
import { addMember } from '../helpers/invitations.js';

let svc: TestService;
let seller: Awaited<ReturnType<typeof newSellerWithStore>>;
let api: Api;

test.before(async () => {
  svc = await startTestService();
  seller = await newSellerWithStore(svc, 'pay');
  api = seller.api;
});
test.after(async () => {
  await svc.close();
});

test('a new store has no provider: empty candidates, checkout PAYMENT_NOT_CONFIGURED', async () => {
  const settings = ok(await api('GET', '/v1/store/payment-settings'));
  assert.equal(settings.candidates, []);
  assert.is(settings.environment, null);
  assert.equal(settings.priority, []);
  assert.equal(
    settings.providers.map((p: any) => [p.provider, p.status, p.routingExclusion]),
    [
      ['pg_one', 'NOT_CONNECTED', 'NOT_CONNECTED'],
      ['pg_two', 'NOT_CONNECTED', 'NOT_CONNECTED'],
    ],
  );
  assert.equal(await availability(api, seller.storeId), [false, null, 'PAYMENT_NOT_CONFIGURED']);
});

test('pg_one key formats: wrong prefix, widget keys, environment mismatch → INVALID_CREDENTIALS; nothing saved', async () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ clientKey: 'ck_abcdefghijkl' }, 'clientKey', 'FORMAT'],
    [{ clientKey: 'test_gck_abcdefghijkl' }, 'clientKey', 'WIDGET_KEY'],
    [{ secretKey: 'test_gsk_abcdefghijkl' }, 'secretKey', 'WIDGET_KEY'],
    [{ clientKey: 'live_ck_abcdefghijkl' }, 'clientKey', 'ENVIRONMENT_MISMATCH'],
    [{ secretKey: 'live_sk_abcdefghijkl' }, 'secretKey', 'ENVIRONMENT_MISMATCH'],
    [{ secretKey: 'test_ck_abcdefghijkl' }, 'secretKey', 'FORMAT'],
  ];
  for (const [change, field, reason] of cases) {
    const res = await api('PUT', '/v1/store/payment-providers/pg_one', { body: { ...PG_ONE_TEST, ...change } });
    fails(res, 400, 'INVALID_CREDENTIALS');
    assert.equal(res.body.error.details, { field, reason }, JSON.stringify(change));
  }
  // Wrong types are form errors, unknown fields too.
  fails(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { ...PG_ONE_TEST, secretKey: 42 } }), 400, 'VALIDATION_FAILED');
  fails(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { ...PG_ONE_TEST, mid: 'x' } }), 400, 'VALIDATION_FAILED');
  fails(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { ...PG_ONE_TEST, environment: 'PROD' } }), 400, 'VALIDATION_FAILED');
  assert.is(providerOf(ok(await api('GET', '/v1/store/payment-settings')), 'pg_one').connected, false);
});

test('first registration without the secret key (or client key) is 400 PAYMENT_PROVIDER_INCOMPLETE', async () => {
  const noSecret = await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'TEST', clientKey: PG_ONE_TEST.clientKey } });
  fails(noSecret, 400, 'PAYMENT_PROVIDER_INCOMPLETE');
  assert.equal(noSecret.body.error.details.missing, ['secretKey']);
  const noClient = await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'TEST', secretKey: PG_ONE_TEST.secretKey } });
  assert.equal(noClient.body.error.details.missing, ['clientKey']);
  const pgTwo = await api('PUT', '/v1/store/payment-providers/pg_two', {
    body: { environment: 'TEST', storeId: PG_TWO_TEST.storeId, channels: PG_TWO_TEST.channels },
  });
  fails(pgTwo, 400, 'PAYMENT_PROVIDER_INCOMPLETE');
  assert.equal(pgTwo.body.error.details.missing, ['apiSecret']);
});

test('pg_two formats: store id, channel keys (distinct, at most 20), API secret length, whsec_ webhook secret', async () => {
  const bad: [Record<string, unknown>, string, string][] = [
    [{ storeId: 'shop-1' }, 'storeId', 'FORMAT'],
    [{ channels: [{ channelKey: 'key-1', methods: ['CARD'] }] }, 'channels.0.channelKey', 'FORMAT'],
    [
      {
        channels: [
          { channelKey: 'channel-key-a', methods: ['CARD'] },
          { channelKey: 'channel-key-a', methods: ['MOBILE'] },
        ],
      },
      'channels.1.channelKey',
      'DUPLICATE_CHANNEL',
    ],
    [{ apiSecret: 'short-secret' }, 'apiSecret', 'TOO_SHORT'],
    [{ webhookSecret: 'secret_123456' }, 'webhookSecret', 'FORMAT'],
  ];
  for (const [change, field, reason] of bad) {
    const res = await api('PUT', '/v1/store/payment-providers/pg_two', { body: { ...PG_TWO_TEST, ...change } });
    fails(res, 400, 'INVALID_CREDENTIALS');
    assert.equal(res.body.error.details, { field, reason });
  }
  const many = Array.from({ length: 21 }, (_, i) => ({ channelKey: `channel-key-${i}`, methods: ['CARD'] }));
  fails(await api('PUT', '/v1/store/payment-providers/pg_two', { body: { ...PG_TWO_TEST, channels: many } }), 400, 'VALIDATION_FAILED');
  fails(
    await api('PUT', '/v1/store/payment-providers/pg_two', { body: { ...PG_TWO_TEST, channels: [{ channelKey: 'channel-key-x', methods: [] }] } }),
    400,
    'VALIDATION_FAILED',
  );
  fails(
    await api('PUT', '/v1/store/payment-providers/pg_two', { body: { ...PG_TWO_TEST, channels: [{ channelKey: 'channel-key-x', methods: ['CASH'] }] } }),
    400,
    'VALIDATION_FAILED',
  );
});

test('connecting stores the provider disabled, in sandbox mode, masked; secrets never in any response', async () => {
  const saved = ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { ...PG_ONE_TEST, webhookSecret: 'pg-one-webhook-secret' } }));
  assert.is(saved.connected, true);
  assert.is(saved.enabled, false);
  assert.is(saved.sandboxMode, true);
  assert.is(saved.environment, 'TEST');
  assert.is(saved.status, 'DISABLED');
  assert.is(saved.routingExclusion, 'DISABLED');
  assert.is(saved.credentialSets.LIVE, null);
  const set = saved.credentialSets.TEST;
  assert.is(set.clientKey, PG_ONE_TEST.clientKey);
  assert.equal(set.secrets, [
    { field: 'secretKey', set: true, masked: 'test********' },
    { field: 'webhookSecret', set: true, masked: 'pg-o********' },
  ]);
  assert.is(set.verification.status, 'NOT_TESTED');
  ok(await api('PUT', '/v1/store/payment-providers/pg_two', { body: PG_TWO_TEST }));
  const settings = ok(await api('GET', '/v1/store/payment-settings'));
  assert.equal(settings.priority, ['pg_one', 'pg_two']);
  assert.equal(
    providerOf(settings, 'pg_two').credentialSets.TEST.secrets.map((s: any) => s.masked),
    ['port********', 'whse********'],
  );

  // Raw response text of every read and write: no secret, whole or in part beyond 4 characters.
  const raw = await fetch(`${svc.url}/v1/store/payment-settings`, { headers: { authorization: `Bearer ${seller.token}`, 'x-store-id': seller.storeId } }).then(
    (r) => r.text(),
  );
  for (const s of [...SECRETS, 'pg-one-webhook-secret']) assert.not.ok(raw.includes(s.slice(0, 8)), `secret ${s.slice(0, 4)}… leaked`);
  // At rest: the database file holds ciphertext only; the key file is private.
  const atRest = await databaseAtRest(svc.dataDir);
  for (const s of SECRETS) assert.not.ok(atRest.includes(s), 'secret stored in clear');
  assert.is(statSync(join(svc.dataDir, 'payment-secrets.key')).mode & 0o777, 0o600);
});

test('editing: omitted secrets keep their value, webhookSecret null erases, the test result is erased', async () => {
  ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: {} }));
  let p = providerOf(ok(await api('GET', '/v1/store/payment-settings')), 'pg_one');
  assert.is(p.credentialSets.TEST.verification.status, 'PASSED');
  const version = p.credentialSets.TEST.version;
  p = ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'TEST', webhookSecret: null } }));
  assert.equal(p.credentialSets.TEST.secrets, [
    { field: 'secretKey', set: true, masked: 'test********' },
    { field: 'webhookSecret', set: false, masked: null },
  ]);
  assert.is(p.credentialSets.TEST.verification.status, 'NOT_TESTED');
  assert.is(p.credentialSets.TEST.version, version + 1);
  // The kept secret still works: verification passes with it.
  assert.is(ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: { environment: 'TEST' } })).result.status, 'PASSED');
});

test('another merchant archives the previous keys; archived keys cannot be deleted and are counted', async () => {
  const otherMerchant = { environment: 'TEST', clientKey: 'test_ck_OtherMerchant000001', secretKey: 'test_sk_OtherMerchant000001' };
  // A new merchant is a first registration: the old secret is not carried over.
  fails(
    await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'TEST', clientKey: otherMerchant.clientKey } }),
    400,
    'PAYMENT_PROVIDER_INCOMPLETE',
  );
  const p = ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: otherMerchant }));
  assert.is(p.retiredCredentialCount, 1);
  assert.is(p.credentialSets.TEST.clientKey, otherMerchant.clientKey);
  assert.is(p.credentialSets.TEST.version, 1);
});

test('PATCH: enabling without a usable key is 409 PAYMENT_PROVIDER_INCOMPLETE; empty or unknown bodies are 400', async () => {
  fails(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: {} }), 400, 'VALIDATION_FAILED');
  fails(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: 'yes' } }), 400, 'VALIDATION_FAILED');
  fails(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { easyPayProviders: ['EASYPAY_9'] } }), 400, 'VALIDATION_FAILED');
  fails(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { easyPayProviders: ['EASYPAY_1', 'EASYPAY_1'] } }), 400, 'VALIDATION_FAILED');
  fails(await api('PATCH', '/v1/store/payment-providers/pg_zero', { body: { enabled: true } }), 400, 'VALIDATION_FAILED');
  // Delete the TEST keys of the disabled provider, then try to enable it.
  ok(await api('DELETE', '/v1/store/payment-providers/pg_two/credentials/TEST'));
  const res = await api('PATCH', '/v1/store/payment-providers/pg_two', { body: { enabled: true } });
  fails(res, 409, 'PAYMENT_PROVIDER_INCOMPLETE');
  assert.equal(res.body.error.details, { provider: 'pg_two', environment: 'TEST' });
  ok(await api('PUT', '/v1/store/payment-providers/pg_two', { body: PG_TWO_TEST }));
});

test('enabled sandbox providers become candidates in priority order; options and checkout follow', async () => {
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: true, easyPayProviders: ['EASYPAY_2', 'EASYPAY_1'] } }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_two', { body: { enabled: true } }));
  let settings = ok(await api('GET', '/v1/store/payment-settings'));
  assert.equal(settings.candidates, ['pg_one', 'pg_two']);
  assert.is(settings.environment, 'TEST');
  assert.equal(
    settings.providers.map((p: any) => p.status),
    ['IN_USE', 'IN_USE'],
  );
  settings = ok(await api('PUT', '/v1/store/payment-settings', { body: { priority: ['pg_two', 'pg_one'] } }));
  assert.equal(settings.candidates, ['pg_two', 'pg_one']);
  const { paymentOptions } = await import('../../src/modules/payments/checkout-api.js');
  assert.equal(
    (await paymentOptions(svc.services, seller.storeId)).map((o) => o.key),
    [
      'pg_two:CARD',
      'pg_two:EASY_PAY',
      'pg_two:BANK_TRANSFER',
      'pg_one:CARD',
      'pg_one:EASY_PAY:EASYPAY_2',
      'pg_one:EASY_PAY:EASYPAY_1',
      'pg_one:BANK_TRANSFER',
      'pg_one:MOBILE',
    ],
  );
  assert.equal(await availability(api, seller.storeId), [true, 'TEST', null]);
});

test('priority must name every connected provider exactly once: INVALID_PRIORITY', async () => {
  for (const priority of [['pg_one'], ['pg_one', 'pg_one'], ['pg_one', 'pg_two', 'pg_one'], []]) {
    const res = await api('PUT', '/v1/store/payment-settings', { body: { priority } });
    fails(res, 400, 'INVALID_PRIORITY');
    assert.equal(res.body.error.details.connected.sort(), ['pg_one', 'pg_two']);
  }
  fails(await api('PUT', '/v1/store/payment-settings', { body: { priority: ['pg_three'] } }), 400, 'VALIDATION_FAILED');
  fails(await api('PUT', '/v1/store/payment-settings', { body: { checkoutOrigins: ['http://shop.example'] } }), 400, 'VALIDATION_FAILED');
  fails(await api('PUT', '/v1/store/payment-settings', { body: { checkoutOrigins: ['https://shop.example/path'] } }), 400, 'VALIDATION_FAILED');
  const settings = ok(await api('PUT', '/v1/store/payment-settings', { body: { checkoutOrigins: ['https://shop.example'] } }));
  assert.equal(settings.checkoutOrigins, ['https://shop.example']);
  assert.equal(settings.priority, ['pg_two', 'pg_one']);
});

test('deleting the key set in use is 409 PAYMENT_CREDENTIAL_ACTIVE; a missing one 404 PAYMENT_CREDENTIAL_NOT_FOUND', async () => {
  const res = await api('DELETE', '/v1/store/payment-providers/pg_one/credentials/TEST');
  fails(res, 409, 'PAYMENT_CREDENTIAL_ACTIVE');
  fails(await api('DELETE', '/v1/store/payment-providers/pg_one/credentials/LIVE'), 404, 'PAYMENT_CREDENTIAL_NOT_FOUND');
  fails(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: { environment: 'LIVE' } }), 404, 'PAYMENT_CREDENTIAL_NOT_FOUND');
  fails(await api('DELETE', '/v1/store/payment-providers/pg_one/credentials/PROD'), 400, 'VALIDATION_FAILED');
});

test('concurrent change: a stale expectedVersion is 409 PAYMENT_PROVIDER_CHANGED / PAYMENT_CREDENTIAL_CHANGED', async () => {
  const p = providerOf(ok(await api('GET', '/v1/store/payment-settings')), 'pg_one');
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { easyPayProviders: ['EASYPAY_3'], expectedVersion: p.version } }));
  const stale = await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { easyPayProviders: [], expectedVersion: p.version } });
  fails(stale, 409, 'PAYMENT_PROVIDER_CHANGED');
  const setVersion = p.credentialSets.TEST.version;
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'TEST', webhookSecret: 'one-more-secret', expectedVersion: setVersion } }));
  fails(
    await api('PUT', '/v1/store/payment-providers/pg_one', { body: { environment: 'TEST', webhookSecret: null, expectedVersion: setVersion } }),
    409,
    'PAYMENT_CREDENTIAL_CHANGED',
  );
  assert.equal(providerOf(ok(await api('GET', '/v1/store/payment-settings')), 'pg_one').easyPayProviders, ['EASYPAY_3']);
});

test('dry run of a provider patch lists only the fields that would change and changes nothing', async () => {
  const before = providerOf(ok(await api('GET', '/v1/store/payment-settings')), 'pg_one');
  const res = await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: true, easyPayProviders: [] }, headers: { 'x-svc-dry-run': '1' } });
  assert.is(res.body.meta.code, 'DRY_RUN');
  assert.equal(res.data.preview.target, { type: 'PAYMENT_PROVIDER', id: 'pg_one' });
  assert.equal(res.data.preview.changes, [{ field: 'easyPayProviders', before: ['EASYPAY_3'], after: [] }]);
  assert.equal(providerOf(ok(await api('GET', '/v1/store/payment-settings')), 'pg_one'), before);
});

test('disconnect archives every key set, leaves the priority, and a second disconnect is 404 PAYMENT_PROVIDER_NOT_FOUND', async () => {
  const p = ok(await api('DELETE', '/v1/store/payment-providers/pg_two'));
  assert.is(p.connected, false);
  assert.is(p.routingExclusion, 'NOT_CONNECTED');
  assert.is(p.retiredCredentialCount, 2);
  const settings = ok(await api('GET', '/v1/store/payment-settings'));
  assert.equal(settings.priority, ['pg_one']);
  assert.equal(settings.candidates, ['pg_one']);
  fails(await api('DELETE', '/v1/store/payment-providers/pg_two'), 404, 'PAYMENT_PROVIDER_NOT_FOUND');
  fails(await api('PATCH', '/v1/store/payment-providers/pg_two', { body: { enabled: true } }), 404, 'PAYMENT_PROVIDER_NOT_FOUND');
  fails(await api('POST', '/v1/store/payment-providers/pg_two/verify', { body: {} }), 404, 'PAYMENT_PROVIDER_NOT_FOUND');
  fails(await api('DELETE', '/v1/store/payment-providers/pg_two/credentials/TEST'), 404, 'PAYMENT_PROVIDER_NOT_FOUND');
});

test('OWNER on the store platform only: ADMIN login, access tokens and apps → INSUFFICIENT_ROLE; agents → AGENT_OPERATION_DENIED', async () => {
  const admin = await newSellerWithStore(svc, 'admin');
  await addMember(svc, seller, admin, 'ADMIN');
  const adminApi = apiClient(svc.url, { token: admin.token, storeId: seller.storeId });
  fails(await adminApi('GET', '/v1/store/payment-settings'), 403, 'INSUFFICIENT_ROLE');
  fails(await adminApi('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: false } }), 403, 'INSUFFICIENT_ROLE');

  const ownerLogin = await login(svc, seller.email, seller.password);
  const access = apiClient(svc.url, { token: await createAccessToken(svc, ownerLogin, { scopes: ['store:rw'] }), storeId: seller.storeId });
  fails(await access('GET', '/v1/store/payment-settings'), 403, 'INSUFFICIENT_ROLE');
  fails(await access('PUT', '/v1/store/payment-providers/pg_two', { body: PG_TWO_TEST }), 403, 'INSUFFICIENT_ROLE');
  fails(await access('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: false }, headers: { 'x-svc-dry-run': '1' } }), 403, 'INSUFFICIENT_ROLE');

  const agent = apiClient(svc.url, { token: await createAccessToken(svc, ownerLogin, { scopes: ['store:rw'], agent: true }), storeId: seller.storeId });
  for (const [method, path, body] of [
    ['PATCH', '/v1/store/payment-providers/pg_one', { enabled: false }],
    ['PUT', '/v1/store/payment-providers/pg_two', PG_TWO_TEST],
    ['PUT', '/v1/store/payment-settings', { checkoutOrigins: [] }],
    ['DELETE', '/v1/store/payment-providers/pg_one', undefined],
  ] as const) {
    fails(await agent(method, path, { body }), 403, 'AGENT_OPERATION_DENIED');
  }
  const settings = ok(await api('GET', '/v1/store/payment-settings'));
  assert.equal(settings.candidates, ['pg_one']);
  assert.equal(settings.checkoutOrigins, ['https://shop.example']);
});

test('tenancy: another store sees only its own providers and cannot reach these credentials', async () => {
  const other = await newSellerWithStore(svc, 'other');
  const theirs = ok(await other.api('GET', '/v1/store/payment-settings'));
  assert.equal(theirs.candidates, []);
  fails(await other.api('DELETE', '/v1/store/payment-providers/pg_one'), 404, 'PAYMENT_PROVIDER_NOT_FOUND');
  // Naming this store with the other seller's token is refused before anything is read.
  fails(await apiClient(svc.url, { token: other.token, storeId: seller.storeId })('GET', '/v1/store/payment-settings'), 403, 'NOT_A_MEMBER');
  // A key set of this store handed to the other store's gateway lookup is a tenant mismatch.
  const { gatewayFor } = await import('../../src/modules/payments/checkout-api.js');
  const credentialId = providerOf(ok(await api('GET', '/v1/store/payment-settings')), 'pg_one').credentialSets.TEST.credentialId;
  await rejects(
    () => gatewayFor(svc.services, other.storeId, 'pg_one', { credentialId }),
    (e: any) => e.code === 'TENANT_MISMATCH',
  );
});

test.run();
