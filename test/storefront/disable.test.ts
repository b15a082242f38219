/**
 * Disabling a site over HTTP: the slug confirmation, OWNER-only approval of an agent's request, the closing
 * notice for 30 days at the site's address and its connected domain with source, versions and domains kept,
 * deletion of them all by the job runner when the 30 days end (the address freed then), and re-creation
 * (slug changes keep counting; the new site takes over the store's domains).
 */
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { eq } from 'drizzle-orm';
import { domains as domainRows, siteFiles, sites, versions } from '../../src/modules/storefront/schema.js';
import { startDnsServer } from '../helpers/dns.js';
import { localFetch, siteFetch } from '../helpers/sites.js';
import { createSite, eventually, ownerCli, storefrontApi } from '../helpers/site-builds.js';
import { addMember } from '../helpers/invitations.js';

let svc: TestService;
let api: Api;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let cli: Awaited<ReturnType<typeof ownerCli>>;
const DAY = 86_400;
const admin = { email: `sf-admin-${Date.now()}@example.com`, password: 'password-1234' };
test.before(async () => {
  dns = await startDnsServer();
  svc = await startTestService({ storefront: { dnsServers: dns.servers } as never });
  api = await storefrontApi(svc);
  // Made while the owner's login is fresh: later tests move the clock on.
  cli = await ownerCli(svc);
  await createSite(api);
  ok(await apiClient(svc.url)('POST', '/auth/v1/signup', { body: { ...admin, name: 'Admin' } }), 201);
  await addMember(svc, { token: svc.ownerToken, storeId: svc.storeId }, admin, 'ADMIN');
});
test.after(async () => {
  await svc.close();
  await dns.close();
});

/** The home page of `{slug}`'s own origin. */
const visit = (slug: string) => siteFetch(svc, slug);

/** A GET to the service with another Host header: a connected custom domain (svc dev serves `.localhost` ones). */
const visitHost = (host: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const url = new URL(svc.url);
    const req = request({ host: url.hostname, port: url.port, path: '/', headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });

/** Adds `hostname`, sets the DNS records it asks for and lets the domain job connect it (ACTIVE, primary). */
async function connectDomain(hostname: string) {
  const added = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname } }), 201);
  for (const record of added.dnsRecords) dns.set(record.name, record.type === 'TXT' ? { TXT: [record.value] } : { CNAME: record.value });
  await svc.advance(6 * 60);
  await svc.advance(6 * 60);
  const listed = ok(await api('GET', '/v1/storefront/site/domains')).contents.find((d: any) => d.domainId === added.domainId);
  assert.equal([listed.status, listed.primary], ['ACTIVE', true], hostname);
}

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

test('disable: the slug must be confirmed; then a closing notice for 30 days at every address, every change refused, source, versions and domains kept', async () => {
  await connectDomain('closing.example.localhost');
  ok(await api('PUT', '/v1/storefront/site/slug', { body: { slug: 'closing-shop' } }));
  const mismatch = await cli(['storefront', 'disable', '--confirm', 'dev-store']);
  assert.is(mismatch.exitCode, 1);
  assert.match(mismatch.stderr, 'STOREFRONT_SLUG_CONFIRM_MISMATCH');
  fails(await api('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'dev-store' } }), 400, 'STOREFRONT_SLUG_CONFIRM_MISMATCH');
  const sourceBefore = ok(await api('GET', '/v1/storefront/site/files')).contents;
  assert.ok(sourceBefore.length > 0);
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
  const onDomain = await visitHost('closing.example.localhost');
  assert.is(onDomain.status, 410, 'the connected domain shows the closing notice too');
  assert.match(onDomain.body, '문을 닫은 상점');
  assert.is((await visit('dev-store')).status, 404, 'old addresses no longer redirect to a closed site');
  fails(await api('POST', '/v1/storefront/site/versions'), 409, 'STOREFRONT_SITE_NOT_ACTIVE');
  fails(await api('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'closing-shop' } }), 409, 'STOREFRONT_SITE_NOT_ACTIVE');
  fails(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'more.example.localhost' } }), 409, 'STOREFRONT_SITE_NOT_ACTIVE');
  assert.equal(ok(await api('GET', '/v1/storefront/site/files')).contents, sourceBefore, 'the source stays readable while the site closes');
  assert.ok(ok(await api('GET', '/v1/storefront/site/versions')).contents.length > 0, 'so do its versions');
  const domains = ok(await api('GET', '/v1/storefront/site/domains')).contents;
  assert.equal(
    domains.filter((d: any) => d.kind === 'CUSTOM').map((d: any) => [d.hostname, d.status]),
    [['closing.example.localhost', 'ACTIVE']],
    'and its custom domains',
  );
});

test('a new site may be created while the old one closes (slug changes keep counting) and takes over the custom domains; after 30 days the old one is deleted and its address freed', async () => {
  fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'closing-shop' } }), 409, 'STOREFRONT_SLUG_TAKEN');
  const again = await createSite(api, { templateId: 'basic', slug: 'reborn-shop' });
  assert.is(again.site.slugChangesRemaining, 2, 'the change before the disable still counts');
  assert.is(ok(await api('GET', '/v1/storefront/site')).slug, 'reborn-shop');
  fails(await api('POST', '/v1/storefront/site', { body: { templateId: 'basic', slug: 'third-shop' } }), 409, 'STOREFRONT_SITE_EXISTS');
  const domain = ok(await api('GET', '/v1/storefront/site/domains')).contents.find((d: any) => d.hostname === 'closing.example.localhost');
  assert.equal([domain?.status, domain?.primary], ['ACTIVE', true], "the store's domain serves its new site");
  assert.is((await visitHost('closing.example.localhost')).status, 200);
  const closedId = (await svc.services.db.select().from(sites).where(eq(sites.slug, 'closing-shop')).get())!.id;
  assert.ok((await svc.services.db.select().from(versions).where(eq(versions.siteId, closedId)).all()).length > 0);
  await svc.advance(29 * DAY);
  assert.is((await visit('closing-shop')).status, 410);
  await svc.advance(2 * DAY);
  assert.is((await visit('closing-shop')).status, 404);
  assert.is(await svc.services.db.select().from(sites).where(eq(sites.id, closedId)).get(), undefined);
  assert.equal(await svc.services.db.select().from(versions).where(eq(versions.siteId, closedId)).all(), [], 'its versions are deleted with it');
  const reborn = ok(await api('GET', '/v1/storefront/site'));
  assert.equal([reborn.slug, reborn.url], ['reborn-shop', 'https://closing.example.localhost/'], 'the new site is untouched');
  assert.ok(ok(await api('GET', '/v1/storefront/site/files')).contents.length > 0, "the new site's source stays");
  assert.is((await visitHost('closing.example.localhost')).status, 200, 'and so does its domain');
  const other = { api: await storefrontApi(svc, await newSellerWithStore(svc, 'sf-dis')) };
  assert.is(
    ok(await other.api('GET', '/v1/storefront/slug-availability', { query: { slug: 'closing-shop' } })).available,
    true,
    'the address is free once the closing period ends',
  );
});

test('a closed site nobody replaces: after 30 days its versions, source files and custom domains are deleted', async () => {
  const seller = await newSellerWithStore(svc, 'sf-gone');
  const other = await storefrontApi(svc, seller);
  await createSite(other, { templateId: 'basic', slug: 'gone-shop' });
  const pending = ok(await other('POST', '/v1/storefront/site/domains', { body: { hostname: 'gone.example.localhost' } }), 201);
  ok(await other('POST', '/v1/storefront/site/disable', { body: { confirmSlug: 'gone-shop' } }));
  await svc.advance(29 * DAY);
  assert.equal(
    ok(await other('GET', '/v1/storefront/site/domains')).contents.map((d: any) => d.domainId),
    ['dom_platform', pending.domainId],
    'kept through the closing period',
  );
  assert.ok(ok(await other('GET', '/v1/storefront/site/files')).contents.length > 0);
  assert.ok(ok(await other('GET', '/v1/storefront/site/versions')).contents.length > 0);
  assert.is((await visit('gone-shop')).status, 410);
  await svc.advance(2 * DAY);
  assert.is(ok(await other('GET', '/v1/storefront/site')).siteId, null);
  fails(await other('GET', '/v1/storefront/site/domains'), 404, 'STOREFRONT_SITE_NOT_FOUND');
  fails(await other('GET', '/v1/storefront/site/files'), 404, 'STOREFRONT_SITE_NOT_FOUND');
  assert.equal(await svc.services.db.select().from(domainRows).where(eq(domainRows.storeId, seller.storeId)).all(), [], 'its domains are deleted');
  assert.equal(await svc.services.db.select().from(siteFiles).where(eq(siteFiles.storeId, seller.storeId)).all(), [], 'and its source files');
  assert.is((await visit('gone-shop')).status, 404);
  assert.is(ok(await api('GET', '/v1/storefront/slug-availability', { query: { slug: 'gone-shop' } })).available, true, 'its address is free');
});

test.run();
