/** The retired template change (spec 02 §storefront site): always 409, whatever an old client sends. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails } from '../helpers/assert.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const path = '/v1/storefront/site/template';

test('POST /storefront/site/template answers 409 TEMPLATE_CHANGE_NOT_SUPPORTED whatever the body', async () => {
  fails(await svc.api('POST', path), 409, 'TEMPLATE_CHANGE_NOT_SUPPORTED');
  fails(await svc.api('POST', path, { body: {} }), 409, 'TEMPLATE_CHANGE_NOT_SUPPORTED');
  fails(await svc.api('POST', path, { body: { templateId: 'modern' } }), 409, 'TEMPLATE_CHANGE_NOT_SUPPORTED');
  fails(await svc.api('POST', path, { body: ['modern'] }), 409, 'TEMPLATE_CHANGE_NOT_SUPPORTED');
  fails(await svc.api('POST', path, { rawBody: '{"templateId":', headers: { 'content-type': 'application/json' } }), 409, 'TEMPLATE_CHANGE_NOT_SUPPORTED');
  fails(
    await svc.api('POST', path, { rawBody: 'templateId=modern', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    409,
    'TEMPLATE_CHANGE_NOT_SUPPORTED',
  );
});

test('it still needs a signed-in caller with the storefront scope', async () => {
  const res = await svc.api('POST', path, { token: null as never, body: { templateId: 'modern' } });
  assert.is(res.status, 401);
});

test.run();
