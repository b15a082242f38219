import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, reply, type StoreCtx } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import { requireOwned } from '../../server/tenancy.js';
import { emitEvent } from '../events/index.js';
import { findOrderItem, memberOrder } from '../orders/index.js';
import { storeSettings } from '../stores/index.js';
import { foreignUploads, ORDER_INPUT, uploadUrl } from '../uploads/index.js';
import { reviews } from './schema.js';

defineMessages({
  REVIEW_NOT_FOUND: '리뷰를 찾을 수 없습니다.',
  REVIEW_NOT_ALLOWED_FOR_TEST_ORDER: '테스트 주문에는 리뷰를 쓸 수 없습니다.',
  REVIEW_NOT_AVAILABLE: '배송 완료나 구매 확정 뒤에 리뷰를 쓸 수 있습니다.',
  REVIEW_ALREADY_WRITTEN: '이 상품에는 이미 리뷰를 썼습니다.',
});

/** Items a buyer has received: delivered, supplied, or decided. */
const REVIEWABLE = new Set(['DELIVERED', 'FULFILLED', 'PURCHASE_DECIDED']);
type ReviewRow = typeof reviews.$inferSelect;

const replyView = z.object({ text: z.string(), repliedAt: instant }).nullable();
const reviewView = z.object({
  reviewId: z.string(),
  productId: z.string(),
  orderItemId: z.string(),
  customerId: z.string(),
  rating: z.number().int(),
  text: z.string(),
  imageUrls: z.array(z.string()),
  reply: replyView,
  hidden: z.boolean(),
  testOrder: z.boolean(),
  createdAt: instant,
});
const buyerReviewView = reviewView.pick({ reviewId: true, rating: true, text: true, imageUrls: true, reply: true, createdAt: true });

const presentReply = (r: ReviewRow['reply']) => r && { text: r.text, repliedAt: isoAt(r.repliedAt) };
const present = (origin: string, r: ReviewRow): z.output<typeof reviewView> => ({
  reviewId: r.id,
  productId: r.productId,
  orderItemId: r.orderItemId,
  customerId: r.customerId,
  rating: r.rating,
  text: r.text,
  imageUrls: r.images.map((id) => uploadUrl(origin, id)),
  reply: presentReply(r.reply),
  hidden: r.hidden,
  testOrder: r.testOrder,
  createdAt: isoAt(r.createdAt),
});

const reviewParams = z.object({ reviewId: z.string() }).strict();
const loadReview = async (ctx: StoreCtx<any, any, { reviewId: string }>) =>
  requireOwned(await ctx.db.select().from(reviews).where(eq(reviews.id, ctx.params.reviewId)).get(), ctx.store.id, 'REVIEW_NOT_FOUND');
const REVIEW_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['REVIEW_NOT_FOUND'] } as const;

/** Reply and hide: the seller's writes on one review, answering it as it is after. */
function sellerWrite(
  operationId: string,
  path: string,
  summary: string,
  body: z.ZodObject<any> | undefined,
  change: (r: ReviewRow, body: any, now: number) => Partial<ReviewRow>,
) {
  return defineOperation({
    operationId,
    method: 'POST',
    path: `/v1/reviews/{reviewId}/${path}`,
    summary,
    tag: 'Reviews',
    auth: 'store',
    scope: 'review:rw',
    params: reviewParams,
    body,
    response: reviewView,
    errors: REVIEW_LOOKUP,
    target: (ctx) => ({ type: 'REVIEW', id: ctx.params.reviewId }),
    handler: async (ctx) => {
      const found = await loadReview(ctx);
      const changed = { ...found, ...change(found, ctx.body, ctx.now), updatedAt: ctx.now };
      await ctx.db.update(reviews).set(changed).where(eq(reviews.id, found.id)).run();
      return present(ctx.services.config.origin, changed);
    },
  });
}

export const reviewOperations = [
  defineOperation({
    operationId: 'storefrontWriteReview',
    method: 'POST',
    path: '/storefront/v1/me/order-items/{orderItemId}/reviews',
    summary: 'A member reviews an item they received (once per item): rating 1–5, text and up to 5 pictures (order-input uploads)',
    tag: 'Storefront reviews',
    auth: 'buyer',
    status: 201,
    params: z.object({ orderItemId: z.string() }).strict(),
    body: z
      .object({ rating: z.number().int().min(1).max(5), text: z.string().trim().min(1).max(2000), images: z.array(z.string()).max(5).default([]) })
      .strict(),
    response: reviewView,
    errors: {
      401: ['UNAUTHORIZED'],
      404: ['ORDER_ITEM_NOT_FOUND'],
      409: ['REVIEW_NOT_AVAILABLE', 'REVIEW_ALREADY_WRITTEN', 'REVIEW_NOT_ALLOWED_FOR_TEST_ORDER'],
    },
    handler: async (ctx) => {
      const { storeId, customer } = ctx.buyer;
      const item = await findOrderItem(ctx.db, ctx.params.orderItemId);
      await memberOrder(ctx.db, storeId, customer?.id, item?.orderId, 'ORDER_ITEM_NOT_FOUND');
      if (!REVIEWABLE.has(item!.status)) throw fail(409, 'REVIEW_NOT_AVAILABLE', { status: item!.status });
      if (item!.testPayment && !(await storeSettings(ctx.db, storeId)).testOrderReviewsAllowed) throw fail(409, 'REVIEW_NOT_ALLOWED_FOR_TEST_ORDER');
      if (await ctx.db.select({ id: reviews.id }).from(reviews).where(eq(reviews.orderItemId, item!.id)).get()) throw fail(409, 'REVIEW_ALREADY_WRITTEN');
      const missing = await foreignUploads(ctx.db, storeId, ctx.body.images, [ORDER_INPUT]);
      if (missing.size)
        throw validationFailed(
          ctx.body.images.flatMap((id, i) =>
            missing.has(id) ? [{ field: `images.${i}`, code: 'UPLOAD_NOT_FOUND', message: '이 상점에 올린 사진이 아닙니다.' }] : [],
          ),
        );
      const row: ReviewRow = {
        id: newId('rev', ctx.now),
        storeId,
        productId: item!.productId,
        orderItemId: item!.id,
        customerId: customer!.id,
        rating: ctx.body.rating,
        text: ctx.body.text,
        images: ctx.body.images,
        reply: null,
        hidden: false,
        testOrder: item!.testPayment,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.db.insert(reviews).values(row).run();
      await emitEvent(ctx.db, ctx.now, {
        storeId,
        type: 'REVIEW.CREATED',
        resource: { type: 'REVIEW', id: row.id },
        data: { reviewId: row.id, productId: row.productId, rating: row.rating },
      });
      return reply(201, present(ctx.services.config.origin, row));
    },
  }),
  defineOperation({
    operationId: 'storefrontProductReviews',
    method: 'GET',
    path: '/storefront/v1/products/{productId}/reviews',
    summary: "A product's visible reviews, newest first, with the seller's replies",
    tag: 'Storefront reviews',
    auth: 'buyer',
    params: z.object({ productId: z.string() }).strict(),
    query: z.object(pageQuery(50)).strict(),
    response: pageOf(buyerReviewView),
    handler: async (ctx) => {
      const where = and(eq(reviews.storeId, ctx.buyer.storeId), eq(reviews.productId, ctx.params.productId), eq(reviews.hidden, false));
      const rows = await ctx.db
        .select()
        .from(reviews)
        .where(where)
        .orderBy(desc(reviews.createdAt), desc(reviews.id))
        .limit(ctx.query.size)
        .offset((ctx.query.page - 1) * ctx.query.size)
        .all();
      const origin = ctx.services.config.origin;
      return paginated(
        rows.map((r) => {
          const { reviewId, rating, text, imageUrls, reply: answer, createdAt } = present(origin, r);
          return { reviewId, rating, text, imageUrls, reply: answer, createdAt };
        }),
        ctx.query.page,
        ctx.query.size,
        await countRows(ctx.db, reviews, where),
      );
    },
  }),
  defineOperation({
    operationId: 'listReviews',
    method: 'GET',
    path: '/v1/reviews',
    summary: "The store's reviews, newest first (hidden ones included)",
    tag: 'Reviews',
    auth: 'store',
    scope: 'review:r',
    query: z.object({ ...pageQuery(100), productId: z.string().optional(), rating: z.coerce.number().int().min(1).max(5).optional() }).strict(),
    response: pageOf(reviewView),
    handler: async (ctx) => {
      const where = and(
        eq(reviews.storeId, ctx.store.id),
        ctx.query.productId === undefined ? undefined : eq(reviews.productId, ctx.query.productId),
        ctx.query.rating === undefined ? undefined : eq(reviews.rating, ctx.query.rating),
      );
      const rows = await ctx.db
        .select()
        .from(reviews)
        .where(where)
        .orderBy(desc(reviews.createdAt), desc(reviews.id))
        .limit(ctx.query.size)
        .offset((ctx.query.page - 1) * ctx.query.size)
        .all();
      return paginated(
        rows.map((r) => present(ctx.services.config.origin, r)),
        ctx.query.page,
        ctx.query.size,
        await countRows(ctx.db, reviews, where),
      );
    },
  }),
  sellerWrite(
    'replyToReview',
    'reply',
    'Reply to a review (a new reply replaces the last)',
    z.object({ text: z.string().trim().min(1).max(2000) }).strict(),
    (_r, body, now) => ({ reply: { text: body.text, repliedAt: now } }),
  ),
  sellerWrite('hideReview', 'hide', 'Hide a review from buyers (it stays in the admin list)', undefined, () => ({ hidden: true })),
];
