/**
 * Disabling a site over HTTP: the slug confirmation, OWNER-only approval of an agent's request, the closing
 * notice for 30 days, deletion by the job runner, the address held 30 days more, and re-creation (slug
 * changes keep counting).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { eq } from 'drizzle-orm';
import { sites, versions } from '../../src/modules/storefront/schema.js';
import { localFetch, siteFetch } from '../helpers/sites.js';
import { createSite, eventually, ownerCli, storefrontApi } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
const DAY = 86_400;
const admin = { email: `sf-admin-${Date.now()}@example.com`, password: 'password-1234' };
test.before(async () => {
  svc = await startTestService();
  api = await storefrontApi(svc);
  await createSite(api);
  ok(await apiClient(svc.url)('POST', '/auth/v1/signup', { body: { ...admin, name: 'Admin' } }), 201);
  ok(await svc.api('POST', '/v1/members', { body: { email: admin.email, role: 'ADMIN' } }), 201);
});
test.after(async () => {
  await svc.close();
});

/** The home page of `{slug}`'s own origin. */
const visit = (slug: string) => siteFetch(svc, slug);

test("an agent's disable waits for an OWNER: an ADMIN's approval is refused", async () => {
  const agent = await createAccessToken(svc, await login(svc), {
    name: 'agent',
    scopes: ['storefront:rw'],
    agent: true,
    expiresInDays: 30,
    storeScope: { all: true },
  });
  const agentApi = apiClient(svc.url, { token: agent, storeId: svc.storeId });
  const held = await agentApi('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'dev-store' } });
  assert.is(held.status, 202, JSON.stringify(held.body));
  assert.is(held.body.meta.code, 'APPROVAL_REQUIRED');
  const adminToken = await login(svc, admin.email, admin.password);
  fails(await api('POST', `/v1/approval-requests/${held.data.approvalId}/approve`, { token: adminToken }), 403, 'INSUFFICIENT_ROLE');
  ok(await svc.api('POST', `/v1/approval-requests/${held.data.approvalId}/reject`));
  assert.is(ok(await api('GET', '/v1/storefront/site')).status, 'ACTIVE');
});

test('disable: the slug must be confirmed; then a closing notice for 30 days and every change refused', async () => {
  ok(await api('PUT', '/v1/storefront/site/slug', { body: { slug: 'closing-shop' } }));
  const cli = await ownerCli(svc);
  const mismatch = await cli(['storefront', 'disable', '--confirm', 'dev-store']);
  assert.is(mismatch.exitCode, 1);
  assert.match(mismatch.stderr, 'STOREFRONT_SLUG_CONFIRM_MISMATCH');
  fails(await api('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'dev-store' } }), 400, 'STOREFRONT_SLUG_CONFIRM_MISMATCH');
  const editing = ok(await api('POST', '/v1/storefront/site/editing'));
  assert.is((await localFetch(editing.url)).status, 200);
  const closed = ok(await api('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'closing-shop' } }));
  assert.is(ok(await api('GET', '/v1/storefront/site/editing')), null, 'the editing environment closed with the site');
  // The job runner (this request's run or its own tick) stops the dev server.
  await eventually(
    api,
    () =>
      localFetch(editing.url).then(
        () => false,
        () => true,
      ),
    'the editing dev server to stop',
    10_000,
  );
  assert.is(closed.status, 'CLOSED');
  assert.ok(Math.abs(Date.parse(closed.closing.deleteAt) - svc.services.clock.now() - 30 * DAY * 1000) < 1000, closed.closing.deleteAt);
  const notice = await visit('closing-shop');
  assert.is(notice.status, 410);
  assert.match(await notice.text(), '문을 닫은 상점');
  assert.is((await visit('dev-store')).status, 404, 'old addresses no longer redirect to a closed site');
  fails(await api('POST', '/v1/storefront/site/versions'), 409, 'STOREFRONT_SITE_NOT_ACTIVE');
  fails(await api('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'closing-shop' } }), 409, 'STOREFRONT_SITE_NOT_ACTIVE');
  assert.equal(ok(await api('GET', '/v1/storefront/site/files')).contents, [], 'the source files went with the disable');
});

test('a new site may be created while the old one closes (slug changes keep counting); after 30 days the old one is deleted and its address held 30 days', async () => {
  fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'closing-shop' } }), 409, 'STOREFRONT_SLUG_TAKEN');
  const again = await createSite(api, { templateId: 'basic', slug: 'reborn-shop' });
  assert.is(again.site.slugChangesRemaining, 2, 'the change before the disable still counts');
  assert.is(ok(await api('GET', '/v1/storefront/site')).slug, 'reborn-shop');
  fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'third-shop' } }), 409, 'STOREFRONT_SITE_EXISTS');
  const closedId = (await svc.services.db.select().from(sites).where(eq(sites.slug, 'closing-shop')).get())!.id;
  assert.ok((await svc.services.db.select().from(versions).where(eq(versions.siteId, closedId)).all()).length > 0);
  await svc.advance(29 * DAY);
  assert.is((await visit('closing-shop')).status, 410);
  await svc.advance(2 * DAY);
  assert.is((await visit('closing-shop')).status, 404);
  assert.is(await svc.services.db.select().from(sites).where(eq(sites.id, closedId)).get(), undefined);
  assert.equal(await svc.services.db.select().from(versions).where(eq(versions.siteId, closedId)).all(), [], 'its versions are deleted with it');
  assert.is(ok(await api('GET', '/v1/storefront/site')).slug, 'reborn-shop', 'the new site is untouched');
  const other = { api: await storefrontApi(svc, await newSellerWithStore(svc, 'sf-dis')) };
  fails(await other.api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'closing-shop' } }), 409, 'STOREFRONT_SLUG_TAKEN');
  assert.is(
    ok(await api('GET', '/v1/storefront/slug-availability', { query: { slug: 'closing-shop' } })).available,
    true,
    'the store itself may take its held address',
  );
  await svc.advance(31 * DAY);
  const free = ok(await other.api('GET', '/v1/storefront/slug-availability', { query: { slug: 'closing-shop' } }));
  assert.is(free.available, true);
});

test.run();
