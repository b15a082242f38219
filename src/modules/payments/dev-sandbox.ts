import type { H3 } from 'h3';
import { z } from 'zod';
import { devRoute } from '../../server/dev.js';
import { ApiError } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { parseWith } from '../../server/validation.js';
import { findStore } from '../stores/index.js';
import { PROVIDERS } from './gateway.js';
import { failNextSandboxWindow } from './sandbox-gateways.js';

/**
 * svc dev only: `POST /_dev/v1/payment-settings/sandbox-window-failure` `{ storeId, pg }` makes the next
 * sandbox window of that gateway fail to be prepared, so a storefront can try its answer to
 * 503 PAYMENT_PROVIDER_UNAVAILABLE (spec 02 §7) the way the simulate outcomes try the window's.
 */
export function mountDevSandboxSwitches(app: H3, services: Services) {
  const body = z.object({ storeId: z.string().min(1), pg: z.enum(PROVIDERS) }).strict();
  app.post(
    '/_dev/v1/payment-settings/sandbox-window-failure',
    devRoute(services, async (raw) => {
      const input = parseWith(body, raw);
      if (!(await findStore(services.db, input.storeId))) throw new ApiError(404, 'NOT_FOUND');
      failNextSandboxWindow(services, input.storeId, input.pg);
      return { storeId: input.storeId, pg: input.pg, nextWindowFails: true };
    }),
  );
}
