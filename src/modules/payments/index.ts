import { eq } from 'drizzle-orm';
import type { H3 } from 'h3';
import { z } from 'zod';
import { devRoute } from '../../server/dev.js';
import { ApiError } from '../../server/errors.js';
import type { Module } from '../../server/module.js';
import type { Services } from '../../server/services.js';
import { parseWith } from '../../server/validation.js';
import { stores } from '../stores/schema.js';
import { paymentOperations } from './operations.js';
import { seedSandboxProvider, setPlatformLive } from './service.js';

/**
 * The platform's live permission (condition PLATFORM_LIVE_ENABLED) belongs to the operator, not the
 * seller. Locally it is this dev-only route; `svc serve` has no operator console yet (decisions.md).
 */
function mountDevPlatformLive(app: H3, services: Services) {
  const body = z.object({ storeId: z.string().min(1), enabled: z.boolean() }).strict();
  app.post('/_dev/v1/payment-settings/platform-live', devRoute(services, async (raw) => {
    const input = parseWith(body, raw);
    if (!(await services.db.select({ id: stores.id }).from(stores).where(eq(stores.id, input.storeId)).get())) throw new ApiError(404, 'NOT_FOUND');
    await setPlatformLive(services, input.storeId, input.enabled);
    return { storeId: input.storeId, platformLiveEnabled: input.enabled };
  }));
}

export const paymentsModule: Module = {
  name: 'payments',
  operations: paymentOperations,
  onSeed: seedSandboxProvider,
  mount: (app, services) => {
    if (services.config.mode === 'dev') mountDevPlatformLive(app, services);
  },
};
