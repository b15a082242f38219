/**
 * Versions over HTTP: publish and rollback with their guards and races, provisioning before visitors see
 * a version, server rendering that fails for one request only (a throwing page, a page that never ends),
 * warm contexts per version,
 * one-time preview links with their 12-hour browser trust, and the agent policy of spec 01 §5.6 for
 * publish, rollback, visibility and source uploads (exempt while the store never went public).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { longLivedToken } from '../helpers/members.js';
import { localFetch, siteFetch, siteUrlOf } from '../helpers/sites.js';
import { build, createSite, miniProject, runJobs, synced, tarGz, uploadSource } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let token: string;
const versions: Record<string, string> = {};

const server = `  const url = new URL(request.url);
  if (url.pathname.endsWith('/boom')) throw new Error('page crashed');
  if (url.pathname.endsWith('/slow')) { while (true) {} }
  if (url.pathname.endsWith('/admin')) return new Response(await (await fetch(url.origin + '/v1/store')).text());
  if (url.pathname.endsWith('/outside')) return new Response(await (await fetch('https://example.com/')).text());
  if (url.pathname.endsWith('/served')) { const state = globalThis as any; state.served = (state.served ?? 0) + 1; return new Response(String(state.served)); }
  return new Response('<h1>mini ' + env.version + ' ' + url.pathname + '</h1>', { headers: { 'content-type': 'text/html; charset=utf-8' } });`;

test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
  token = await longLivedToken(svc);
  api = apiClient(svc.url, { token, storeId: svc.storeId });
  const { site } = await createSite(api);
  versions.v1 = (await synced(api)).publishedVersionId;
  assert.ok(site);
  for (const name of ['v2', 'v3']) {
    ok(
      await uploadSource(
        svc,
        { token, storeId: svc.storeId },
        await tarGz(miniProject({ server, files: { 'src/marker.ts': `export const name = '${name}';` } })),
      ),
    );
    const built = await build(api);
    assert.is(built.status, 'SUCCEEDED', JSON.stringify(built));
    versions[name] = built.versionId;
  }
});
test.after(async () => {
  await svc.close();
});

const visit = (path: string, init: RequestInit = {}) => siteFetch(svc, 'dev-store', path, init);
const publish = (versionId: string, body: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  api('POST', `/v1/storefront/site/versions/${versionId}/publish`, { body, ...options });

test('publish: guarded by the expected published version; publishing the published one succeeds; visitors get it once synced', async () => {
  fails(await publish('ver_nope'), 404, 'STOREFRONT_VERSION_NOT_FOUND');
  fails(await publish(versions.v2, { expectedPublishedVersionId: versions.v3 }), 409, 'STOREFRONT_SITE_CHANGED');
  const published = ok(await publish(versions.v2, { expectedPublishedVersionId: versions.v1 }));
  assert.equal([published.publishedVersionId, published.provisioning.status], [versions.v2, 'PENDING']);
  ok(await publish(versions.v2, { expectedPublishedVersionId: versions.v1 }), 200);
  await synced(api);
  await createProduct(api, { name: '판매 상품', salePrice: 1000 });
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
  const page = await visit('');
  assert.is(page.status, 200);
  assert.is(await page.text(), '<h1>mini v2 /</h1>', 'the site is the root of its own origin');
});

test('publish race: two publishes expecting the same current version — one wins, the other is told the site changed', async () => {
  const [a, b] = await Promise.all([
    publish(versions.v3, { expectedPublishedVersionId: versions.v2 }),
    publish(versions.v1, { expectedPublishedVersionId: versions.v2 }),
  ]);
  const statuses = [a.status, b.status].sort();
  assert.equal(statuses, [200, 409], JSON.stringify([a.body, b.body]));
  assert.is((a.status === 409 ? a : b).body.error.code, 'STOREFRONT_SITE_CHANGED');
  const winner = a.status === 200 ? versions.v3 : versions.v1;
  assert.is(ok(await api('GET', '/v1/storefront/site')).publishedVersionId, winner);
  if (winner !== versions.v3) ok(await publish(versions.v3));
  await synced(api);
});

test('rollback: default target is the version published just before; explicit target; guard', async () => {
  const history = ok(await api('GET', '/v1/storefront/site')).publishedVersionId;
  assert.is(history, versions.v3);
  fails(await api('POST', '/v1/storefront/site/rollback', { body: { expectedPublishedVersionId: versions.v1 } }), 409, 'STOREFRONT_SITE_CHANGED');
  const back = ok(await api('POST', '/v1/storefront/site/rollback', { body: { expectedPublishedVersionId: versions.v3 } }));
  assert.ok([versions.v2, versions.v1].includes(back.publishedVersionId));
  const before = back.publishedVersionId;
  const again = ok(await api('POST', '/v1/storefront/site/rollback', { body: {} }));
  assert.is(again.publishedVersionId, versions.v3, 'rolling back a rollback returns to the version before it');
  ok(await api('POST', '/v1/storefront/site/rollback', { body: { versionId: before } }));
  ok(await publish(versions.v3));
  await synced(api);
  assert.match(await (await visit('')).text(), 'mini v3');
});

test('rollback without an earlier published version: STOREFRONT_NO_ROLLBACK_TARGET', async () => {
  const other = await startTestService();
  try {
    const otherApi = apiClient(other.url, { token: await longLivedToken(other), storeId: other.storeId });
    await createSite(otherApi);
    await synced(otherApi);
    fails(await otherApi('POST', '/v1/storefront/site/rollback', { body: {} }), 409, 'STOREFRONT_NO_ROLLBACK_TARGET');
  } finally {
    await other.close();
  }
});

test('rendering: a page that throws or never ends fails alone with a 5xx page; the next request is served', async () => {
  const boom = await visit('boom');
  assert.is(boom.status, 500);
  assert.match(await boom.text(), '일시적인 오류');
  const slow = await visit('slow');
  assert.is(slow.status, 504);
  assert.is((await visit('admin')).status, 500, "the site's fetch reaches only the buyer API, not the admin API");
  assert.is((await visit('outside')).status, 500, 'nor any other host');
  const fine = await visit('after');
  assert.is(fine.status, 200);
  assert.match(await fine.text(), 'mini v3 /after');
});

test("warm contexts: a version's requests run where its bundle already ran (module state lives on, as in edge runtimes); a new version starts afresh", async () => {
  const counts: number[] = [];
  for (let i = 0; i < 24; i++) counts.push(Number(await (await visit('served')).text()));
  assert.ok(Math.max(...counts) > 1, `the bundle started over for every request: ${counts}`);
  assert.ok(
    counts.every((n) => n >= 1 && n <= 24),
    String(counts),
  );
  // Rolled back to v2 and forward again: v3's isolates kept their contexts, v2 has its own from 1.
  ok(await publish(versions.v2));
  await synced(api);
  assert.is(await (await visit('served')).text(), '1');
  ok(await publish(versions.v3));
  await synced(api);
});

test('provisioning: a version whose artifacts are missing stays PENDING, shows FAILED after 3 tries and is retried until it syncs', async () => {
  const { versions: table } = await import('../../src/modules/storefront/schema.js');
  const { eq } = await import('drizzle-orm');
  const row = (await svc.services.db.select().from(table).where(eq(table.id, versions.v2)).get())!;
  const blob = join(svc.dataDir, 'storefront', 'blobs', row.server.bundle.hash.slice(0, 2), row.server.bundle.hash.slice(2));
  const saved = readFileSync(blob);
  rmSync(blob);
  try {
    const before = ok(await api('GET', '/v1/storefront/site')).publishedVersionId;
    ok(await publish(versions.v2));
    await runJobs(api);
    let site = ok(await api('GET', '/v1/storefront/site'));
    assert.equal([site.provisioning.status, site.provisioning.servedVersionId], ['PENDING', before], 'visitors keep the version they had');
    for (let i = 0; i < 3; i++) await svc.advance(31 * 60);
    site = ok(await api('GET', '/v1/storefront/site'));
    assert.is(site.provisioning.status, 'FAILED');
  } finally {
    writeFileSync(blob, saved);
  }
  await svc.advance(31 * 60);
  const site = await synced(api);
  assert.equal([site.provisioning.status, site.provisioning.servedVersionId], ['SYNCED', versions.v2]);
  ok(await publish(versions.v3));
  await synced(api);
});

test('preview: a one-time link for an unpublished version, trusted for 12 hours in that browser only', async () => {
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'COMING_SOON', expectedVisibility: 'PUBLIC' } }));
  // Preview links are for people on the store platform: an access token is refused.
  fails(await api('POST', '/v1/storefront/site/preview-link', { body: { versionId: versions.v2 } }), 403, 'INSUFFICIENT_ROLE');
  const owner = apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
  fails(await owner('POST', '/v1/storefront/site/preview-link', { body: { versionId: 'ver_nope' } }), 404, 'STOREFRONT_VERSION_NOT_FOUND');
  const link = ok(await owner('POST', '/v1/storefront/site/preview-link', { body: { versionId: versions.v2 } }));
  assert.match(link.url, `${siteUrlOf(svc, 'dev-store')}_preview/open/`);
  const opened = await localFetch(link.url);
  assert.is(opened.status, 303);
  assert.is(opened.headers.get('location'), `${siteUrlOf(svc, 'dev-store')}_preview/`);
  const trust = opened.headers.get('set-cookie')!;
  assert.match(
    trust,
    /; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/,
    "the platform's cookie on the site's origin (its buyer API knows the seller's browser too)",
  );
  const cookie = trust.split(';')[0];
  const preview = await visit('_preview/', { headers: { cookie } });
  assert.is(preview.status, 200);
  assert.is(await preview.text(), '<h1>mini v2 /_preview/</h1>', 'the unpublished version, while visitors see coming soon');
  assert.match(await (await visit('')).text(), '곧 문을 엽니다');
  assert.is((await localFetch(link.url)).status, 410, 'a link opens once');
  assert.is((await visit('_preview/')).status, 403, 'another browser is not trusted');
  assert.is((await visit('_preview/', { headers: { cookie: `${cookie.slice(0, -3)}abc` } })).status, 403, 'a forged trust is refused');

  const late = ok(await owner('POST', '/v1/storefront/site/preview-link', {}));
  assert.is(late.versionId, versions.v3, 'default: the published version');
  await svc.advance(6 * 60);
  assert.is((await localFetch(late.url)).status, 410, 'links open within 5 minutes');
  await svc.advance(12 * 3600);
  assert.is((await visit('_preview/', { headers: { cookie } })).status, 403, 'the trust lasts 12 hours');
});

test('agent policy: publish and rollback are exempt while the store never went public, then need approval; uploads changing package.json too', async () => {
  const owner = await login(svc);
  const agent = await createAccessToken(svc, owner, { name: 'agent', scopes: ['storefront:rw'], agent: true, expiresInDays: 30, storeScope: { all: true } });
  const agentApi = apiClient(svc.url, { token: agent, storeId: svc.storeId });
  // This store already went public in an earlier test: approval from now on, even set back to private.
  const waiting = await agentApi('POST', `/v1/storefront/site/versions/${versions.v2}/publish`, { body: {} });
  assert.is(waiting.status, 202, JSON.stringify(waiting.body));
  assert.is(waiting.body.meta.code, 'APPROVAL_REQUIRED');
  assert.is((await agentApi('POST', '/v1/storefront/site/rollback', { body: {} })).status, 202);
  assert.is((await agentApi('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } })).status, 202);
  const dryRun = await uploadSource(
    svc,
    { token: agent, storeId: svc.storeId },
    await tarGz(miniProject({ server, packageJson: { description: 'changed' } })),
    { 'x-svc-dry-run': '1' },
  );
  assert.is(dryRun.status, 200, JSON.stringify(dryRun.body));
  assert.is(dryRun.data.decision, 'APPROVAL_REQUIRED');
  assert.ok(
    dryRun.data.preview.changes.some((c: any) => c.field === 'package.json'),
    JSON.stringify(dryRun.data.preview),
  );
  const sourceOnly = await uploadSource(
    svc,
    { token: agent, storeId: svc.storeId },
    await tarGz(miniProject({ server, files: { 'src/marker.ts': "export const name = 'v3';" } })),
  );
  assert.is(sourceOnly.status, 200, 'a source change that leaves the build configuration alone runs directly');

  const fresh = await startTestService();
  try {
    const freshToken = await longLivedToken(fresh);
    const freshApi = apiClient(fresh.url, { token: freshToken, storeId: fresh.storeId });
    await createSite(freshApi);
    const freshAgent = await createAccessToken(fresh, await login(fresh), {
      name: 'agent',
      scopes: ['storefront:rw'],
      agent: true,
      expiresInDays: 30,
      storeScope: { all: true },
    });
    const freshAgentApi = apiClient(fresh.url, { token: freshAgent, storeId: fresh.storeId });
    const upload = await uploadSource(fresh, { token: freshAgent, storeId: fresh.storeId }, await tarGz(miniProject({ server })));
    assert.is(upload.status, 200, `exempt while private: ${JSON.stringify(upload.body)}`);
    const built = await build(freshAgentApi);
    assert.is(ok(await freshAgentApi('POST', `/v1/storefront/site/versions/${built.versionId}/publish`, { body: {} })).publishedVersionId, built.versionId);
    ok(await freshAgentApi('POST', '/v1/storefront/site/rollback', { body: {} }));
    assert.is(
      (await freshAgentApi('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } })).status,
      202,
      'visibility always needs approval',
    );
  } finally {
    await fresh.close();
  }
});

test.run();
