import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eq } from 'drizzle-orm';
import { newId } from '../../src/db/ids.js';
import { EVENTS_PER_MINUTE } from '../../src/modules/apps/jobs.js';
import { appDeliveries, appExecutions } from '../../src/modules/apps/schema.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

test('an installation receives at most 300 events a minute; the excess waits and waiting is no attempt', async () => {
  const handle = uniqueHandle('rate');
  const manifest = { handle, name: 'Rate', scopes: ['store:r'] };
  const code = `var __app = { events: { 'APP.SCOPES_UPDATED': async () => true } };`;
  const { appId } = await deploy(svc.api, manifest, bundleFor(manifest, code, ['events/APP.SCOPES_UPDATED']));
  const installation = await installApp(svc.api, handle);
  const { db, clock } = svc.services;
  const now = clock.now();
  // The last minute already holds the allowance: 300 event runs, the oldest 30 s ago.
  await db
    .insert(appExecutions)
    .values(
      Array.from({ length: EVENTS_PER_MINUTE }, (_, i) => ({
        id: newId('appx', now - 30_000 + i),
        appId,
        installationId: installation.installationId,
        storeId: svc.storeId,
        kind: 'EVENT' as const,
        name: 'APP.SCOPES_UPDATED',
        status: 'SUCCEEDED' as const,
        logs: [],
        durationMs: 1,
        createdAt: now - 30_000 + i,
      })),
    )
    .run();
  const deliveryId = newId('appd', now);
  await db
    .insert(appDeliveries)
    .values({
      id: deliveryId,
      installationId: installation.installationId,
      event: 'APP.SCOPES_UPDATED',
      payload: {},
      status: 'PENDING',
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
    })
    .run();
  const delivery = async () => (await db.select().from(appDeliveries).where(eq(appDeliveries.id, deliveryId)).get())!;

  await svc.api('POST', '/_dev/v1/jobs/run');
  assert.is((await delivery()).status, 'PENDING');
  assert.is((await delivery()).attempts, 0);
  assert.ok((await delivery()).nextAttemptAt > now + 29_000, 'deferred until the oldest run leaves the minute');

  await svc.advance(31);
  assert.is((await delivery()).status, 'DONE');
  assert.is((await delivery()).attempts, 1);
});

test.run();
