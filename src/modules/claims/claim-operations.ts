import { and, desc, eq, gte, lt } from 'drizzle-orm';
import { z } from 'zod';
import { countRows, transaction } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, reply, type BuyerCtx, type Ctx, type StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { dateInput } from '../../server/validation.js';
import { runRefund } from '../checkout/index.js';
import { findOrderItem, guestOrder, memberOrder } from '../orders/index.js';
import { kstDayStart } from '../orders/index.js';
import { refundStatus } from './give-back.js';
import { claims } from './schema.js';
import {
  approveClaim,
  assessClaim,
  CLAIM_REASONS,
  claimPreviewView,
  claimView,
  completeClaim,
  fileClaim,
  pickupComplete,
  presentClaim,
  rejectClaim,
  reshipClaim,
  type ClaimRequest,
  type ClaimRow,
} from './service.js';

/** Buyers' claims (member and guest forms, with previews) and the seller's steps on them. */

const claimBody = z
  .object({
    claimType: z.enum(['CANCEL', 'RETURN', 'EXCHANGE']),
    quantity: z.number().int().min(1).max(10_000),
    reason: z.enum(CLAIM_REASONS),
    detail: z.string().trim().max(1000).optional(),
    exchangeOptionId: z.string().optional(),
    images: z.array(z.string()).max(5).optional(),
  })
  .strict();
const guestClaimBody = claimBody.extend({ orderPassword: z.string().min(1).max(128) }).strict();
const CLAIM_ERRORS = { 404: ['ORDER_NOT_FOUND', 'ORDER_ITEM_NOT_FOUND'], 409: ['INVALID_STATUS', 'PERIOD_EXPIRED'] } as const;
const claimResult = claimView.extend({
  refundStatus: z.enum(['PROCESSING', 'COMPLETED', 'FAILED', 'HELD']).nullable().describe('The refund of a claim completed now'),
});

/** A buyer's item: a member's own, or a guest's with the order password (looked up like the guest order look-up). */
async function buyerItem(ctx: BuyerCtx, orderId: string | undefined, orderItemId: string, password?: string) {
  const order =
    password === undefined
      ? await memberOrder(ctx.db, ctx.buyer.storeId, ctx.buyer.customer?.id, orderId, 'ORDER_ITEM_NOT_FOUND')
      : await guestOrder(ctx.db, ctx.buyer.storeId, orderId!, password, ctx.now);
  const item = await findOrderItem(ctx.db, orderItemId);
  if (!item || item.orderId !== order.id) throw fail(404, 'ORDER_ITEM_NOT_FOUND');
  return { order, item };
}
const orderIdOfItem = async (ctx: Ctx, orderItemId: string) => (await findOrderItem(ctx.db, orderItemId))?.orderId;
const claimRequest = (body: z.output<typeof guestClaimBody> | z.output<typeof claimBody>): ClaimRequest => {
  const { orderPassword: _password, ...request } = body as z.output<typeof guestClaimBody>;
  return request;
};

async function fileAndRefund(ctx: BuyerCtx, order: Parameters<typeof fileClaim>[2], item: Parameters<typeof fileClaim>[3], body: ClaimRequest) {
  const { claim, refundId } = await transaction(ctx.db, () => fileClaim(ctx.services, ctx.now, order, item, body));
  if (refundId) await runRefund(ctx.services, refundId);
  return reply(201, { ...presentClaim(claim), refundStatus: claim.refundId ? await refundStatus(ctx.db, claim.refundId) : null });
}

function buyerClaimOperations() {
  const tag = 'Storefront claims';
  const preview = (assessed: Awaited<ReturnType<typeof assessClaim>>, body: ClaimRequest) => ({
    claimType: body.claimType,
    quantity: body.quantity,
    decision: assessed.decision,
    refundAmount: assessed.amounts.refundAmount,
    deliveryFeeRefundAmount: assessed.amounts.deliveryFeeRefundAmount,
    deliveryFeeChargeAmount: assessed.amounts.deliveryFeeChargeAmount,
    deductAmount: assessed.amounts.deductAmount,
    pointRefundAmount: assessed.amounts.pointRefundAmount,
    cashRefundAmount: assessed.amounts.cashRefundAmount,
  });
  const memberParams = z.object({ orderItemId: z.string() }).strict();
  const guestParams = z.object({ orderId: z.string(), orderItemId: z.string() }).strict();
  return [
    defineOperation({
      operationId: 'storefrontFileMemberClaim',
      method: 'POST',
      path: '/storefront/v1/me/order-items/{orderItemId}/claims',
      summary: "A member asks to cancel, return or exchange units of an item; the item's order flow decides (at once, or the seller)",
      tag,
      auth: 'buyer',
      status: 201,
      async: true,
      params: memberParams,
      body: claimBody,
      response: claimResult,
      errors: CLAIM_ERRORS,
      handler: async (ctx) => {
        const { order, item } = await buyerItem(ctx, await orderIdOfItem(ctx, ctx.params.orderItemId), ctx.params.orderItemId);
        return fileAndRefund(ctx, order, item, claimRequest(ctx.body));
      },
    }),
    defineOperation({
      operationId: 'storefrontPreviewMemberClaim',
      method: 'POST',
      path: '/storefront/v1/me/order-items/{orderItemId}/claims/preview',
      summary: 'What a claim would give back and cost (return shipping, cancel fee) without filing it',
      tag,
      auth: 'buyer',
      async: true,
      idempotent: false,
      params: memberParams,
      body: claimBody,
      response: claimPreviewView,
      errors: CLAIM_ERRORS,
      handler: async (ctx) => {
        const { order, item } = await buyerItem(ctx, await orderIdOfItem(ctx, ctx.params.orderItemId), ctx.params.orderItemId);
        return preview(await assessClaim(ctx.db, ctx.now, order, item, claimRequest(ctx.body)), claimRequest(ctx.body));
      },
    }),
    defineOperation({
      operationId: 'storefrontFileGuestClaim',
      method: 'POST',
      path: '/storefront/v1/guest/orders/{orderId}/items/{orderItemId}/claims',
      summary: 'A guest files a claim with the order password',
      tag,
      auth: 'buyer',
      status: 201,
      async: true,
      params: guestParams,
      body: guestClaimBody,
      response: claimResult,
      errors: { ...CLAIM_ERRORS, 429: ['GUEST_LOOKUP_LOCKED'] },
      handler: async (ctx) => {
        const { order, item } = await buyerItem(ctx, ctx.params.orderId, ctx.params.orderItemId, ctx.body.orderPassword);
        return fileAndRefund(ctx, order, item, claimRequest(ctx.body));
      },
    }),
    defineOperation({
      operationId: 'storefrontPreviewGuestClaim',
      method: 'POST',
      path: '/storefront/v1/guest/orders/{orderId}/items/{orderItemId}/claims/preview',
      summary: "A guest's claim preview, with the order password",
      tag,
      auth: 'buyer',
      async: true,
      idempotent: false,
      params: guestParams,
      body: guestClaimBody,
      response: claimPreviewView,
      errors: { ...CLAIM_ERRORS, 429: ['GUEST_LOOKUP_LOCKED'] },
      handler: async (ctx) => {
        const { order, item } = await buyerItem(ctx, ctx.params.orderId, ctx.params.orderItemId, ctx.body.orderPassword);
        return preview(await assessClaim(ctx.db, ctx.now, order, item, claimRequest(ctx.body)), claimRequest(ctx.body));
      },
    }),
  ];
}

function sellerClaimOperations() {
  const tag = 'Claims';
  const claimParams = z.object({ claimId: z.string() }).strict();
  const LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['CLAIM_NOT_FOUND'], 409: ['INVALID_STATUS'] } as const;
  const load = async (ctx: StoreCtx<any, any, { claimId: string }>) =>
    requireOwned(await ctx.db.select().from(claims).where(eq(claims.id, ctx.params.claimId)).get(), ctx.store.id, 'CLAIM_NOT_FOUND');
  /** A seller's step on one claim; steps that give money back run the refund after their transaction. */
  const step = (
    operationId: string,
    path: string,
    summary: string,
    /** Agents act at once, or are held for approval under the name a person reads on the approval page. */
    agent: 'direct' | { approval: string },
    body: z.ZodObject<any> | undefined,
    run: (ctx: StoreCtx<any, any, { claimId: string }>, claim: ClaimRow) => Promise<{ claim: ClaimRow; refundId: string | null }>,
  ) =>
    defineOperation({
      operationId,
      method: 'POST',
      path: `/v1/claims/{claimId}/${path}`,
      summary,
      tag,
      auth: 'store',
      scope: 'claim:rw',
      agent: agent === 'direct' ? 'direct' : 'approval',
      title: agent === 'direct' ? undefined : agent.approval,
      async: true,
      params: claimParams,
      body,
      response: claimResult,
      errors: LOOKUP,
      target: (ctx) => ({ type: 'CLAIM', id: ctx.params.claimId }),
      preview: async (ctx) => ({
        changes: [
          {
            field: 'status',
            before: (await ctx.db.select({ s: claims.status }).from(claims).where(eq(claims.id, ctx.params.claimId)).get())?.s ?? null,
            after: path,
          },
        ],
      }),
      handler: async (ctx) => {
        const { claim, refundId } = await transaction(ctx.db, async () => run(ctx, await load(ctx)));
        if (refundId) await runRefund(ctx.services, refundId);
        return { ...presentClaim(claim), refundStatus: claim.refundId ? await refundStatus(ctx.db, claim.refundId) : null };
      },
    });
  const listQuery = z
    .object({
      ...pageQuery(100),
      status: z.enum(['REQUESTED', 'APPROVED', 'PICKUP_COMPLETED', 'RESHIPPED', 'COMPLETED', 'REJECTED', 'WITHDRAWN']).optional(),
      claimType: z.enum(['CANCEL', 'RETURN', 'EXCHANGE']).optional(),
      orderId: z.string().optional(),
      from: dateInput.optional(),
      to: dateInput.optional(),
    })
    .strict();
  return [
    defineOperation({
      operationId: 'listClaims',
      method: 'GET',
      path: '/v1/claims',
      summary: 'Claims of the store, newest first (filters: status, claimType, orderId, Korean dates from/to)',
      tag,
      auth: 'store',
      scope: 'claim:r',
      query: listQuery,
      response: pageOf(claimView),
      handler: async (ctx) => {
        const q = ctx.query;
        const where = and(
          eq(claims.storeId, ctx.store.id),
          q.status && eq(claims.status, q.status),
          q.claimType && eq(claims.claimType, q.claimType),
          q.orderId === undefined ? undefined : eq(claims.orderId, q.orderId),
          q.from ? gte(claims.createdAt, kstDayStart(q.from)) : undefined,
          q.to ? lt(claims.createdAt, kstDayStart(q.to) + 86_400_000) : undefined,
        );
        const rows = await ctx.db
          .select()
          .from(claims)
          .where(where)
          .orderBy(desc(claims.createdAt), desc(claims.id))
          .limit(q.size)
          .offset((q.page - 1) * q.size)
          .all();
        return paginated(rows.map(presentClaim), q.page, q.size, await countRows(ctx.db, claims, where));
      },
    }),
    defineOperation({
      operationId: 'getClaim',
      method: 'GET',
      path: '/v1/claims/{claimId}',
      summary: 'One claim with its amounts (estimates until COMPLETED)',
      tag,
      auth: 'store',
      scope: 'claim:r',
      params: claimParams,
      response: claimView,
      errors: { 403: ['TENANT_MISMATCH'], 404: ['CLAIM_NOT_FOUND'] },
      handler: async (ctx) => presentClaim(await load(ctx)),
    }),
    step(
      'approveClaim',
      'approve',
      'Approve a requested claim: a cancel refunds now; a return or exchange waits for the pickup. The seller may set a deduction and the shipping charge',
      { approval: '클레임 승인(환불)' },
      z
        .object({
          deductAmount: z.number().int().min(0).max(100_000_000).optional(),
          deliveryFeeChargeAmount: z.number().int().min(0).max(100_000_000).optional(),
        })
        .strict(),
      (ctx, claim) => approveClaim(ctx.services, ctx.now, ctx, claim, ctx.body ?? {}),
    ),
    step(
      'rejectClaim',
      'reject',
      'Reject a claim (the item goes on in its flow)',
      'direct',
      z.object({ reason: z.string().trim().min(1).max(500) }).strict(),
      async (ctx, claim) => ({ claim: await rejectClaim(ctx.db, ctx.now, claim, ctx.body.reason), refundId: null }),
    ),
    step(
      'completeClaimPickup',
      'pickup-complete',
      'The returned or exchanged goods arrived (an exchange puts the original stock back now)',
      'direct',
      undefined,
      async (ctx, claim) => ({ claim: await pickupComplete(ctx.db, ctx.now, claim), refundId: null }),
    ),
    step(
      'reshipClaim',
      'reship',
      'Ship the exchange: the new option leaves with its carrier and tracking number',
      'direct',
      z.object({ carrier: z.string().trim().min(1).max(50), trackingNo: z.string().trim().min(1).max(50) }).strict(),
      async (ctx, claim) => ({ claim: await reshipClaim(ctx.db, ctx.now, claim, ctx.body), refundId: null }),
    ),
    step(
      'completeClaim',
      'complete',
      'Finish a claim: a return refunds (stock back), an exchange closes',
      { approval: '클레임 완료' },
      undefined,
      (ctx, claim) => completeClaim(ctx.services, ctx.now, ctx, claim),
    ),
  ];
}

export const claimOperations = [...buyerClaimOperations(), ...sellerClaimOperations()];
