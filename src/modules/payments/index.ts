import type { H3 } from 'h3';
import { z } from 'zod';
import { devRoute } from '../../server/dev.js';
import { ApiError } from '../../server/errors.js';
import type { Module } from '../../server/module.js';
import type { Services } from '../../server/services.js';
import { parseWith } from '../../server/validation.js';
import { findStore } from '../stores/index.js';
import { paymentOperations } from './operations.js';
import { mountDevSandboxSwitches } from './dev-sandbox.js';
import { checkoutAvailability } from './routing.js';
import { seedSandboxProvider, setPlatformLive } from './service.js';

/**
 * The platform's live permission (condition PLATFORM_LIVE_ENABLED) belongs to the operator, not the
 * seller. Locally it is this dev-only route; `svc serve` has no operator console yet (decisions.md).
 */
function mountDevPlatformLive(app: H3, services: Services) {
  const body = z.object({ storeId: z.string().min(1), enabled: z.boolean() }).strict();
  app.post(
    '/_dev/v1/payment-settings/platform-live',
    devRoute(services, async (raw) => {
      const input = parseWith(body, raw);
      if (!(await findStore(services.db, input.storeId))) throw new ApiError(404, 'NOT_FOUND');
      await setPlatformLive(services, input.storeId, input.enabled);
      return { storeId: input.storeId, platformLiveEnabled: input.enabled };
    }),
  );
}

export const paymentsModule: Module = {
  name: 'payments',
  operations: paymentOperations,
  onSeed: seedSandboxProvider,
  answers: { checkoutAvailabilityOf: checkoutAvailability },
  mount: (app, services) => {
    if (services.config.mode !== 'dev') return;
    mountDevPlatformLive(app, services);
    mountDevSandboxSwitches(app, services);
  },
};

export { checkoutAvailability, checkoutMode, gatewayFor, optionKey, paymentDomains, paymentOptions, sandboxDecide } from './checkout-api.js';
export { openSecrets, sealSecrets } from './crypto.js';
export {
  type ConfirmResult,
  EASY_PAY_PROVIDERS,
  type EasyPayProvider,
  type Gateway,
  METHODS,
  type PaymentMethod,
  type PaymentOption,
  type Pg,
  PROVIDERS,
  type SandboxOutcome,
} from './gateway.js';
export { holdSandboxRefunds } from './sandbox-gateways.js';
export type { CheckoutAudience } from './routing.js';
export { merchantOfCredential } from './service.js';
export { methodLabel, PG_NAMES } from './routing.js';
