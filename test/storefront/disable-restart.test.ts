/**
 * The end of a closing period is durable work: a service stopped while a site closes still deletes it (with
 * its versions, source files and custom domains) once the 30 days have passed, on whichever start comes next.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, startTestService, type TestService } from '../helpers/service.js';
import { createSite } from '../helpers/site-builds.js';

const DAY = 86_400;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
let svc: TestService | undefined;
test.after(async () => {
  await svc?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('a site disabled before a restart is deleted after its 30 days by the restarted service', async () => {
  svc = await startTestService({ dataDir });
  const { storeId } = svc;
  const token = await createAccessToken(svc, svc.ownerToken, { scopes: ['storefront:rw'], expiresInDays: 365 });
  let api = apiClient(svc.url, { token, storeId });
  await createSite(api, { templateId: 'basic', slug: 'restart-shop' });
  ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'restart.example.localhost' } }), 201);
  ok(await api('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'restart-shop' } }));
  await svc.close();

  // The same database, a new process: nothing about the closing lived only in the stopped one.
  svc = await startTestService({ dataDir });
  api = apiClient(svc.url, { token, storeId });
  assert.is(ok(await api('GET', '/v1/storefront/site')).status, 'CLOSED');
  assert.ok(ok(await api('GET', '/v1/storefront/site/files')).contents.length > 0);
  await svc.advance(31 * DAY);
  assert.is(ok(await api('GET', '/v1/storefront/site')).siteId, null);
  fails(await api('GET', '/v1/storefront/site/domains'), 404, 'STOREFRONT_SITE_NOT_FOUND');
  fails(await api('GET', '/v1/storefront/site/versions'), 404, 'STOREFRONT_SITE_NOT_FOUND');
});

test.run();
