import { and, asc, desc, eq, gt, lte, sql } from 'drizzle-orm';
import { z } from 'zod';
import { whenAnswered, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { instant, won } from '../../server/responses.js';
import { orderIdsOfPayments } from '../orders/index.js';
import { cachedPerStoreSettings, cachedPerStoreVersion } from '../stores/index.js';
import { pointEntries, pointLots, pointLotUses, pointPolicies, type PointEntryKind } from './schema.js';

defineMessages({
  POINT_EXPIRY_REQUIRED: '적립금의 유효기간이 필요합니다. expiresAt을 보내거나 적립금 정책에 validityDays를 정하세요.',
  POINT_BALANCE_INSUFFICIENT: '적립금 잔액보다 많이 차감할 수 없습니다.',
});

const DAY_MS = 86_400_000;
export type PointPolicy = Omit<typeof pointPolicies.$inferSelect, 'storeId' | 'updatedAt'>;
export type PointEntry = typeof pointEntries.$inferSelect;

/** Points are off until the seller turns them on; earning then needs a validity. */
export const DEFAULT_POLICY: PointPolicy = {
  earnEnabled: false,
  defaultEarnRateBp: 100,
  validityDays: null,
  useEnabled: false,
  minUseAmount: 0,
  maxUseRateBp: 10_000,
};

const q = preparedFor((db) => ({
  policy: db
    .select()
    .from(pointPolicies)
    .where(eq(pointPolicies.storeId, sql.placeholder('storeId')))
    .prepare(),
  balance: db
    .select({ n: sql<number>`coalesce(sum(${pointLots.remaining}), 0)` })
    .from(pointLots)
    .where(
      and(
        eq(pointLots.storeId, sql.placeholder('storeId')),
        eq(pointLots.customerId, sql.placeholder('customerId')),
        gt(pointLots.expiresAt, sql.placeholder('now')),
      ),
    )
    .prepare(),
  lotsLeft: db
    .select({ expiresAt: pointLots.expiresAt, remaining: pointLots.remaining })
    .from(pointLots)
    .where(and(eq(pointLots.storeId, sql.placeholder('storeId')), eq(pointLots.customerId, sql.placeholder('customerId')), gt(pointLots.remaining, 0)))
    .prepare(),
  liveLots: db
    .select()
    .from(pointLots)
    .where(
      and(
        eq(pointLots.storeId, sql.placeholder('storeId')),
        eq(pointLots.customerId, sql.placeholder('customerId')),
        gt(pointLots.expiresAt, sql.placeholder('now')),
        gt(pointLots.remaining, 0),
      ),
    )
    .orderBy(asc(pointLots.expiresAt), asc(pointLots.id))
    .prepare(),
  // Guarded: a lot is never taken below zero, whatever ran before.
  take: db
    .update(pointLots)
    .set({ remaining: sql`${pointLots.remaining} - ${sql.placeholder('amount')}` })
    .where(and(eq(pointLots.id, sql.placeholder('id')), sql`${pointLots.remaining} >= ${sql.placeholder('amount')}`))
    .prepare(),
}));

/** The store's point policy, read once per settings version (its triggers grow it): shared, never mutate it. */
export const policyOf: (db: Db, storeId: string) => PointPolicy | Promise<PointPolicy> = cachedPerStoreSettings(
  (db: Db) => db,
  async (db, storeId) => {
    const row = await q(db).policy.get({ storeId });
    if (!row) return DEFAULT_POLICY;
    const { earnEnabled, defaultEarnRateBp, validityDays, useEnabled, minUseAmount, maxUseRateBp } = row;
    return { earnEnabled, defaultEarnRateBp, validityDays, useEnabled, minUseAmount, maxUseRateBp };
  },
);
export const balanceOf = async (db: Db, storeId: string, customerId: string, now: number) => (await q(db).balance.get({ storeId, customerId, now }))!.n;

/**
 * A member's lots with points left, for the checkout's reads that change nothing (the price preview sums
 * them at its own moment): remembered per points version of the store, which the triggers of point_lots
 * grow. Shared: never mutate them.
 */
const lotsLeft = cachedPerStoreVersion(
  'points',
  (db: Db) => db,
  async (db, storeId, customerId: string) => q(db).lotsLeft.all({ storeId, customerId }),
);

/** The balance as `balanceOf`; outside a transaction from the remembered lots, at once when they are remembered. */
function checkoutBalance(db: Db, storeId: string, customerId: string, now: number): number | Promise<number> {
  if (db.$client.inTransaction) return balanceOf(db, storeId, customerId, now);
  return whenAnswered(lotsLeft(db, storeId, customerId), (lots) => {
    let balance = 0;
    for (const lot of lots) if (lot.expiresAt > now) balance += lot.remaining;
    return balance;
  });
}

// ---------------------------------------------------------------------------------------------------
// Views

export const policySchema = z.object({
  earnEnabled: z.boolean(),
  defaultEarnRateBp: z.number().int().describe('Earn rate in basis points (100 = 1%) for items without their own'),
  validityDays: z.number().int().nullable().describe('Days earned or granted points stay valid; null = none set'),
  useEnabled: z.boolean(),
  minUseAmount: won,
  maxUseRateBp: z.number().int().describe('The most of the payable amount points may cover, in basis points'),
});

export const entrySchema = z.object({
  entryId: z.string(),
  kind: z.enum(['GRANT', 'DEDUCT', 'EARN', 'USE', 'RETURN', 'EXPIRE']),
  amount: z.number().int().describe('Signed: + received, − spent or lapsed'),
  balanceAfter: won,
  reason: z.string().nullable(),
  expiresAt: instant.nullable(),
  orderId: z.string().nullable(),
  orderItemId: z.string().nullable(),
  createdAt: instant,
});

export const presentEntry = (e: PointEntry): z.output<typeof entrySchema> => ({
  entryId: e.id,
  kind: e.kind,
  amount: e.amount,
  balanceAfter: e.balanceAfter,
  reason: e.reason,
  expiresAt: e.expiresAt === null ? null : isoAt(e.expiresAt),
  orderId: e.orderId,
  orderItemId: e.orderItemId,
  createdAt: isoAt(e.createdAt),
});

// ---------------------------------------------------------------------------------------------------
// Ledger

interface Change {
  storeId: string;
  customerId: string;
  reason: string | null;
  paymentId?: string | null;
  orderId?: string | null;
  orderItemId?: string | null;
}

async function writeEntry(db: Db, now: number, change: Change, kind: PointEntryKind, amount: number, expiresAt: number | null): Promise<PointEntry> {
  const entry: PointEntry = {
    id: newId('pte', now),
    storeId: change.storeId,
    customerId: change.customerId,
    kind,
    amount,
    balanceAfter: await balanceOf(db, change.storeId, change.customerId, now),
    reason: change.reason,
    expiresAt,
    paymentId: change.paymentId ?? null,
    orderId: change.orderId ?? null,
    orderItemId: change.orderItemId ?? null,
    createdAt: now,
  };
  await db.insert(pointEntries).values(entry).run();
  return entry;
}

/** The expiry of new points: the one given, else the policy's validity from now; neither is 400 POINT_EXPIRY_REQUIRED. */
export function expiryFor(policy: PointPolicy, now: number, expiresAt?: number): number {
  if (expiresAt !== undefined) return expiresAt;
  if (policy.validityDays === null) throw fail(400, 'POINT_EXPIRY_REQUIRED');
  return now + policy.validityDays * DAY_MS;
}

/** Adds points as a new lot (grant, earning), inside the caller's transaction. */
export async function credit(db: Db, now: number, change: Change, kind: 'GRANT' | 'EARN', amount: number, expiresAt: number): Promise<PointEntry> {
  await db
    .insert(pointLots)
    .values({ id: newId('ptl', now), storeId: change.storeId, customerId: change.customerId, amount, remaining: amount, expiresAt, createdAt: now })
    .run();
  return writeEntry(db, now, change, kind, amount, expiresAt);
}

/**
 * Spends points, oldest-expiring lots first, inside the caller's transaction; more than the balance is
 * 409 POINT_BALANCE_INSUFFICIENT and nothing is taken. Each lot is taken by a guarded update, so the
 * balance can never go below zero.
 */
export async function spend(db: Db, now: number, change: Change, kind: 'USE' | 'DEDUCT', amount: number): Promise<PointEntry> {
  const balance = await balanceOf(db, change.storeId, change.customerId, now);
  if (amount > balance) throw fail(409, 'POINT_BALANCE_INSUFFICIENT', { balance, amount });
  const entryId = newId('pte', now);
  let due = amount;
  for (const lot of await q(db).liveLots.all({ storeId: change.storeId, customerId: change.customerId, now })) {
    if (due === 0) break;
    const take = Math.min(due, lot.remaining);
    if ((await q(db).take.run({ id: lot.id, amount: take })).changes === 0) throw fail(409, 'POINT_BALANCE_INSUFFICIENT', { balance, amount });
    await db.insert(pointLotUses).values({ entryId, lotId: lot.id, amount: take }).run();
    due -= take;
  }
  const entry: PointEntry = {
    id: entryId,
    storeId: change.storeId,
    customerId: change.customerId,
    kind,
    amount: -amount,
    balanceAfter: balance - amount,
    reason: change.reason,
    expiresAt: null,
    paymentId: change.paymentId ?? null,
    orderId: change.orderId ?? null,
    orderItemId: change.orderItemId ?? null,
    createdAt: now,
  };
  await db.insert(pointEntries).values(entry).run();
  return entry;
}

/**
 * Gives `amount` of a payment's points back (a cancel, a refund): the lots it took from regain it, the
 * latest-expiring first, never more than the payment used in all.
 */
export async function returnPoints(db: Db, now: number, paymentId: string, amount: number, change: Change) {
  const entries = await db.select().from(pointEntries).where(eq(pointEntries.paymentId, paymentId)).all();
  const used = entries.find((e) => e.kind === 'USE');
  if (!used || amount <= 0) return;
  let skip = entries.filter((e) => e.kind === 'RETURN').reduce((n, e) => n + e.amount, 0);
  let due = Math.min(amount, -used.amount - skip);
  if (due <= 0) return;
  const given = due;
  const uses = await db
    .select({ lotId: pointLotUses.lotId, amount: pointLotUses.amount, expiresAt: pointLots.expiresAt })
    .from(pointLotUses)
    .innerJoin(pointLots, eq(pointLots.id, pointLotUses.lotId))
    .where(eq(pointLotUses.entryId, used.id))
    .orderBy(desc(pointLots.expiresAt))
    .all();
  for (const use of uses) {
    const skipped = Math.min(skip, use.amount);
    skip -= skipped;
    const give = Math.min(due, use.amount - skipped);
    if (give > 0)
      await db
        .update(pointLots)
        .set({ remaining: sql`${pointLots.remaining} + ${give}` })
        .where(eq(pointLots.id, use.lotId))
        .run();
    due -= give;
  }
  await writeEntry(db, now, { ...change, paymentId }, 'RETURN', given, null);
}

/** Gives back everything a payment held (it ended unpaid). */
export async function returnPaymentPoints(db: Db, now: number, paymentId: string) {
  const used = await db
    .select()
    .from(pointEntries)
    .where(and(eq(pointEntries.paymentId, paymentId), eq(pointEntries.kind, 'USE')))
    .get();
  if (used) await returnPoints(db, now, paymentId, -used.amount, { storeId: used.storeId, customerId: used.customerId, reason: '결제 취소로 돌려받음' });
}

/** Lots past their expiry lose what is left (one EXPIRE entry each); run by the job loop. */
export async function expireLots(db: Db, now: number): Promise<number> {
  const due = await db
    .select()
    .from(pointLots)
    .where(and(lte(pointLots.expiresAt, now), gt(pointLots.remaining, 0)))
    .limit(500)
    .all();
  for (const lot of due) {
    await db.update(pointLots).set({ remaining: 0 }).where(eq(pointLots.id, lot.id)).run();
    await writeEntry(db, now, { storeId: lot.storeId, customerId: lot.customerId, reason: '유효기간 만료' }, 'EXPIRE', -lot.remaining, lot.expiresAt);
  }
  return due.length;
}

/**
 * A page of the ledger. Entries are never updated (append-only): a payment's entries, written before its
 * order existed, name the order through the payment.
 */
export async function ledgerOf(db: Db, storeId: string, customerId: string, page: number, size: number): Promise<PointEntry[]> {
  const entries = await db
    .select()
    .from(pointEntries)
    .where(and(eq(pointEntries.storeId, storeId), eq(pointEntries.customerId, customerId)))
    .orderBy(desc(pointEntries.createdAt), desc(pointEntries.id))
    .limit(size)
    .offset((page - 1) * size)
    .all();
  const ordersOf = await orderIdsOfPayments(
    db,
    entries.flatMap((e) => (e.orderId === null && e.paymentId ? [e.paymentId] : [])),
  );
  return entries.map((entry) => ({ ...entry, orderId: entry.orderId ?? (entry.paymentId ? (ordersOf.get(entry.paymentId) ?? null) : null) }));
}

// ---------------------------------------------------------------------------------------------------
// At checkout

/** The sheet's `points` (spec 02 §2.4): usable only by members of a store using points, within the policy. */
export async function pointsOfSheet(db: Db, storeId: string, customerId: string | null, payable: number, now: number, policy?: PointPolicy) {
  policy ??= await policyOf(db, storeId);
  if (!customerId || !policy.useEnabled)
    return { useAvailable: false, balance: customerId ? await checkoutBalance(db, storeId, customerId, now) : 0, usableAmount: 0 };
  const balance = await checkoutBalance(db, storeId, customerId, now);
  const cap = Math.min(balance, Math.floor((payable * policy.maxUseRateBp) / 10_000));
  return { useAvailable: true, balance, usableAmount: cap >= policy.minUseAmount ? cap : 0 };
}

/**
 * Checks `pointAmount` against the sheet: 409 POINTS_UNAVAILABLE when the buyer cannot use points at all
 * (a guest, or points off), else 400 VALIDATION_FAILED on `pointAmount` naming the rule it breaks.
 */
export async function assertPointUse(db: Db, storeId: string, customerId: string | null, pointAmount: number, payable: number, now: number) {
  if (pointAmount === 0) return;
  const policy = await policyOf(db, storeId);
  const points = await pointsOfSheet(db, storeId, customerId, payable, now, policy);
  if (!points.useAvailable) throw fail(409, 'POINTS_UNAVAILABLE', { useAvailable: false, pointAmount });
  const refuse = (code: string, message: string) => validationFailed([{ field: 'pointAmount', code, message }]);
  if (pointAmount < policy.minUseAmount) throw refuse('POINT_BELOW_MINIMUM', `${policy.minUseAmount}원 이상부터 쓸 수 있습니다.`);
  if (pointAmount > points.balance) throw refuse('POINT_BALANCE_INSUFFICIENT', `잔액(${points.balance}원)보다 많이 쓸 수 없습니다.`);
  if (pointAmount > points.usableAmount) throw refuse('POINT_OVER_LIMIT', `이 주문에는 ${points.usableAmount}원까지 쓸 수 있습니다.`);
}

// ---------------------------------------------------------------------------------------------------
// Earning

/**
 * A member's item reaching PURCHASE_DECIDED earns points (inside the move's transaction): the item's own
 * rate fixed at payment, else the policy default, of what was paid for it (after coupons and points),
 * valid for the policy's days, for the units kept (not canceled or returned). Guests, withdrawn buyers and stores not earning
 * earn nothing.
 */
export async function earnOnPurchaseDecision(
  db: Db,
  now: number,
  item: { storeId: string; orderId: string; orderItemId: string },
  order: { customerId: string | null; withdrawnAt: number | null },
  paid: {
    amount: number;
    couponDiscountAmount: number;
    pointAllocation: number;
    pointEarnRateBp: number | null;
    quantity: number;
    canceledQuantity: number;
    returnedQuantity: number;
  },
) {
  const policy = await policyOf(db, item.storeId);
  if (!order.customerId || order.withdrawnAt !== null || !policy.earnEnabled || policy.validityDays === null) return;
  const kept = paid.quantity - paid.canceledQuantity - paid.returnedQuantity;
  const base = Math.floor((Math.max(0, paid.amount - paid.couponDiscountAmount - paid.pointAllocation) * kept) / paid.quantity);
  const amount = Math.floor((base * (paid.pointEarnRateBp ?? policy.defaultEarnRateBp)) / 10_000);
  if (amount <= 0) return;
  await credit(
    db,
    now,
    { storeId: item.storeId, customerId: order.customerId, reason: '구매 확정 적립', orderId: item.orderId, orderItemId: item.orderItemId },
    'EARN',
    amount,
    now + policy.validityDays * DAY_MS,
  );
}
