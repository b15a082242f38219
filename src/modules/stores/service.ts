import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { transaction, whenAnswered, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { announce, ask } from '../../server/hooks.js';
import { RawJson } from '../../server/envelope.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { cachedPerStoreSettings } from './store-cache.js';
import { usersByIds } from '../accounts/index.js';
import { defaultStoreSettings, storeSettings as settingsSchema, type StoreSettings } from './settings.js';
import type { Role } from '../../kernel/identity.js';
import { members, roleSchema, stores } from './schema.js';

const statements = preparedFor((db) => ({
  membership: db
    .select({ memberId: members.id, role: members.role })
    .from(members)
    .where(and(eq(members.storeId, sql.placeholder('storeId')), eq(members.userId, sql.placeholder('userId'))))
    .prepare(),
  storeById: db
    .select()
    .from(stores)
    .where(eq(stores.id, sql.placeholder('id')))
    .prepare(),
  storeByCode: db
    .select()
    .from(stores)
    .where(eq(stores.code, sql.placeholder('code')))
    .prepare(),
}));

/**
 * Memberships are read on every store request. They are remembered for at most 2 s, and every membership
 * write of this process (all go through the functions below) drops them at once, so a removal or role
 * change applies immediately here and within 2 s in another process of a deployment.
 */
const MEMBERSHIP_CACHE_MS = 2000;
const MEMBERSHIP_CACHE_LIMIT = 50_000;
const memberships = new Map<string, { value: { memberId: string; role: Role } | undefined; changes: number; cachedAt: number }>();
let membershipChanges = 0;

type Membership = { memberId: string; role: Role } | undefined;

/** A cached membership is answered at once, with no promise: it is read on every store request. */
export function findMembership(db: Db, storeId: string, userId: string, now = Date.now()): Membership | Promise<Membership> {
  const key = `${storeId} ${userId}`;
  const hit = memberships.get(key);
  if (hit && hit.changes === membershipChanges && hit.cachedAt > now - MEMBERSHIP_CACHE_MS) return hit.value;
  const changes = membershipChanges;
  return whenAnswered(statements(db).membership.get({ storeId, userId }), (value) => {
    if (memberships.size >= MEMBERSHIP_CACHE_LIMIT) memberships.clear();
    memberships.set(key, { value, changes, cachedAt: now });
    return value;
  });
}

export async function insertMember(db: Db, member: typeof members.$inferInsert) {
  await db.insert(members).values(member).run();
  membershipChanges++;
}

export async function setMemberRole(db: Db, memberId: string, role: Role) {
  await db.update(members).set({ role }).where(eq(members.id, memberId)).run();
  membershipChanges++;
}

export async function deleteMember(db: Db, memberId: string) {
  await db.delete(members).where(eq(members.id, memberId)).run();
  membershipChanges++;
}
export const findStore = (db: Db, storeId: string) => statements(db).storeById.get({ id: storeId });
export const findStoreByCode = (db: Db, code: string) => statements(db).storeByCode.get({ code });
/**
 * The seller's settings of an existing store (shipping and refund policy, guest checkout, …), read once per
 * settings version (store-cache.ts): shared, never mutate them.
 */
export const storeSettings: (db: Db, storeId: string) => StoreSettings | Promise<StoreSettings> = cachedPerStoreSettings(
  (db: Db) => db,
  async (db, storeId) => (await findStore(db, storeId))!.settings as StoreSettings,
);

export const STORE_CODE = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,28}[a-z0-9]$/;

/**
 * The store an `X-Store-Id` header names: a store id, or a store code (codes never hold the `_` of ids,
 * and never change), so scripts may name a store the way people do.
 */
export const storeNamedBy = async (db: Db, header: string) =>
  STORE_CODE.test(header) ? await statements(db).storeByCode.get({ code: header }) : await statements(db).storeById.get({ id: header });

/**
 * The store id an `X-Store-Id` header means, for code that checks rows against it: a code is looked up, an
 * id is taken as sent, and a code nobody holds stays as sent — it matches no row, as an unknown id does.
 */
export const storeIdNamedBy = async (db: Db, header: string) =>
  (STORE_CODE.test(header) ? (await statements(db).storeByCode.get({ code: header }))?.id : undefined) ?? header;

/** A new store with its creator as OWNER; every module adds its per-store defaults in the same transaction. */
export function createStore(services: Services, ownerUserId: string, input: { name: string; code: string }) {
  const { db, clock } = services;
  return transaction(services.db, async () => {
    if (await db.select({ id: stores.id }).from(stores).where(eq(stores.code, input.code)).get()) throw fail(409, 'STORE_CODE_TAKEN');
    const now = clock.now();
    const store = {
      id: newId('st', now),
      code: input.code,
      name: input.name,
      settings: defaultStoreSettings(),
      plan: 'FREE',
      everPublicAt: null,
      firstLiveOrderAt: null,
      suspendedAt: null,
      suspensionReason: null,
      createdAt: now,
      updatedAt: now,
    };
    await db.insert(stores).values(store).run();
    await insertMember(db, { id: newId('mem', now), storeId: store.id, userId: ownerUserId, role: 'OWNER', createdAt: now });
    await announce(db, 'storeCreated', { storeId: store.id, at: now });
    return store;
  });
}

/** The checkout part of the store document (spec 01 §5.5 table); payments answers it (`checkoutAvailabilityOf`). */
export const checkoutAvailabilityFields = {
  checkoutAvailable: z.boolean(),
  checkoutMode: z
    .enum(['LIVE', 'TEST'])
    .nullable()
    .describe('TEST: payments go to the sandbox gateways (`testPayment: true`); null when checkout is unavailable.'),
  checkoutUnavailableReason: z.enum(['PAYMENT_NOT_CONFIGURED', 'PAYMENT_NOT_LIVE']).nullable(),
};
export type CheckoutAvailability = z.output<z.ZodObject<typeof checkoutAvailabilityFields>>;

/** The store document of `GET /v1/store`, serialized once per settings version (see store-cache.ts). */
export const storeDocument = cachedPerStoreSettings(
  (services: Services) => services.db,
  async (services, storeId) => new RawJson(JSON.stringify(await presentStore(services, (await findStore(services.db, storeId))!))),
);

/** The store document (presentStore): identity, the seller's settings, and what they make available. */
export const storeSchema = z.object({
  storeId: z.string(),
  code: z.string(),
  name: z.string(),
  plan: z.string(),
  ...settingsSchema.shape,
  storefrontUrl: z.string().nullable(),
  ...checkoutAvailabilityFields,
  agentApprovalExempt: z
    .boolean()
    .describe(
      'The store never had a public storefront nor a live payment order: AI agents skip approval for the operations spec 01 §5.6 exempts (`x-svc-agent-approval-exempt-while-private`)',
    ),
  createdAt: instant,
  updatedAt: instant,
});

export async function presentStore(services: Services, store: typeof stores.$inferSelect) {
  return {
    storeId: store.id,
    code: store.code,
    name: store.name,
    plan: store.plan,
    ...(store.settings as StoreSettings),
    storefrontUrl: await ask(services.db, 'storefrontUrlOf')(services, store.id),
    ...(await ask(services.db, 'checkoutAvailabilityOf')(services, store.id)),
    agentApprovalExempt: store.everPublicAt === null && store.firstLiveOrderAt === null,
    createdAt: isoAt(store.createdAt),
    updatedAt: isoAt(store.updatedAt),
  };
}

export function listUserStores(db: Db, userId: string) {
  return db
    .select({ storeId: stores.id, code: stores.code, name: stores.name, role: members.role, joinedAt: members.createdAt })
    .from(members)
    .innerJoin(stores, eq(stores.id, members.storeId))
    .where(eq(members.userId, userId))
    .orderBy(asc(members.createdAt))
    .all();
}

export const memberSchema = z.object({ memberId: z.string(), userId: z.string(), email: z.string(), name: z.string(), role: roleSchema, createdAt: instant });

export function presentMember(m: { id: string; userId: string; role: Role; createdAt: number; email: string; name: string }): z.output<typeof memberSchema> {
  return { memberId: m.id, userId: m.userId, email: m.email, name: m.name, role: m.role, createdAt: isoAt(m.createdAt) };
}

/**
 * Member rows with their account's e-mail and name, in the order the members are read (the store's
 * members index: by user id); a member whose account is gone is left out, as a join would.
 */
async function withAccounts<T extends { userId: string }>(db: Db, rows: T[]): Promise<(T & { email: string; name: string })[]> {
  const accounts = await usersByIds(
    db,
    rows.map((r) => r.userId),
  );
  return rows.flatMap((r) => {
    const account = accounts.get(r.userId);
    return account ? [{ ...r, email: account.email, name: account.name }] : [];
  });
}

/** The store's members with their e-mail and name (listMembers). */
export async function memberRows(db: Db, storeId: string) {
  const rows = await db
    .select({ id: members.id, storeId: members.storeId, userId: members.userId, role: members.role, createdAt: members.createdAt })
    .from(members)
    .where(eq(members.storeId, storeId))
    .all();
  return withAccounts(db, rows);
}

/** The store's members holding one of `roles`, with their e-mail and name: whom to mail about the store. */
export async function membersInRoles(db: Db, storeId: string, roles: Role[]) {
  const rows = await db
    .select({ userId: members.userId, role: members.role })
    .from(members)
    .where(and(eq(members.storeId, storeId), inArray(members.role, roles)))
    .all();
  return withAccounts(db, rows);
}

/** Marks the store changed (its document shows what changed elsewhere, e.g. its hosted site). */
export async function touchStore(db: Db, storeId: string, now: number) {
  await db.update(stores).set({ updatedAt: now }).where(eq(stores.id, storeId)).run();
}

/**
 * The operator's suspension of the store's hosting (spec 02 §3): `reason` suspends, null resumes. False
 * when no store has this id.
 */
export async function setStoreSuspension(db: Db, storeId: string, reason: string | null, now: number): Promise<boolean> {
  const change =
    reason !== null ? { suspendedAt: now, suspensionReason: reason, updatedAt: now } : { suspendedAt: null, suspensionReason: null, updatedAt: now };
  return (await db.update(stores).set(change).where(eq(stores.id, storeId)).run()).changes !== 0;
}
