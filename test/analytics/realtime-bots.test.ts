/** The realtime report leaves bots out by session (spec 01 §5.8) and counts the sessions it left out. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { apiClient, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const page = (at: number, campaign: string) => ({ name: 'page', at: new Date(at).toISOString(), path: '/', utm: { source: 'naver', campaign } });
const send = (storeId: string, visitor: string, ua: string, events: unknown[]) =>
  apiClient(svc.url, { storeId })('POST', '/storefront/v1/events', {
    body: { events },
    headers: { 'x-svc-visitor': `visitor-${visitor}`, 'x-svc-session': `session-${visitor}`, 'user-agent': ua },
  });

test('excludedBotSessions counts sessions, not visitors; a visitor’s human session still counts', async () => {
  const { api, storeId } = await newSellerWithStore(svc, 'rt-bots');
  const now = svc.services.clock.now();
  // One crawler, two campaigns: two sessions within the window.
  assert.is((await send(storeId, 'crawler', GOOGLEBOT, [page(now - 120_000, 'spring'), page(now - 60_000, 'summer')])).status, 204);
  // One visitor: a bot-flagged session, then a human one (another campaign starts it).
  assert.is((await send(storeId, 'mixed', GOOGLEBOT, [page(now - 100_000, 'autumn')])).status, 204);
  assert.is((await send(storeId, 'mixed', CHROME, [page(now - 30_000, 'winter')])).status, 204);

  const realtime = ok(await api('GET', '/v1/analytics/realtime'));
  assert.is(realtime.excludedBotSessions, 3);
  assert.equal([realtime.summary.visitors, realtime.summary.pageViews], [1, 1]);
});

test.run();
