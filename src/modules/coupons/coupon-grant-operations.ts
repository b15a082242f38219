import { z } from 'zod';
import { transaction } from '../../db/client.js';
import { ApiError, fail } from '../../server/errors.js';
import { defineOperation } from '../../server/registry.js';
import { storeCustomersByIds } from '../customers/index.js';
import { findCoupon } from './service.js';
import { couponItemSchema, presentCouponItem } from './coupon-views.js';
import { heldCount, issueItem } from './coupon-issuing.js';
import { COUPON_LOOKUP, couponParams, loadCoupon, tag } from './coupon-operations.js';

/** The seller gives a MANUAL coupon to buyers, each buyer on its own. */

const MAX_GRANT = 100;

const grantResult = z.object({
  granted: z.array(z.object({ customerId: z.string(), couponItem: couponItemSchema })),
  failed: z.array(z.object({ customerId: z.string(), code: z.string(), message: z.string() })),
});

export const grantCouponOperation = defineOperation({
  operationId: 'grantCoupon',
  title: '쿠폰 지급',
  method: 'POST',
  path: '/v1/coupons/{couponId}/grants',
  summary: 'Give a MANUAL coupon to up to 100 buyers; each buyer succeeds or fails on its own',
  tag,
  auth: 'store',
  scope: 'promotion:rw',
  agent: 'approval',
  params: couponParams,
  body: z.object({ customerIds: z.array(z.string()).min(1).max(MAX_GRANT) }).strict(),
  response: grantResult,
  errors: { ...COUPON_LOOKUP, 409: ['COUPON_NOT_GRANTABLE', 'COUPON_STATUS_CONFLICT'] },
  target: (ctx) => ({ type: 'COUPON', id: ctx.params.couponId }),
  preview: (ctx) => ({ changes: [{ field: 'grants', before: null, after: ctx.body.customerIds }] }),
  handler: async (ctx) => {
    const coupon = await loadCoupon(ctx);
    if (coupon.issueType !== 'MANUAL') throw fail(409, 'COUPON_NOT_GRANTABLE', { issueType: coupon.issueType });
    if (coupon.status !== 'ACTIVE') throw fail(409, 'COUPON_STATUS_CONFLICT', { status: coupon.status });
    const result: z.output<typeof grantResult> = { granted: [], failed: [] };
    const buyers = new Map((await storeCustomersByIds(ctx.db, ctx.store.id, ctx.body.customerIds)).map((c) => [c.id, c]));
    for (const customerId of new Set(ctx.body.customerIds)) {
      const refuse = (code: string, message: string) => result.failed.push({ customerId, code, message });
      const buyer = buyers.get(customerId);
      if (!buyer) {
        refuse('CUSTOMER_NOT_FOUND', '이 상점의 구매자가 아닙니다.');
        continue;
      }
      if (buyer.withdrawnAt !== null) {
        refuse('CUSTOMER_WITHDRAWN', '탈퇴한 구매자입니다.');
        continue;
      }
      if ((await heldCount(ctx.db, coupon.id, customerId)) >= coupon.perCustomerLimit) {
        refuse('COUPON_LIMIT_REACHED', `한 사람에게 ${coupon.perCustomerLimit}장까지 줄 수 있습니다.`);
        continue;
      }
      try {
        // A savepoint per buyer: one sold-out grant leaves the others in place.
        const item = await transaction(ctx.db, async () => issueItem(ctx.db, (await findCoupon(ctx.db, coupon.id))!, customerId, 'MANUAL', ctx.now));
        result.granted.push({ customerId, couponItem: presentCouponItem(item) });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        refuse(error.code, '쿠폰이 모두 소진되었습니다.');
      }
    }
    return result;
  },
});
