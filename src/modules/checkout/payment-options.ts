// The payment options a buyer is offered (gateway, method, easy-pay provider), as the API shows them.
import { z } from 'zod';
import type { Services } from '../../server/services.js';
import { paymentOptions, type CheckoutAudience } from '../payments/index.js';
import { EASY_PAY_PROVIDERS, METHODS, PROVIDERS, type PaymentOption } from '../payments/index.js';

/** A payment option of spec 02 §2.4. */
export const paymentOptionView = z.object({
  pg: z.enum(PROVIDERS),
  method: z.enum(METHODS),
  provider: z.enum(EASY_PAY_PROVIDERS).nullable().describe('The easy-pay provider whose window opens directly; only with EASY_PAY.'),
  key: z.string().describe('`<pg>:<method>:<provider>`, accepted wherever an option is sent.'),
  label: z.string(),
  pgName: z.string(),
});

export const presentOption = (o: PaymentOption) => ({ pg: o.pg, method: o.method, provider: o.provider ?? null, key: o.key, label: o.label, pgName: o.pgName });

export const presentOptions = async (services: Services, storeId: string, audience: CheckoutAudience = {}) =>
  (await paymentOptions(services, storeId, audience)).map(presentOption);
