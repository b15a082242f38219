/**
 * The fuzzer's findings (issue 10), each at its root: checking a request never throws (a refinement that
 * throws is a field error, not a 500), and a date that names no day is 400 INVALID_PARAMETER in every
 * query and body that takes a date or an instant.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { ApiError } from '../../src/server/errors.js';
import { parseWith } from '../../src/server/validation.js';
import { createProduct, fails, ok } from '../helpers/checkout.js';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

test('a request schema whose refinement throws answers 400 VALIDATION_FAILED, not the exception', () => {
  const origin = z.object({ origin: z.string().refine((v) => new URL(v).origin === v) });
  const error = (() => {
    try {
      parseWith(origin, { origin: 'not a url' });
    } catch (e) {
      return e;
    }
  })();
  assert.instance(error, ApiError);
  assert.is((error as ApiError).status, 400);
  assert.is((error as ApiError).code, 'VALIDATION_FAILED');
  assert.is((error as ApiError).fieldErrors[0].code, 'UNCHECKABLE');
});

test('checkoutOrigins that are not origins are field errors, and nothing changes', async () => {
  const before = ok(await svc.api('GET', '/v1/store/payment-settings'));
  for (const origins of [['not a url'], ['https://'], ['https://shop.example.com/path'], ['http://shop.example.com']]) {
    const res = await svc.api('PUT', '/v1/store/payment-settings', { body: { checkoutOrigins: origins } });
    fails(res, 400, 'VALIDATION_FAILED');
    assert.ok(
      res.body.error.fieldErrors.every((f: any) => f.field === 'checkoutOrigins.0'),
      JSON.stringify(res.body.error),
    );
  }
  assert.equal(ok(await svc.api('GET', '/v1/store/payment-settings')), before);
  const saved = ok(await svc.api('PUT', '/v1/store/payment-settings', { body: { checkoutOrigins: ['https://shop.example.com:8443'] } }));
  assert.equal(saved.checkoutOrigins, ['https://shop.example.com:8443']);
});

test('a date or instant that names no day is INVALID_PARAMETER in every query and body', async () => {
  const { productId } = await createProduct(svc.api, {});
  const buyer = apiClient(svc.url, { storeId: svc.storeId });
  const discount = (dates: Record<string, string>) =>
    svc.api('PUT', `/v1/products/${productId}/discount`, { body: { method: 'PERCENT', value: 10, startDate: '2027-01-01', endDate: '2027-01-31', ...dates } });
  const cases: [string, () => ReturnType<typeof svc.api>, string, string][] = [
    ['orders: orderedTo out of range (was 500)', () => svc.api('GET', '/v1/orders', { query: { orderedTo: '9200-20-25' } }), 'orderedTo', '9200-20-25'],
    ['orders: orderedFrom', () => svc.api('GET', '/v1/orders', { query: { orderedFrom: '2026-02-29' } }), 'orderedFrom', '2026-02-29'],
    [
      'orders: lastChangedFrom',
      () => svc.api('GET', '/v1/orders', { query: { lastChangedFrom: '2026-02-30T00:00:00+09:00' } }),
      'lastChangedFrom',
      '2026-02-30T00:00:00+09:00',
    ],
    ['payments: to out of range (was 500)', () => svc.api('GET', '/v1/payments', { query: { to: '9200-20-25' } }), 'to', '9200-20-25'],
    ['payments: from', () => svc.api('GET', '/v1/payments', { query: { from: '2026-04-31' } }), 'from', '2026-04-31'],
    ['audit: from (was read as March 2)', () => svc.api('GET', '/v1/audit-logs', { query: { from: '2026-02-30T00:00:00Z' } }), 'from', '2026-02-30T00:00:00Z'],
    ['calendar read', () => svc.api('GET', `/v1/products/${productId}/calendar`, { query: { from: '2026-13-01' } }), 'from', '2026-13-01'],
    ['buyer calendar read', () => buyer('GET', `/storefront/v1/products/${productId}/calendar`, { query: { to: '2026-00-10' } }), 'to', '2026-00-10'],
    [
      'calendar write',
      () => svc.api('PUT', `/v1/products/${productId}/calendar`, { body: { variantIds: ['var_x'], from: '2027-02-30', to: '2027-03-02', stock: 1 } }),
      'from',
      '2027-02-30',
    ],
    ['discount', () => discount({ endDate: '2027-01-32' }), 'endDate', '2027-01-32'],
  ];
  for (const [name, call, field, value] of cases) {
    const res = await call();
    assert.is(res.body?.error?.code, 'INVALID_PARAMETER', `${name}: ${JSON.stringify(res.body)}`);
    assert.is(res.status, 400, name);
    assert.equal(res.body.error.details, { field, value, reason: 'NONEXISTENT_DATE' }, name);
  }
  // A period whose defaulted start would leave the four-digit calendar (year -1) names no day either.
  fails(await svc.api('GET', '/v1/orders', { query: { orderedTo: '0000-01-05' } }), 400, 'INVALID_PARAMETER');
  // Not a date at all is a form error, as before; real dates are served.
  for (const query of [{ orderedTo: '9200-1-1' }, { orderedTo: 'yesterday' }, { lastChangedFrom: '2026-01-01' }, { lastChangedFrom: '2026-01-01T24:00:00Z' }]) {
    fails(await svc.api('GET', '/v1/orders', { query }), 400, 'VALIDATION_FAILED');
  }
  ok(await svc.api('GET', '/v1/orders', { query: { orderedFrom: '2028-02-01', orderedTo: '2028-02-29', lastChangedFrom: '2028-02-29T23:59:59.999Z' } }));
  ok(await svc.api('GET', '/v1/payments', { query: { from: '2028-02-01', to: '2028-02-29' } }));
  ok(await discount({ startDate: '2028-02-29', endDate: '2028-03-01' }));
});

test.run();
