import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { announce } from '../../server/hooks.js';
import type { BuyerContext } from '../../kernel/identity.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { cachedPerStoreVersion, storeNamedBy } from '../stores/index.js';
import { bearerToken } from '../accounts/index.js';
import { signToken, verifyToken } from '../accounts/index.js';
import { requireOwned } from '../../server/tenancy.js';
import { customers } from './schema.js';

export const BUYER_TOKEN_TTL_MS = 30 * 60_000;

const statements = preparedFor((db) => ({
  byId: db
    .select()
    .from(customers)
    .where(eq(customers.id, sql.placeholder('id')))
    .prepare(),
}));

export type Customer = typeof customers.$inferSelect;

/**
 * Delegation's mapping (spec 01 §5.3): the same `uid` always maps to the same buyer, an unknown one
 * creates the buyer (e-mail and name used only then); e-mail alone finds or creates by e-mail.
 */
/** A customer by id (any store: callers check the store with `requireOwned` or `loadCustomer`). */
export const findCustomer = (db: Db, customerId: string): Promise<Customer | undefined> => statements(db).byId.get({ id: customerId });

/** The store's customers among `ids` (any order; ids of other stores or unknown are left out). */
export const storeCustomersByIds = (db: Db, storeId: string, ids: string[]): Promise<Customer[]> =>
  db
    .select()
    .from(customers)
    .where(and(eq(customers.storeId, storeId), inArray(customers.id, ids)))
    .all();

/** The store's customer, 404 CUSTOMER_NOT_FOUND (403 for another store's, as every store resource). */
export const loadCustomer = async (db: Db, storeId: string, customerId: string) =>
  requireOwned(await findCustomer(db, customerId), storeId, 'CUSTOMER_NOT_FOUND');

export async function findOrCreateCustomer(db: Db, storeId: string, now: number, input: { uid?: string; email?: string; name?: string }) {
  const email = input.email?.trim().toLowerCase();
  const existing =
    input.uid !== undefined
      ? await db
          .select()
          .from(customers)
          .where(and(eq(customers.storeId, storeId), eq(customers.uid, input.uid)))
          .get()
      : await db
          .select()
          .from(customers)
          .where(and(eq(customers.storeId, storeId), eq(customers.email, email!)))
          .get();
  if (existing) return { customer: existing, created: false };
  // A new uid whose e-mail already belongs to another buyer keeps the e-mail with that buyer.
  const emailTaken =
    email !== undefined &&
    (await db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.storeId, storeId), eq(customers.email, email)))
      .get());
  const customer: Customer = {
    id: newId('cus', now),
    storeId,
    uid: input.uid ?? null,
    email: emailTaken ? null : (email ?? null),
    name: input.name ?? null,
    phone: null,
    passwordHash: null,
    createdAt: now,
    withdrawnAt: null,
  };
  await db.insert(customers).values(customer).run();
  // A buyer the delegation creates has signed up as much as one who joined on the site: sign-up coupons and the like.
  await announce(db, 'customerSignedUp', { storeId, customerId: customer.id, at: now });
  return { customer, created: true };
}

/** A buyer of the store as the API shows it (presentCustomer). */
export const customerSchema = z.object({
  customerId: z.string(),
  uid: z.string().nullable().describe("The seller's own member id (buyer delegation)"),
  email: z.string().nullable(),
  name: z.string().nullable(),
  phone: z.string().nullable(),
  member: z.boolean().describe('Signed up on the storefront (has a password)'),
  createdAt: instant,
  withdrawnAt: instant.nullable().describe('Withdrawn buyers keep their id and orders; personal fields are erased'),
});

export const presentCustomer = (c: Customer): z.output<typeof customerSchema> => ({
  customerId: c.id,
  uid: c.uid,
  email: c.email,
  name: c.name,
  phone: c.phone,
  member: c.passwordHash !== null,
  createdAt: isoAt(c.createdAt),
  withdrawnAt: c.withdrawnAt === null ? null : isoAt(c.withdrawnAt),
});

export const buyerTokenSchema = z.object({ accessToken: z.string(), tokenType: z.literal('Bearer'), expiresIn: z.number().int(), expiresAt: instant });

/** A buyer token: 30 minutes, no refresh token, valid only in its store's buyer API. */
export async function issueBuyerToken(services: Services, customer: Customer): Promise<z.output<typeof buyerTokenSchema>> {
  const expiresAt = services.clock.now() + BUYER_TOKEN_TTL_MS;
  const accessToken = await signToken(services, { sub: customer.id, jti: newId('jti'), typ: 'buyer', store_id: customer.storeId }, expiresAt);
  return { accessToken, tokenType: 'Bearer' as const, expiresIn: BUYER_TOKEN_TTL_MS / 1000, expiresAt: isoAt(expiresAt) };
}

/** The buyer API's store (X-Store-Id: its id or code) and member buyer (null for a guest), resolved by the pipeline for `auth: 'buyer'`. */
export async function buyerContext(services: Services, header: string | null, authorization: string | null): Promise<BuyerContext> {
  if (!header) throw fail(400, 'STORE_ID_REQUIRED');
  const store = await storeNamedBy(services.db, header);
  if (!store) throw fail(404, 'STORE_NOT_FOUND');
  return { storeId: store.id, customer: await resolveBuyer(services, authorization, store.id) };
}

/**
 * The member buyer of a buyer-API request, or null for a guest (no Authorization header). A token that
 * is not a live buyer token of this store is 401: a buyer must never act in another store.
 */
/**
 * The customer a buyer token names, read on every buyer request: remembered per customers version of the
 * store (the triggers of customers grow it, so a withdrawal applies at once in every process). Shared: never mutate it.
 */
const tokenCustomer = cachedPerStoreVersion(
  'customers',
  (db: Db) => db,
  async (db, _storeId, customerId: string) => (await statements(db).byId.get({ id: customerId })) ?? null,
);

export async function resolveBuyer(services: Services, authorization: string | null, storeId: string): Promise<Customer | null> {
  if (!authorization) return null;
  const token = bearerToken(authorization);
  const claims = token ? await verifyToken(services, token) : null;
  if (!claims || claims.typ !== 'buyer' || claims.store_id !== storeId) throw fail(401, 'UNAUTHORIZED');
  if ((claims.exp ?? 0) * 1000 <= services.clock.now()) throw fail(401, 'UNAUTHORIZED');
  const customer = await tokenCustomer(services.db, storeId, claims.sub);
  if (!customer || customer.storeId !== storeId) throw fail(401, 'UNAUTHORIZED');
  if (customer.withdrawnAt !== null) throw fail(401, 'TOKEN_REVOKED');
  return customer;
}
