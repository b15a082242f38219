import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, reply, type StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { coupons } from './schema.js';
import { findCoupon, type CouponRow } from './service.js';
import { couponSchema, presentCoupon } from './coupon-views.js';
import { createBody, ms, patchBody, ruleProblems, type Rule } from './coupon-rules.js';

/** The seller's operations on coupons: list, create, read, change, suspend and resume. */

export const tag = 'Coupons';

export const loadCoupon = async (ctx: StoreCtx<any, any, { couponId: string }>) =>
  requireOwned(await findCoupon(ctx.db, ctx.params.couponId), ctx.store.id, 'COUPON_NOT_FOUND');
export const couponParams = z.object({ couponId: z.string() }).strict();
export const COUPON_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['COUPON_NOT_FOUND'] } as const;

/** Suspend and resume: a status move allowed only from `from`. */
function statusMove(
  operationId: string,
  path: string,
  from: 'ACTIVE' | 'SUSPENDED',
  to: 'ACTIVE' | 'SUSPENDED',
  summary: string,
  /** Agents act at once, or are held for approval under the name a person reads on the approval page. */
  agent: 'direct' | { approval: string },
) {
  return defineOperation({
    operationId,
    method: 'POST',
    path: `/v1/coupons/{couponId}/${path}`,
    summary,
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: agent === 'direct' ? 'direct' : 'approval',
    title: agent === 'direct' ? undefined : agent.approval,
    params: couponParams,
    response: couponSchema,
    errors: { ...COUPON_LOOKUP, 409: ['COUPON_STATUS_CONFLICT'] },
    target: (ctx) => ({ type: 'COUPON', id: ctx.params.couponId }),
    preview: async (ctx) => ({ changes: [{ field: 'status', before: (await findCoupon(ctx.db, ctx.params.couponId))?.status ?? null, after: to }] }),
    handler: async (ctx) => {
      const coupon = await loadCoupon(ctx);
      if (coupon.status !== from) throw fail(409, 'COUPON_STATUS_CONFLICT', { status: coupon.status, expected: from });
      await ctx.db.update(coupons).set({ status: to, updatedAt: ctx.now }).where(eq(coupons.id, coupon.id)).run();
      return presentCoupon({ ...coupon, status: to, updatedAt: ctx.now });
    },
  });
}

/** Listing, creating, reading and changing coupons, in the order the API document shows them. */
export const couponRuleOperations = [
  defineOperation({
    operationId: 'listCoupons',
    method: 'GET',
    path: '/v1/coupons',
    summary: "The store's coupons, newest first",
    tag,
    auth: 'store',
    scope: 'promotion:r',
    query: z
      .object({
        ...pageQuery(100),
        status: z.enum(['ACTIVE', 'SUSPENDED', 'ENDED']).optional(),
        issueType: z.enum(['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE']).optional(),
      })
      .strict(),
    response: pageOf(couponSchema),
    handler: async (ctx) => {
      const where = and(
        eq(coupons.storeId, ctx.store.id),
        ctx.query.status && eq(coupons.status, ctx.query.status),
        ctx.query.issueType && eq(coupons.issueType, ctx.query.issueType),
      );
      const rows = await ctx.db
        .select()
        .from(coupons)
        .where(where)
        .orderBy(desc(coupons.id))
        .limit(ctx.query.size)
        .offset((ctx.query.page - 1) * ctx.query.size)
        .all();
      return paginated(rows.map(presentCoupon), ctx.query.page, ctx.query.size, await countRows(ctx.db, coupons, where));
    },
  }),
  defineOperation({
    operationId: 'createCoupon',
    title: '쿠폰 만들기',
    method: 'POST',
    path: '/v1/coupons',
    summary: 'Create a coupon: granted by the seller (MANUAL), downloaded (DOWNLOAD), given at sign-up (SIGNUP) or typed (CODE)',
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: 'approval',
    status: 201,
    body: createBody,
    response: couponSchema,
    target: () => ({ type: 'COUPON', id: null }),
    preview: (ctx) => ({ changes: [{ field: 'coupon', before: null, after: ctx.body }] }),
    handler: async (ctx) => {
      const b = ctx.body;
      const rule: Rule = {
        name: b.name,
        code: b.code ?? null,
        issueType: b.issueType,
        benefit: { method: b.benefit.method, value: b.benefit.value, maxDiscountAmount: b.benefit.maxDiscountAmount ?? null },
        minOrderAmount: b.minOrderAmount,
        target: b.target,
        downloadStart: ms(b.downloadStart),
        downloadEnd: ms(b.downloadEnd),
        useDays: b.useDays ?? null,
        useEnd: ms(b.useEnd),
        totalQuantity: b.totalQuantity ?? null,
        perCustomerLimit: b.perCustomerLimit,
        stackable: b.stackable,
      };
      const errors = await ruleProblems(ctx, rule, 0, { newCode: true });
      if (errors.length) throw validationFailed(errors);
      const coupon: CouponRow = {
        id: newId('cpn', ctx.now),
        storeId: ctx.store.id,
        ...rule,
        status: 'ACTIVE',
        issuedCount: 0,
        usedCount: 0,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.db.insert(coupons).values(coupon).run();
      return reply(201, presentCoupon(coupon));
    },
  }),
  defineOperation({
    operationId: 'getCoupon',
    method: 'GET',
    path: '/v1/coupons/{couponId}',
    summary: 'One coupon with its issued and used counts',
    tag,
    auth: 'store',
    scope: 'promotion:r',
    params: couponParams,
    response: couponSchema,
    errors: COUPON_LOOKUP,
    handler: async (ctx) => presentCoupon(await loadCoupon(ctx)),
  }),
  defineOperation({
    operationId: 'updateCoupon',
    title: '쿠폰 규칙 변경',
    method: 'PATCH',
    path: '/v1/coupons/{couponId}',
    summary: "Change a coupon's rule (items already issued keep their expiry)",
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: 'approval',
    params: couponParams,
    body: patchBody,
    response: couponSchema,
    errors: { ...COUPON_LOOKUP, 409: ['COUPON_STATUS_CONFLICT'] },
    target: (ctx) => ({ type: 'COUPON', id: ctx.params.couponId }),
    preview: async (ctx) => {
      const before = await findCoupon(ctx.db, ctx.params.couponId);
      return {
        changes: Object.entries(ctx.body).map(([field, after]) => ({
          field,
          before: before ? ((presentCoupon(before) as Record<string, unknown>)[field] ?? null) : null,
          after,
        })),
      };
    },
    handler: async (ctx) => {
      const coupon = await loadCoupon(ctx);
      if (coupon.status === 'ENDED') throw fail(409, 'COUPON_STATUS_CONFLICT', { status: coupon.status });
      const b = ctx.body;
      const rule: Rule = {
        ...coupon,
        ...(b.name !== undefined && { name: b.name }),
        ...(b.benefit !== undefined && {
          benefit: { method: b.benefit.method, value: b.benefit.value, maxDiscountAmount: b.benefit.maxDiscountAmount ?? null },
        }),
        ...(b.minOrderAmount !== undefined && { minOrderAmount: b.minOrderAmount }),
        ...(b.target !== undefined && { target: b.target }),
        ...(b.downloadStart !== undefined && { downloadStart: ms(b.downloadStart) }),
        ...(b.downloadEnd !== undefined && { downloadEnd: ms(b.downloadEnd) }),
        ...(b.useDays !== undefined && { useDays: b.useDays }),
        ...(b.useEnd !== undefined && { useEnd: ms(b.useEnd) }),
        ...(b.totalQuantity !== undefined && { totalQuantity: b.totalQuantity }),
        ...(b.perCustomerLimit !== undefined && { perCustomerLimit: b.perCustomerLimit }),
        ...(b.stackable !== undefined && { stackable: b.stackable }),
      };
      const errors = await ruleProblems(ctx, rule, coupon.issuedCount, { newCode: false });
      if (errors.length) throw validationFailed(errors);
      const changed = { ...coupon, ...rule, updatedAt: ctx.now };
      await ctx.db.update(coupons).set(changed).where(eq(coupons.id, coupon.id)).run();
      return presentCoupon(changed);
    },
  }),
];

/** Suspend and resume. */
export const couponStatusOperations = [
  statusMove('suspendCoupon', 'suspend', 'ACTIVE', 'SUSPENDED', 'Stop a coupon: no downloads, grants or new uses until resumed (held items stay)', 'direct'),
  statusMove('resumeCoupon', 'resume', 'SUSPENDED', 'ACTIVE', 'Resume a suspended coupon', { approval: '쿠폰 재개' }),
];
