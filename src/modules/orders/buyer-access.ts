import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { clearAttempts, reserveAttempt, type ThrottleRule } from '../../server/throttle.js';
import { checkPassword, hashPassword } from '../accounts/index.js';
import { orders } from './schema.js';
import type { OrderRow } from './service.js';

/** Guest look-ups (spec 02 §5): at most 5 tries per order number in 30 minutes, then 429 until the window ends. */
const GUEST_LOOKUPS: ThrottleRule = { limit: 5, windowMs: 30 * 60_000 };
// Compared against when the order does not exist, so a missing order costs the same time as a wrong password.
const dummyHash = hashPassword('svc-no-such-order');

/**
 * A guest's access to an order by its number and order password (look-up, buyer flow actions). The attempt
 * is taken before the password is hashed: concurrent guesses beyond the limit are refused unevaluated, and a
 * success gives the number its attempts back. A wrong password looks exactly like a missing order (spec 02 §5).
 */
export async function authenticateGuestOrder(
  db: Db,
  storeId: string,
  orderNo: number | string,
  order: OrderRow | undefined,
  password: string,
  now: number,
): Promise<OrderRow> {
  const attempts = `guest-lookup:${storeId}:${orderNo}`;
  await reserveAttempt(db, attempts, GUEST_LOOKUPS, now, 'GUEST_LOOKUP_LOCKED');
  const ok = await checkPassword(password, order?.guestPasswordHash ?? (await dummyHash));
  if (!order?.guest || order.storeId !== storeId || !ok) throw fail(404, 'ORDER_NOT_FOUND');
  await clearAttempts(db, attempts);
  return order;
}

/** A guest's order by its id and order password (buyer actions and requests on an order already looked up). */
export async function guestOrder(db: Db, storeId: string, orderId: string, password: string, now: number) {
  const order = await db.select().from(orders).where(eq(orders.id, orderId)).get();
  return authenticateGuestOrder(db, storeId, order?.orderNo ?? orderId, order, password, now);
}

/** A member's own order (404 for any other: another buyer's order is not theirs to see). */
export async function memberOrder(db: Db, storeId: string, customerId: string | undefined, orderId: string | undefined, notFound = 'ORDER_NOT_FOUND') {
  if (!customerId) throw fail(401, 'UNAUTHORIZED');
  const order = orderId ? await db.select().from(orders).where(eq(orders.id, orderId)).get() : undefined;
  if (!order || order.storeId !== storeId || order.customerId !== customerId) throw fail(404, notFound);
  return order;
}
