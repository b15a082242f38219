import { and, eq } from 'drizzle-orm';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { fail } from '../../server/errors.js';
import { instant } from '../../server/responses.js';
import { defineOperation, type Change, type StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { PLANS, planByCode, planSchema } from './plans.js';
import type { Role } from '../../kernel/identity.js';
import { members, roleSchema, stores } from './schema.js';
import {
  createStore,
  deleteMember,
  findStore,
  listUserStores,
  STORE_CODE,
  memberRows,
  memberSchema,
  presentMember,
  presentStore,
  setMemberRole,
  storeDocument,
  storeSchema,
} from './service.js';
import { storePatch, type StorePatch, type StoreSettings } from './settings.js';
import { aiActionsUsed, usageMonth } from './usage.js';

const tag = 'Store';

/** Fields of a store patch whose value differs from the stored one (dry run lists only these). */
async function storeChanges(ctx: StoreCtx<StorePatch>): Promise<Change[]> {
  const row = (await findStore(ctx.db, ctx.store.id))!;
  const current: Record<string, unknown> = { ...(row.settings as StoreSettings), name: row.name };
  return Object.entries(ctx.body)
    .filter(([field, after]) => !isDeepStrictEqual(current[field], after))
    .map(([field, after]) => ({ field, before: current[field] ?? null, after }));
}

/**
 * Member invitation and role changes: store-platform OWNER or ADMIN, never agents (spec 01 §5.2, §5.6). Members
 * join only by accepting an invitation (invitation-operations.ts).
 */
export const memberManagement = {
  tag,
  auth: 'store' as const,
  scope: 'member:rw',
  roles: ['OWNER' as const, 'ADMIN' as const],
  callers: ['storePlatform' as const],
  agent: 'denied' as const,
};
const memberParams = z.object({ memberId: z.string() });
/** A member of another store is 403, a missing one 404; the store always keeps an OWNER. */
const memberChangeErrors = { 403: ['TENANT_MISMATCH'], 404: ['MEMBER_NOT_FOUND'], 409: ['LAST_OWNER'] };

const memberTarget = (ctx: { params: { memberId: string } }) => ({ type: 'MEMBER', id: ctx.params.memberId });

/** ADMINs manage ADMINs and STAFF; only an OWNER grants, changes or removes OWNER. */
export function assertMayManage(actor: Role, ...roles: Role[]) {
  if (actor !== 'OWNER' && roles.includes('OWNER')) throw fail(403, 'INSUFFICIENT_ROLE', { requiredRole: ['OWNER'], actualRole: actor });
}

async function loadMember(ctx: StoreCtx<unknown, unknown, { memberId: string }>) {
  return requireOwned(await ctx.db.select().from(members).where(eq(members.id, ctx.params.memberId)).get(), ctx.store.id, 'MEMBER_NOT_FOUND');
}

async function assertOwnerRemains(ctx: StoreCtx, leaving: { role: Role }) {
  if (leaving.role !== 'OWNER') return;
  const owners = await countRows(ctx.db, members, and(eq(members.storeId, ctx.store.id), eq(members.role, 'OWNER')));
  if (owners <= 1) throw fail(409, 'LAST_OWNER');
}

export const storeOperations = [
  defineOperation({
    operationId: 'createStore',
    method: 'POST',
    path: '/auth/v1/stores',
    summary: 'Create a store; the caller becomes its OWNER',
    tag: 'Accounts',
    auth: 'account',
    callers: ['storePlatform'],
    status: 201,
    body: z
      .object({
        name: z.string().min(1).max(50),
        code: z.string().regex(STORE_CODE, { message: '영문 소문자, 숫자, 하이픈 3~30자이며 하이픈으로 시작하거나 끝날 수 없습니다.' }),
      })
      .strict(),
    response: z.object({ storeId: z.string(), code: z.string(), name: z.string(), role: roleSchema }),
    errors: { 409: ['STORE_CODE_TAKEN'] },
    handler: async (ctx) => {
      const store = await createStore(ctx.services, ctx.principal!.userId, ctx.body);
      return { storeId: store.id, code: store.code, name: store.name, role: 'OWNER' };
    },
  }),
  defineOperation({
    operationId: 'listMyStores',
    method: 'GET',
    path: '/v1/me/stores',
    summary: "Stores inside the token's store scope",
    tag,
    auth: 'account',
    scope: 'stores:read',
    response: z.object({ contents: z.array(z.object({ storeId: z.string(), code: z.string(), name: z.string(), role: roleSchema, joinedAt: instant })) }),
    handler: async (ctx) => {
      const p = ctx.principal!;
      const rows = (await listUserStores(ctx.db, p.userId)).filter((s) => p.storeIds === null || p.storeIds.includes(s.storeId));
      return { contents: rows.map((s) => ({ storeId: s.storeId, code: s.code, name: s.name, role: s.role, joinedAt: isoAt(s.joinedAt) })) };
    },
  }),
  defineOperation({
    operationId: 'getStore',
    method: 'GET',
    path: '/v1/store',
    summary: 'The store named by X-Store-Id',
    tag,
    auth: 'store',
    scope: 'store:r',
    response: storeSchema,
    handler: (ctx) => storeDocument(ctx.services, ctx.store.id),
  }),
  defineOperation({
    operationId: 'updateStore',
    title: '상점 설정 변경',
    method: 'PATCH',
    path: '/v1/store',
    summary: 'Change store settings; only sent fields change, a sent object replaces that field whole',
    tag,
    auth: 'store',
    scope: 'store:rw',
    // Agents: store settings need approval; terms version and address are never theirs to change (spec 01 §5.6).
    agent: (ctx: StoreCtx<StorePatch>) => ('termsVersion' in ctx.body || 'address' in ctx.body ? 'denied' : 'approval'),
    agentApprovalExemptWhilePrivate: true,
    body: storePatch,
    response: storeSchema,
    target: (ctx) => ({ type: 'STORE', id: ctx.store.id }),
    preview: async (ctx) => ({ changes: await storeChanges(ctx) }),
    handler: async (ctx) => {
      const row = (await findStore(ctx.db, ctx.store.id))!;
      const { name, ...settings } = ctx.body;
      await ctx.db
        .update(stores)
        .set({ name: name ?? row.name, settings: { ...(row.settings as StoreSettings), ...settings }, updatedAt: ctx.now })
        .where(eq(stores.id, row.id))
        .run();
      return presentStore(ctx.services, (await findStore(ctx.db, row.id))!);
    },
  }),
  defineOperation({
    operationId: 'getStoreSubscription',
    method: 'GET',
    path: '/v1/store/subscription',
    summary: 'Plan and usage, including AI actions left this month',
    tag,
    auth: 'store',
    scope: 'store:r',
    response: z.object({
      plan: planSchema.omit({ limits: true }),
      period: z.object({ month: z.string().regex(/^\d{4}-\d{2}$/), timezone: z.literal('Asia/Seoul') }),
      aiActions: z.object({ used: z.number().int(), limit: z.number().int(), remaining: z.number().int() }),
      limits: planSchema.shape.limits,
    }),
    handler: async (ctx) => {
      const plan = planByCode((await findStore(ctx.db, ctx.store.id))!.plan);
      const month = usageMonth(ctx.now);
      const used = await aiActionsUsed(ctx.db, ctx.store.id, ctx.now);
      return {
        plan: { code: plan.code, name: plan.name, monthlyPriceKrw: plan.monthlyPriceKrw },
        period: { month, timezone: 'Asia/Seoul' },
        aiActions: { used, limit: plan.limits.aiActionsPerMonth, remaining: Math.max(0, plan.limits.aiActionsPerMonth - used) },
        limits: plan.limits,
      };
    },
  }),
  defineOperation({
    operationId: 'listPlans',
    method: 'GET',
    path: '/v1/public/plans',
    summary: 'Plan comparison',
    tag,
    auth: 'none',
    response: z.object({ contents: z.array(planSchema) }),
    handler: () => ({ contents: PLANS }),
  }),
  defineOperation({
    operationId: 'listMembers',
    method: 'GET',
    path: '/v1/members',
    summary: 'Members of the store and their roles',
    tag,
    auth: 'store',
    scope: 'member:r',
    response: z.object({ contents: z.array(memberSchema) }),
    handler: async (ctx) => ({ contents: (await memberRows(ctx.db, ctx.store.id)).map(presentMember) }),
  }),
  defineOperation({
    operationId: 'updateMember',
    method: 'PATCH',
    path: '/v1/members/{memberId}',
    summary: "Change a member's role (store-platform OWNER or ADMIN)",
    ...memberManagement,
    params: memberParams,
    body: z.object({ role: roleSchema }).strict(),
    response: memberSchema,
    errors: memberChangeErrors,
    target: memberTarget,
    handler: async (ctx) => {
      const member = await loadMember(ctx);
      assertMayManage(ctx.store.role, member.role, ctx.body.role);
      if (ctx.body.role !== 'OWNER') await assertOwnerRemains(ctx, member);
      await setMemberRole(ctx.db, member.id, ctx.body.role);
      return presentMember((await memberRows(ctx.db, ctx.store.id)).find((m) => m.id === member.id)!);
    },
  }),
  defineOperation({
    operationId: 'removeMember',
    method: 'DELETE',
    path: '/v1/members/{memberId}',
    summary: 'Remove a member from the store; their tokens stop reaching it at once',
    ...memberManagement,
    params: memberParams,
    response: z.object({ memberId: z.string(), removed: z.literal(true) }),
    errors: memberChangeErrors,
    target: memberTarget,
    handler: async (ctx) => {
      const member = await loadMember(ctx);
      assertMayManage(ctx.store.role, member.role);
      await assertOwnerRemains(ctx, member);
      await deleteMember(ctx.db, member.id);
      return { memberId: member.id, removed: true };
    },
  }),
];
