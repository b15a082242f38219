import { and, count, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { instant, won } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { findProduct, variantsOf } from '../catalog/index.js';
import { recordSale, restoreStock } from '../catalog/index.js';
import { emitEvent } from '../events/index.js';
import { openClaimHold, releaseClaimHold } from '../flows/index.js';
import { definitionOf } from '../flows/index.js';
import { findItemFlow } from '../flows/index.js';
import { closeItemFlow } from '../flows/index.js';
import { hasOverdueTimer } from '../flows/index.js';
import { offersImmediateCancel } from '../flows/index.js';
import { findOrder, type OrderRow } from '../orders/index.js';
import { AmountError, claimAmounts, type Amounts } from './amounts.js';
import { giveBack, orderLines, type Giver, type OrderItemRow } from './give-back.js';
import { claims, type ClaimStatus, type ClaimType } from './schema.js';

defineMessages({
  CLAIM_NOT_FOUND: '클레임을 찾을 수 없습니다.',
  REFUND_NOT_FOUND: '환불을 찾을 수 없습니다.',
  PERIOD_EXPIRED: '신청할 수 있는 기간이 지났습니다.',
});

export type ClaimRow = typeof claims.$inferSelect;

/** Why buyers claim; the seller's faults (defect, wrong item) cost the buyer no shipping. */
export const CLAIM_REASONS = ['CHANGE_OF_MIND', 'DEFECTIVE', 'WRONG_ITEM', 'DELAYED', 'ETC'] as const;
const SELLER_FAULT = new Set(['DEFECTIVE', 'WRONG_ITEM']);
const OPEN: ClaimStatus[] = ['REQUESTED', 'APPROVED', 'PICKUP_COMPLETED', 'RESHIPPED'];
const EVENT_OF: Record<ClaimType, string> = { CANCEL: 'CLAIM.CANCEL_REQUESTED', RETURN: 'CLAIM.RETURN_REQUESTED', EXCHANGE: 'CLAIM.EXCHANGE_REQUESTED' };

export const claimView = z.object({
  claimId: z.string(),
  claimNo: z.number().int(),
  claimType: z.enum(['CANCEL', 'RETURN', 'EXCHANGE']),
  status: z.enum(['REQUESTED', 'APPROVED', 'PICKUP_COMPLETED', 'RESHIPPED', 'COMPLETED', 'REJECTED', 'WITHDRAWN']),
  orderId: z.string(),
  orderItemId: z.string(),
  quantity: z.number().int(),
  reason: z.string(),
  detail: z.string().nullable(),
  exchangeOptionId: z.string().nullable(),
  refundAmount: won
    .nullable()
    .describe(
      'Item plus shipping refund, with deliveryFeeChargeAmount and deductAmount not taken off (spec 01 §6.2 rule 4: subtract both for what goes back). Estimate while open, final once COMPLETED; null for an exchange without refund',
    ),
  deliveryFeeRefundAmount: won,
  deliveryFeeChargeAmount: won,
  deductAmount: won,
  pointRefundAmount: won,
  refundId: z.string().nullable(),
  approved: z.boolean(),
  rejectReason: z.string().nullable(),
  reship: z.object({ carrier: z.string(), trackingNo: z.string() }).nullable(),
  createdAt: instant,
  updatedAt: instant,
});

export const presentClaim = (c: ClaimRow): z.output<typeof claimView> => ({
  claimId: c.id,
  claimNo: c.claimNo,
  claimType: c.claimType,
  status: c.status,
  orderId: c.orderId,
  orderItemId: c.orderItemId,
  quantity: c.quantity,
  reason: c.reason,
  detail: c.detail,
  exchangeOptionId: c.exchangeOptionId,
  refundAmount: c.refundAmount,
  deliveryFeeRefundAmount: c.deliveryFeeRefundAmount,
  deliveryFeeChargeAmount: c.deliveryFeeChargeAmount,
  deductAmount: c.deductAmount,
  pointRefundAmount: c.pointRefundAmount,
  refundId: c.refundId,
  approved: c.approved,
  rejectReason: c.rejectReason,
  reship: c.reship,
  createdAt: isoAt(c.createdAt),
  updatedAt: isoAt(c.updatedAt),
});

export const claimPreviewView = z.object({
  claimType: z.enum(['CANCEL', 'RETURN', 'EXCHANGE']),
  quantity: z.number().int(),
  decision: z.enum(['IMMEDIATE', 'REQUEST']).describe("The flow's authority in the item's state: IMMEDIATE completes at once"),
  refundAmount: won.nullable().describe('As on the claim: item plus shipping refund, before the charge and the deduction'),
  deliveryFeeRefundAmount: won,
  deliveryFeeChargeAmount: won.describe('Return or exchange shipping, and free shipping the rest no longer earns'),
  deductAmount: won.describe('Cancel fee: 0 until the seller sets one at approval'),
  pointRefundAmount: won,
  cashRefundAmount: won.describe('With pointRefundAmount, what would go back: refundAmount − deliveryFeeChargeAmount − deductAmount'),
});

export interface ClaimRequest {
  claimType: ClaimType;
  quantity: number;
  reason: (typeof CLAIM_REASONS)[number];
  detail?: string;
  exchangeOptionId?: string;
  images?: string[];
}

/**
 * The flow's say over a claim type in the item's current state (spec 02 §4.4): IMMEDIATE, REQUEST or NONE.
 * A buyer action with authority IMMEDIATE_CANCEL offered in the state makes a cancel IMMEDIATE.
 */
async function authorityOf(db: Db, orderItemId: string, claimType: ClaimType) {
  const row = await findItemFlow(db, orderItemId);
  if (!row) return 'NONE';
  const def = await definitionOf(db, row.flowId, row.version);
  if (claimType === 'CANCEL' && offersImmediateCancel(def, row.state)) return 'IMMEDIATE';
  const state = def.states[row.state];
  const key = claimType.toLowerCase() as 'cancel' | 'return' | 'exchange';
  return state?.claims?.[key] ?? 'NONE';
}

const openClaimOf = (db: Db, orderItemId: string) =>
  db
    .select()
    .from(claims)
    .where(and(eq(claims.orderItemId, orderItemId), inArray(claims.status, OPEN)))
    .get();

async function amountsFor(
  db: Db,
  order: OrderRow,
  item: OrderItemRow,
  ask: { claimType: ClaimType; quantity: number; reason: string; deductAmount?: number; deliveryFeeChargeAmount?: number },
): Promise<Amounts> {
  const { lines, points } = await orderLines(db, order);
  const waived = ask.claimType !== 'CANCEL' && SELLER_FAULT.has(ask.reason) ? { deliveryFeeChargeAmount: 0 } : {};
  try {
    return claimAmounts(
      lines,
      {
        kind: ask.claimType,
        orderItemId: item.id,
        quantity: ask.quantity,
        ...waived,
        ...(ask.deductAmount !== undefined && { deductAmount: ask.deductAmount }),
        ...(ask.deliveryFeeChargeAmount !== undefined && { deliveryFeeChargeAmount: ask.deliveryFeeChargeAmount }),
      },
      points,
    );
  } catch (error) {
    if (!(error instanceof AmountError)) throw error;
    if (error.reason === 'QUANTITY')
      throw validationFailed([
        {
          field: 'quantity',
          code: 'QUANTITY_EXCEEDS',
          message: `신청할 수 있는 수량은 ${item.quantity - item.canceledQuantity - item.returnedQuantity}개입니다.`,
        },
      ]);
    throw fail(409, 'INVALID_STATUS', { status: item.status, claimType: ask.claimType });
  }
}

/**
 * What a buyer's claim would be, checked against the flow: NONE and closed items are 409 INVALID_STATUS,
 * a passed deadline 409 PERIOD_EXPIRED, one open claim per item at a time, an exchange needs another
 * option of the product with stock. Changes nothing.
 */
export async function assessClaim(db: Db, now: number, order: OrderRow, item: OrderItemRow, body: ClaimRequest) {
  if (['CANCELED', 'RETURNED', 'EXCHANGED'].includes(item.status)) throw fail(409, 'INVALID_STATUS', { status: item.status, claimType: body.claimType });
  if (await openClaimOf(db, item.id)) throw fail(409, 'INVALID_STATUS', { status: item.status, claimType: body.claimType, reason: 'CLAIM_OPEN' });
  const decision = await authorityOf(db, item.id, body.claimType);
  if (decision === 'NONE') throw fail(409, 'INVALID_STATUS', { status: item.status, claimType: body.claimType });
  if (await hasOverdueTimer(db, item.id, now)) throw fail(409, 'PERIOD_EXPIRED', { status: item.status });
  if (body.claimType === 'EXCHANGE') {
    const variant = body.exchangeOptionId ? (await variantsOf(db, item.productId)).find((v) => v.id === body.exchangeOptionId) : undefined;
    if (!body.exchangeOptionId) throw validationFailed([{ field: 'exchangeOptionId', code: 'REQUIRED', message: '바꿀 옵션이 필요합니다.' }]);
    const product = await findProduct(db, item.productId);
    if (!variant || !variant.saleOn || product?.status !== 'ON_SALE')
      throw validationFailed([{ field: 'exchangeOptionId', code: 'NOT_AVAILABLE', message: '이 상품에서 고를 수 있는 옵션이 아닙니다.' }]);
    if (product.inventoryMode === 'STANDARD' && variant.stockQuantity < body.quantity)
      throw validationFailed([{ field: 'exchangeOptionId', code: 'OUT_OF_STOCK', message: '바꿀 옵션의 재고가 부족합니다.' }]);
  } else if (body.exchangeOptionId) {
    throw validationFailed([{ field: 'exchangeOptionId', code: 'NOT_APPLICABLE', message: '교환에만 씁니다.' }]);
  }
  return { decision: decision as 'IMMEDIATE' | 'REQUEST', amounts: await amountsFor(db, order, item, body) };
}

async function emitClaim(db: Db, now: number, claim: ClaimRow, type: string) {
  await emitEvent(db, now, {
    storeId: claim.storeId,
    type,
    resource: { type: 'CLAIM', id: claim.id },
    data: {
      claimId: claim.id,
      claimNo: claim.claimNo,
      orderId: claim.orderId,
      orderItemId: claim.orderItemId,
      claimType: claim.claimType,
      status: claim.status,
      quantity: claim.quantity,
      refundAmount: claim.refundAmount,
      deliveryFeeRefundAmount: claim.deliveryFeeRefundAmount,
      deliveryFeeChargeAmount: claim.deliveryFeeChargeAmount,
      deductAmount: claim.deductAmount,
      testPayment: claim.testPayment,
    },
  });
}

const withAmounts = (a: Amounts) => ({
  refundAmount: a.refundAmount,
  deliveryFeeRefundAmount: a.deliveryFeeRefundAmount,
  deliveryFeeChargeAmount: a.deliveryFeeChargeAmount,
  deductAmount: a.deductAmount,
  pointRefundAmount: a.pointRefundAmount,
});

async function save(db: Db, claim: ClaimRow) {
  await db.update(claims).set(claim).where(eq(claims.id, claim.id)).run();
  return claim;
}

/**
 * Files a buyer's claim inside the caller's transaction. REQUEST: it waits for the seller, and the item's
 * duration timers pause and its other actions turn off (the flow's claim hold). IMMEDIATE: a cancel
 * completes at once (refund included), a return or exchange is approved at once. Answers the claim and
 * the refund to send to the gateway.
 */
export async function fileClaim(services: Services, now: number, order: OrderRow, item: OrderItemRow, body: ClaimRequest) {
  const { db } = services;
  const { decision, amounts } = await assessClaim(db, now, order, item, body);
  const sequence = (await db.select({ n: count() }).from(claims).where(eq(claims.orderId, order.id)).get())!.n + 1;
  let claim: ClaimRow = {
    id: newId('clm', now),
    storeId: order.storeId,
    claimNo: order.orderNo * 100 + sequence,
    claimType: body.claimType,
    status: 'REQUESTED',
    orderId: order.id,
    orderItemId: item.id,
    quantity: body.quantity,
    reason: body.reason,
    detail: body.detail ?? null,
    exchangeOptionId: body.exchangeOptionId ?? null,
    images: body.images ?? [],
    ...withAmounts(amounts),
    refundId: null,
    approved: decision === 'IMMEDIATE',
    rejectReason: null,
    reship: null,
    testPayment: order.testPayment,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(claims).values(claim).run();
  await emitClaim(db, now, claim, EVENT_OF[body.claimType]);
  let refundId: string | null = null;
  if (decision === 'IMMEDIATE' && body.claimType === 'CANCEL') {
    ({ claim, refundId } = await completeWithRefund(services, now, { system: true }, order, item, claim, amounts));
  } else {
    await openClaimHold(db, now, item.id);
    if (decision === 'IMMEDIATE') claim = await save(db, { ...claim, status: 'APPROVED' });
  }
  return { claim, refundId };
}

/** A cancel or return comes to its end: the units leave the order with their money (giveBack), CLAIM.COMPLETED. */
async function completeWithRefund(services: Services, now: number, giver: Giver, order: OrderRow, item: OrderItemRow, claim: ClaimRow, amounts: Amounts) {
  const { db } = services;
  const given = await giveBack(services, now, giver, {
    order,
    item,
    amounts,
    kind: claim.claimType as 'CANCEL' | 'RETURN',
    claimId: claim.id,
    reason: `CLAIM:${claim.claimType}`,
    detail: claim.detail,
  });
  if (given.itemStatus !== 'CANCELED' && given.itemStatus !== 'RETURNED') await releaseClaimHold(db, now, item.id);
  const done = await save(db, { ...claim, ...withAmounts(amounts), status: 'COMPLETED', approved: true, refundId: given.refundId, updatedAt: now });
  await emitClaim(db, now, done, 'CLAIM.COMPLETED');
  return { claim: done, refundId: given.cashRefundId };
}

const context = async (db: Db, claim: ClaimRow) => {
  const order = (await findOrder(db, claim.orderId))!;
  const item = (await orderLines(db, order)).items.find((i) => i.id === claim.orderItemId)!;
  return { order, item };
};

const expect = (claim: ClaimRow, ...statuses: ClaimStatus[]) => {
  if (!statuses.includes(claim.status)) throw fail(409, 'INVALID_STATUS', { status: claim.status, expected: statuses });
};

/** The seller approves: a cancel completes (refund); a return or exchange waits for the pickup. */
export async function approveClaim(
  services: Services,
  now: number,
  giver: Giver,
  claim: ClaimRow,
  body: { deductAmount?: number; deliveryFeeChargeAmount?: number },
) {
  const { db } = services;
  expect(claim, 'REQUESTED');
  const { order, item } = await context(db, claim);
  const amounts = await amountsFor(db, order, item, { ...claim, ...body });
  if (claim.claimType === 'CANCEL') return completeWithRefund(services, now, giver, order, item, claim, amounts);
  return { claim: await save(db, { ...claim, ...withAmounts(amounts), status: 'APPROVED', approved: true, updatedAt: now }), refundId: null };
}

export async function rejectClaim(db: Db, now: number, claim: ClaimRow, reason: string) {
  expect(claim, 'REQUESTED', 'APPROVED');
  await releaseClaimHold(db, now, claim.orderItemId);
  return save(db, { ...claim, status: 'REJECTED', rejectReason: reason, updatedAt: now });
}

/** The returned units arrived at the seller; an exchange's original units go back to stock now (spec 01 §3.2). */
export async function pickupComplete(db: Db, now: number, claim: ClaimRow) {
  if (claim.claimType === 'CANCEL') throw fail(409, 'INVALID_STATUS', { status: claim.status, claimType: claim.claimType });
  expect(claim, 'APPROVED');
  if (claim.claimType === 'EXCHANGE') {
    const { item } = await context(db, claim);
    await restoreStock(db, now, { storeId: item.storeId, productId: item.productId, variantId: item.optionId, quantity: claim.quantity });
  }
  return save(db, { ...claim, status: 'PICKUP_COMPLETED', updatedAt: now });
}

/** The exchange's new units leave: their stock is taken now. */
export async function reshipClaim(db: Db, now: number, claim: ClaimRow, shipment: { carrier: string; trackingNo: string }) {
  if (claim.claimType !== 'EXCHANGE') throw fail(409, 'INVALID_STATUS', { status: claim.status, claimType: claim.claimType });
  expect(claim, 'PICKUP_COMPLETED');
  const { item } = await context(db, claim);
  await recordSale(db, now, { storeId: item.storeId, productId: item.productId, variantId: claim.exchangeOptionId!, quantity: claim.quantity });
  return save(db, { ...claim, status: 'RESHIPPED', reship: shipment, updatedAt: now });
}

/** The seller finishes: a return refunds (stock back now), an exchange closes without refund. */
export async function completeClaim(services: Services, now: number, giver: Giver, claim: ClaimRow) {
  const { db } = services;
  const { order, item } = await context(db, claim);
  if (claim.claimType === 'RETURN') {
    expect(claim, 'PICKUP_COMPLETED');
    const amounts = await amountsFor(db, order, item, claim);
    return completeWithRefund(services, now, giver, order, item, claim, amounts);
  }
  if (claim.claimType === 'EXCHANGE') {
    expect(claim, 'RESHIPPED');
    if (claim.quantity === item.quantity - item.canceledQuantity - item.returnedQuantity) await closeItemFlow(db, now, item.id, 'EXCHANGED');
    else await releaseClaimHold(db, now, item.id);
    const done = await save(db, { ...claim, status: 'COMPLETED', updatedAt: now });
    await emitClaim(db, now, done, 'CLAIM.COMPLETED');
    return { claim: done, refundId: null };
  }
  throw fail(409, 'INVALID_STATUS', { status: claim.status, claimType: claim.claimType });
}

/**
 * WITHDRAW_REQUEST ran on the item (the flow released its hold): a claim not yet picked up ends WITHDRAWN;
 * one whose goods are already back with the seller cannot be withdrawn, so its hold is put back.
 */
export async function withdrawOpenClaim(db: Db, now: number, orderItemId: string) {
  const open = await openClaimOf(db, orderItemId);
  if (!open) return;
  if (open.status === 'REQUESTED' || open.status === 'APPROVED') await save(db, { ...open, status: 'WITHDRAWN', updatedAt: now });
  else await openClaimHold(db, now, orderItemId);
}
