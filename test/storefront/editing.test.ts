/**
 * The editing environment over HTTP: the working files served live by the dev server, single-file writes,
 * capacity (EDIT_CAPACITY_FULL with retryAfterSeconds), sleep after 15 minutes idle, the closing notice
 * (mail and event) 5 minutes before it closes after 30 minutes without a file write, check or build.
 */
import { and, eq } from 'drizzle-orm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { events } from '../../src/modules/events/schema.js';
import { fails, ok } from '../helpers/assert.js';
import { localFetch } from '../helpers/sites.js';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { createSite, storefrontApi } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let other: Api;
const MINUTE = 60;
test.before(async () => {
  svc = await startTestService({ storefront: { editCapacity: 1 } as never });
  api = await storefrontApi(svc);
  await createSite(api);
  other = await storefrontApi(svc, await newSellerWithStore(svc, 'sf-edit'));
  await createSite(other, { templateId: 'basic', slug: 'edit-other' });
});
test.after(async () => {
  await svc.close();
});

const file = (path: string) => `/v1/storefront/site/files/${encodeURIComponent(path)}`;
const mailTo = async (subject: string) => (await svc.api('GET', '/_dev/v1/mail')).data.contents.filter((m: any) => m.subject.includes(subject));

test('start: the working files served live; a file write reaches the page; bad paths refused', async () => {
  assert.is(ok(await api('GET', '/v1/storefront/site/editing')), null);
  const env = ok(await api('POST', '/v1/storefront/site/editing'));
  assert.is(env.status, 'READY');
  assert.match(env.url, /^http:\/\/edit-[0-9a-z]+\.localhost:\d+\/$/, 'a site of its own, apart from the service on 127.0.0.1');
  const home = await localFetch(env.url);
  assert.is(home.status, 200);
  assert.match(await home.text(), '<html');
  const written = ok(await api('PUT', file('public/edit-marker.txt'), { body: { content: 'first draft' } }));
  assert.equal([written.path, written.created, written.size], ['public/edit-marker.txt', true, 11]);
  assert.is(await (await localFetch(`${env.url}edit-marker.txt`)).text(), 'first draft');
  ok(await api('PUT', file('public/edit-marker.txt'), { body: { content: Buffer.from('second').toString('base64'), encoding: 'base64' } }));
  assert.is(await (await localFetch(`${env.url}edit-marker.txt`)).text(), 'second');
  assert.is(ok(await api('GET', '/v1/storefront/site/files', { query: { path: 'public/edit-marker.txt' } })).content, 'second');
  fails(await api('PUT', file('../escape.txt'), { body: { content: 'x' } }), 400, 'STOREFRONT_SOURCE_INVALID');
  ok(await api('DELETE', file('public/edit-marker.txt')));
  assert.is((await localFetch(`${env.url}edit-marker.txt`)).status, 404);
  fails(await api('DELETE', file('public/edit-marker.txt')), 404, 'STOREFRONT_FILE_NOT_FOUND');
  assert.is(ok(await api('POST', '/v1/storefront/site/editing')).url, env.url, 'starting again answers the running one');
});

test('capacity: the service runs one here; another store waits retryAfterSeconds, then gets it when the first sleeps', async () => {
  const full = fails(await other('POST', '/v1/storefront/site/editing'), 409, 'EDIT_CAPACITY_FULL');
  assert.ok(full.error.details.retryAfterSeconds > 14 * MINUTE && full.error.details.retryAfterSeconds <= 15 * MINUTE, JSON.stringify(full.error.details));
  await svc.advance(16 * MINUTE);
  const slept = ok(await api('GET', '/v1/storefront/site/editing'));
  assert.equal([slept.status, slept.url, slept.idleSleepAt], ['SLEEPING', null, null]);
  const theirs = ok(await other('POST', '/v1/storefront/site/editing'));
  assert.is(theirs.status, 'READY');
  fails(await api('POST', '/v1/storefront/site/editing'), 409, 'EDIT_CAPACITY_FULL');
  await svc.advance(16 * MINUTE);
  const woken = ok(await api('POST', '/v1/storefront/site/editing'));
  assert.is(woken.status, 'READY', 'woken once the other slept');
});

test('closes 30 minutes after the last file write, check or build, with a notice 5 minutes before; a write and a check keep it open', async () => {
  const env = ok(await api('GET', '/v1/storefront/site/editing'));
  await svc.advance(14 * MINUTE);
  ok(await api('PUT', file('public/keep.txt'), { body: { content: 'still here' } }));
  await svc.advance(14 * MINUTE);
  ok(await api('POST', '/v1/storefront/site/checks'), 202);
  await svc.advance(26 * MINUTE);
  const kept = ok(await api('GET', '/v1/storefront/site/editing'));
  assert.equal([kept.editingId, kept.status], [env.editingId, 'SLEEPING'], 'the write and the check kept it open; idle, it sleeps');
  assert.ok(Math.abs(Date.parse(kept.closeAt) - svc.services.clock.now() - 4 * MINUTE * 1000) < 5_000, kept.closeAt);
  const notices = await svc.services.db
    .select()
    .from(events)
    .where(and(eq(events.storeId, svc.storeId), eq(events.type, 'STOREFRONT.EDITING_CLOSING')))
    .all();
  assert.is(notices.length, 1);
  assert.is((notices[0].data as { editingId: string }).editingId, env.editingId);
  const mails = await mailTo('편집 환경이 5분 뒤 닫힙니다');
  assert.ok(
    mails.some((m: any) => m.body.includes(env.editingId)),
    JSON.stringify(mails),
  );
  await svc.advance(5 * MINUTE);
  assert.is(ok(await api('GET', '/v1/storefront/site/editing')), null, 'closed');
});

test.run();
