import { z } from 'zod';
import { won } from '../../server/responses.js';

/** Plans and their limits. Numeric plan limits are "not shown" in the spec; these are our choices (decisions.md). */
export const planSchema = z.object({
  code: z.string(),
  name: z.string(),
  monthlyPriceKrw: won,
  limits: z.object({ aiActionsPerMonth: z.number().int(), ordersPerMonth: z.number().int().nullable(), customDomains: z.number().int() }),
});
export type Plan = z.output<typeof planSchema>;

export const PLANS: Plan[] = [
  { code: 'FREE', name: '무료', monthlyPriceKrw: 0, limits: { aiActionsPerMonth: 100, ordersPerMonth: 100, customDomains: 0 } },
  { code: 'STANDARD', name: '스탠다드', monthlyPriceKrw: 29000, limits: { aiActionsPerMonth: 2000, ordersPerMonth: null, customDomains: 1 } },
  { code: 'PRO', name: '프로', monthlyPriceKrw: 99000, limits: { aiActionsPerMonth: 20000, ordersPerMonth: null, customDomains: 5 } },
];

export const planByCode = (code: string) => PLANS.find((p) => p.code === code) ?? PLANS[0];
