import { and, desc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { defineOperation, reply } from '../../server/registry.js';
import { findStoreProduct } from '../catalog/index.js';
import { coupons } from './schema.js';
import { findCoupon, memberItems } from './service.js';
import { couponItemSchema, couponSchema, presentCoupon, presentCouponItem } from './coupon-views.js';
import { downloadRefusal, heldCount, issueItem } from './coupon-issuing.js';
import { couponParams } from './coupon-operations.js';

/** The buyer's operations on coupons: the store's downloadable coupons, downloading one, a member's coupons. */

const storefrontCoupon = couponSchema
  .pick({
    couponId: true,
    name: true,
    benefit: true,
    minOrderAmount: true,
    target: true,
    downloadStart: true,
    downloadEnd: true,
    useDays: true,
    useEnd: true,
    stackable: true,
  })
  .extend({
    downloaded: z.boolean().optional().describe('Members only: whether they hold it'),
    downloadable: z.boolean().optional().describe('Members only: whether they may download it now'),
  });
const heldCoupon = couponItemSchema.extend({ coupon: couponSchema.pick({ name: true, benefit: true, minOrderAmount: true, target: true, stackable: true }) });

export const storefrontCouponOperations = [
  defineOperation({
    operationId: 'storefrontListCoupons',
    method: 'GET',
    path: '/storefront/v1/coupons',
    summary: 'Coupons a buyer can download (for a product, with productId); a member sees whether they hold each and may download it',
    tag: 'Storefront coupons',
    auth: 'buyer',
    query: z.object({ productId: z.string().optional() }).strict(),
    response: z.object({ contents: z.array(storefrontCoupon) }),
    handler: async (ctx) => {
      const product = ctx.query.productId ? await findStoreProduct(ctx.db, ctx.buyer.storeId, ctx.query.productId) : null;
      if (ctx.query.productId && !product) throw fail(404, 'PRODUCT_NOT_FOUND');
      const rows = (
        await ctx.db
          .select()
          .from(coupons)
          .where(and(eq(coupons.storeId, ctx.buyer.storeId), eq(coupons.issueType, 'DOWNLOAD'), eq(coupons.status, 'ACTIVE')))
          .orderBy(desc(coupons.id))
          .all()
      )
        .filter((c) => c.downloadEnd === null || ctx.now < c.downloadEnd)
        .filter(
          (c) =>
            !product ||
            c.target.kind === 'ALL' ||
            (c.target.kind === 'PRODUCTS' ? c.target.ids.includes(product.id) : product.categoryId !== null && c.target.ids.includes(product.categoryId)),
        );
      const member = ctx.buyer.customer;
      return {
        contents: await Promise.all(
          rows.map(async (c) => {
            const { couponId, name, benefit, minOrderAmount, target, downloadStart, downloadEnd, useDays, useEnd, stackable } = presentCoupon(c);
            const view = { couponId, name, benefit, minOrderAmount, target, downloadStart, downloadEnd, useDays, useEnd, stackable };
            return member
              ? {
                  ...view,
                  downloaded: (await heldCount(ctx.db, c.id, member.id)) > 0,
                  downloadable: (await downloadRefusal(ctx.db, c, member.id, ctx.now)) === null,
                }
              : view;
          }),
        ),
      };
    },
    errors: { 404: ['PRODUCT_NOT_FOUND'] },
  }),
  defineOperation({
    operationId: 'storefrontDownloadCoupon',
    method: 'POST',
    path: '/storefront/v1/coupons/{couponId}/download',
    summary: 'A member downloads a coupon: one coupon item, to use at checkout by its code',
    tag: 'Storefront coupons',
    auth: 'buyer',
    status: 201,
    params: couponParams,
    response: couponItemSchema,
    errors: {
      401: ['COUPON_MEMBERS_ONLY'],
      404: ['COUPON_NOT_FOUND'],
      409: ['COUPON_ALREADY_DOWNLOADED', 'COUPON_SOLD_OUT', 'COUPON_NOT_STARTED', 'COUPON_DOWNLOAD_ENDED', 'COUPON_NOT_DOWNLOADABLE', 'COUPON_NOT_ACTIVE'],
    },
    handler: async (ctx) => {
      const coupon = await findCoupon(ctx.db, ctx.params.couponId);
      if (!coupon || coupon.storeId !== ctx.buyer.storeId) throw fail(404, 'COUPON_NOT_FOUND');
      const refusal = await downloadRefusal(ctx.db, coupon, ctx.buyer.customer?.id ?? null, ctx.now);
      if (refusal) throw fail(refusal.status, refusal.code, { couponId: coupon.id });
      return reply(201, presentCouponItem(await issueItem(ctx.db, coupon, ctx.buyer.customer!.id, 'DOWNLOAD', ctx.now)));
    },
  }),
  defineOperation({
    operationId: 'storefrontMyCoupons',
    method: 'GET',
    path: '/storefront/v1/me/coupons',
    summary: "A member's coupons, used ones included, with where each came from (source)",
    tag: 'Storefront coupons',
    auth: 'buyer',
    response: z.object({ contents: z.array(heldCoupon) }),
    errors: { 401: ['UNAUTHORIZED'] },
    handler: async (ctx) => {
      const member = ctx.buyer.customer;
      if (!member) throw fail(401, 'UNAUTHORIZED');
      const items = await memberItems(ctx.db, ctx.buyer.storeId, member.id);
      const rules = new Map(
        items.length
          ? (
              await ctx.db
                .select()
                .from(coupons)
                .where(inArray(coupons.id, [...new Set(items.map((i) => i.couponId))]))
                .all()
            ).map((c) => [c.id, c])
          : [],
      );
      return {
        contents: items.map((i) => {
          const c = rules.get(i.couponId)!;
          return {
            ...presentCouponItem(i),
            coupon: { name: c.name, benefit: c.benefit, minOrderAmount: c.minOrderAmount, target: c.target, stackable: c.stackable },
          };
        }),
      };
    },
  }),
];
