import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import { instant, won } from '../../server/responses.js';
import type { CouponItemRow, CouponRow } from './service.js';

/** The views of a coupon and of a coupon item, as the API shows them. */

export const benefitSchema = z.object({
  method: z.enum(['PERCENT', 'AMOUNT']),
  value: z.number().int().describe('Percent (1–100) for PERCENT, won for AMOUNT'),
  maxDiscountAmount: won.nullable().describe('Cap of a PERCENT discount; null for none'),
});
export const targetSchema = z.object({ kind: z.enum(['ALL', 'PRODUCTS', 'CATEGORIES']), ids: z.array(z.string()) });

export const couponSchema = z.object({
  couponId: z.string(),
  name: z.string(),
  code: z.string().nullable().describe('What buyers type, for CODE coupons'),
  issueType: z.enum(['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE']),
  benefit: benefitSchema,
  minOrderAmount: won,
  target: targetSchema,
  downloadStart: instant.nullable(),
  downloadEnd: instant.nullable(),
  useDays: z.number().int().nullable(),
  useEnd: instant.nullable(),
  totalQuantity: z.number().int().nullable(),
  perCustomerLimit: z.number().int(),
  stackable: z.boolean(),
  status: z.enum(['ACTIVE', 'SUSPENDED', 'ENDED']),
  issuedCount: z.number().int(),
  usedCount: z.number().int(),
  createdAt: instant,
  updatedAt: instant,
});

const at = (ms: number | null) => (ms === null ? null : isoAt(ms));

export const presentCoupon = (c: CouponRow): z.output<typeof couponSchema> => ({
  couponId: c.id,
  name: c.name,
  code: c.code,
  issueType: c.issueType,
  benefit: c.benefit,
  minOrderAmount: c.minOrderAmount,
  target: c.target,
  downloadStart: at(c.downloadStart),
  downloadEnd: at(c.downloadEnd),
  useDays: c.useDays,
  useEnd: at(c.useEnd),
  totalQuantity: c.totalQuantity,
  perCustomerLimit: c.perCustomerLimit,
  stackable: c.stackable,
  status: c.status,
  issuedCount: c.issuedCount,
  usedCount: c.usedCount,
  createdAt: isoAt(c.createdAt),
  updatedAt: isoAt(c.updatedAt),
});

export const couponItemSchema = z.object({
  couponItemId: z.string(),
  couponId: z.string(),
  source: z.enum(['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE']),
  code: z.string().describe('Send it in coupons[].code at checkout'),
  expiresAt: instant.nullable(),
  usedAt: instant.nullable(),
  orderId: z.string().nullable(),
});

export const presentCouponItem = (i: CouponItemRow): z.output<typeof couponItemSchema> => ({
  couponItemId: i.id,
  couponId: i.couponId,
  source: i.source,
  code: i.code,
  expiresAt: at(i.expiresAt),
  usedAt: at(i.usedAt),
  orderId: i.orderId,
});
