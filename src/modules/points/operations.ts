import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { fail, validationFailed } from '../../server/errors.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, reply, type StoreCtx } from '../../server/registry.js';
import { won } from '../../server/responses.js';
import { instantInput } from '../../server/validation.js';
import { loadCustomer } from '../customers/index.js';
import { pointEntries, pointPolicies } from './schema.js';
import { balanceOf, credit, entrySchema, expiryFor, ledgerOf, policyOf, policySchema, presentEntry, spend } from './service.js';

const tag = 'Points';

const policyBody = z
  .object({
    earnEnabled: z.boolean(),
    defaultEarnRateBp: z.number().int().min(0).max(10_000),
    validityDays: z.number().int().min(1).max(3650).nullable(),
    useEnabled: z.boolean(),
    minUseAmount: z.number().int().min(0).max(100_000_000),
    maxUseRateBp: z.number().int().min(1).max(10_000),
  })
  .strict();

/** Earning needs a validity: points without an end are a liability the seller cannot see (spec 01 §5.6). */
const assertPolicy = (policy: z.output<typeof policyBody>) => {
  if (policy.earnEnabled && policy.validityDays === null) throw fail(400, 'POINT_EXPIRY_REQUIRED', { field: 'validityDays' });
};

const grantBody = z
  .object({
    amount: z
      .number()
      .int()
      .min(-100_000_000)
      .max(100_000_000)
      .refine((n) => n !== 0, { message: '0이 아닌 금액이어야 합니다.' }),
    reason: z.string().trim().min(1).max(200),
    expiresAt: instantInput.optional(),
  })
  .strict();

const customerParams = z.object({ customerId: z.string() }).strict();
const customerOf = (ctx: StoreCtx<any, any, { customerId: string }>) => loadCustomer(ctx.db, ctx.store.id, ctx.params.customerId);

/** Why a grant or deduction would fail, checked the same way at execution, dry run and approval creation. */
async function assertGrant(ctx: StoreCtx<z.output<typeof grantBody>, any, { customerId: string }>) {
  const customer = await customerOf(ctx);
  const { amount, expiresAt } = ctx.body;
  if (amount > 0) {
    // A withdrawn buyer can never spend them: new points would be a liability nobody can use.
    if (customer.withdrawnAt !== null) throw fail(409, 'CUSTOMER_ALREADY_WITHDRAWN');
    const expiry = expiryFor(await policyOf(ctx.db, ctx.store.id), ctx.now, expiresAt === undefined ? undefined : Date.parse(expiresAt));
    if (expiry <= ctx.now) throw validationFailed([{ field: 'expiresAt', code: 'IN_PAST', message: '지난 시각입니다.' }]);
    return { customer, expiry };
  }
  if (expiresAt !== undefined) throw validationFailed([{ field: 'expiresAt', code: 'NOT_APPLICABLE', message: '차감에는 유효기간이 없습니다.' }]);
  const balance = await balanceOf(ctx.db, ctx.store.id, customer.id, ctx.now);
  if (-amount > balance) throw fail(409, 'POINT_BALANCE_INSUFFICIENT', { balance, amount });
  return { customer, expiry: null };
}

export const pointOperations = [
  defineOperation({
    operationId: 'getPointPolicy',
    method: 'GET',
    path: '/v1/point-policy',
    summary: "The store's point rules (off until turned on)",
    tag,
    auth: 'store',
    scope: 'promotion:r',
    response: policySchema,
    handler: (ctx) => policyOf(ctx.db, ctx.store.id),
  }),
  defineOperation({
    operationId: 'putPointPolicy',
    title: '포인트 정책 설정',
    method: 'PUT',
    path: '/v1/point-policy',
    summary: 'Set the point rules: earning (rate, validity) and use (minimum, share of the payment)',
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: 'approval',
    agentApprovalExemptWhilePrivate: true,
    body: policyBody,
    response: policySchema,
    errors: { 400: ['POINT_EXPIRY_REQUIRED'] },
    target: (ctx) => ({ type: 'POINT_POLICY', id: ctx.store.id }),
    precheck: async (ctx) => assertPolicy(ctx.body),
    preview: async (ctx) => {
      const before = (await policyOf(ctx.db, ctx.store.id)) as Record<string, unknown>;
      return {
        changes: Object.entries(ctx.body)
          .filter(([k, v]) => before[k] !== v)
          .map(([field, after]) => ({ field, before: before[field], after })),
      };
    },
    handler: async (ctx) => {
      assertPolicy(ctx.body);
      const row = { storeId: ctx.store.id, ...ctx.body, updatedAt: ctx.now };
      await ctx.db.insert(pointPolicies).values(row).onConflictDoUpdate({ target: pointPolicies.storeId, set: row }).run();
      return ctx.body;
    },
  }),
  defineOperation({
    operationId: 'storefrontPointPolicy',
    method: 'GET',
    path: '/storefront/v1/point-policy',
    summary: "The store's point rules as buyers see them",
    tag: 'Storefront coupons',
    auth: 'buyer',
    response: policySchema,
    handler: (ctx) => policyOf(ctx.db, ctx.buyer.storeId),
  }),
  defineOperation({
    operationId: 'getCustomerPoints',
    method: 'GET',
    path: '/v1/customers/{customerId}/points',
    summary: "A buyer's point balance and ledger, newest first",
    tag,
    auth: 'store',
    scope: 'promotion:r',
    params: customerParams,
    query: z.object(pageQuery(100)).strict(),
    response: pageOf(entrySchema).extend({ customerId: z.string(), balance: won }),
    errors: { 403: ['TENANT_MISMATCH'], 404: ['CUSTOMER_NOT_FOUND'] },
    handler: async (ctx) => {
      const customer = await customerOf(ctx);
      const where = and(eq(pointEntries.storeId, ctx.store.id), eq(pointEntries.customerId, customer.id));
      const rows = await ledgerOf(ctx.db, ctx.store.id, customer.id, ctx.query.page, ctx.query.size);
      return {
        customerId: customer.id,
        balance: await balanceOf(ctx.db, ctx.store.id, customer.id, ctx.now),
        ...paginated(rows.map(presentEntry), ctx.query.page, ctx.query.size, await countRows(ctx.db, pointEntries, where)),
      };
    },
  }),
  defineOperation({
    operationId: 'grantCustomerPoints',
    title: '포인트 지급·차감',
    method: 'POST',
    path: '/v1/customers/{customerId}/points',
    summary: 'Give (amount > 0, with an expiry or the policy validity) or take back (amount < 0, up to the balance) points',
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: 'approval',
    agentApprovalExemptWhilePrivate: true,
    status: 201,
    params: customerParams,
    body: grantBody,
    response: z.object({ entry: entrySchema, balance: won }),
    errors: {
      400: ['POINT_EXPIRY_REQUIRED'],
      403: ['TENANT_MISMATCH'],
      404: ['CUSTOMER_NOT_FOUND'],
      409: ['POINT_BALANCE_INSUFFICIENT', 'CUSTOMER_ALREADY_WITHDRAWN'],
    },
    target: (ctx) => ({ type: 'CUSTOMER', id: ctx.params.customerId }),
    precheck: async (ctx) => {
      await assertGrant(ctx);
    },
    preview: (ctx) => ({ changes: [{ field: 'points', before: null, after: ctx.body.amount }] }),
    handler: async (ctx) => {
      const { customer, expiry } = await assertGrant(ctx);
      const change = { storeId: ctx.store.id, customerId: customer.id, reason: ctx.body.reason };
      const entry =
        expiry === null
          ? await spend(ctx.db, ctx.now, change, 'DEDUCT', -ctx.body.amount)
          : await credit(ctx.db, ctx.now, change, 'GRANT', ctx.body.amount, expiry);
      return reply(201, { entry: presentEntry(entry), balance: entry.balanceAfter });
    },
  }),
];
