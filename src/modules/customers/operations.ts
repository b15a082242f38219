import { and, desc, eq, or } from 'drizzle-orm';
import { contains } from '../../db/search.js';
import { z } from 'zod';
import { countRows, transaction } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { stated } from '../../server/formats.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, reply } from '../../server/registry.js';
import { tokenAllows } from '../../kernel/scopes.js';
import { customers } from './schema.js';
import { buyerTokenSchema, customerSchema, findOrCreateCustomer, issueBuyerToken, presentCustomer, loadCustomer } from './service.js';

const tag = 'Customers';

export const customerOperations = [
  defineOperation({
    operationId: 'createBuyerDelegation',
    method: 'POST',
    path: '/v1/customers/delegations',
    summary: 'Issue a 30-minute buyer token for a member of your own site (call from a server only)',
    tag,
    auth: 'store',
    scope: 'customer:rw',
    // Denied to agents (spec 01 §5.6), with the delegation code of §5.3 rather than the generic agent denial.
    agent: 'denied',
    agentDeniedCode: 'DELEGATION_NOT_ALLOWED',
    status: 201,
    // 200 when the buyer existed already (`created: false`).
    alternateStatuses: [200],
    body: z
      .object({
        uid: z.string().min(1).max(128).optional(),
        email: z.email().max(254).optional(),
        name: z.string().min(1).max(50).optional(),
      })
      .strict()
      .refine((b) => b.uid !== undefined || b.email !== undefined, {
        message: 'uid 또는 email 중 하나가 필요합니다.',
        path: ['uid'],
        params: { code: 'REQUIRED' },
      })
      .meta(stated.atLeastOne('uid', 'email')),
    response: buyerTokenSchema.extend({ customer: customerSchema, created: z.boolean() }),
    errors: { 403: ['DELEGATION_NOT_ALLOWED'] },
    target: (ctx) => ({ type: 'CUSTOMER', id: ctx.body.uid ?? ctx.body.email ?? null }),
    async: true,
    // A precheck, so a dry run refuses a disallowed token as the real call does; agents meet the policy above.
    precheck: async (ctx) => {
      const p = ctx.principal;
      if (p.agent) return;
      // Only account access tokens and the service's own store-platform/CLI logins may delegate (§5.3).
      const allowedKind = p.kind === 'access' ? p.buyerDelegation : p.kind === 'login' && p.storePlatform;
      if (!allowedKind) throw fail(403, 'DELEGATION_NOT_ALLOWED');
      if (!tokenAllows(p.scopes, 'member:delegate')) throw fail(403, 'INSUFFICIENT_SCOPE', { requiredScope: 'member:delegate' });
    },
    handler: async (ctx) => {
      const { customer, created } = await transaction(ctx.db, () => findOrCreateCustomer(ctx.db, ctx.store.id, ctx.clock.now(), ctx.body));
      // The audit record says whose buyer token this is (spec 01 §5.9).
      ctx.auditMetadata = { onBehalfOf: { type: 'CUSTOMER', customerId: customer.id, uid: customer.uid } };
      return reply(created ? 201 : 200, { ...(await issueBuyerToken(ctx.services, customer)), customer: presentCustomer(customer), created });
    },
  }),
  defineOperation({
    operationId: 'listCustomers',
    method: 'GET',
    path: '/v1/customers',
    summary: 'Buyers of the store, newest first; keyword matches name, e-mail or phone',
    tag,
    auth: 'store',
    scope: 'customer:r',
    query: z
      .object({
        ...pageQuery(100),
        keyword: z.string().trim().min(1).max(100).optional(),
        uid: z.string().optional(),
        email: z.string().optional(),
      })
      .strict(),
    response: pageOf(customerSchema),
    handler: async (ctx) => {
      const keyword = ctx.query.keyword?.toLowerCase();
      const digits = keyword?.replace(/-/g, '');
      const where = and(
        eq(customers.storeId, ctx.store.id),
        ctx.query.uid === undefined ? undefined : eq(customers.uid, ctx.query.uid),
        ctx.query.email === undefined ? undefined : eq(customers.email, ctx.query.email.toLowerCase()),
        keyword === undefined
          ? undefined
          : or(
              contains(customers.name, keyword),
              contains(customers.email, keyword),
              /^\d{3,}$/.test(digits!) ? contains(customers.phone, digits!) : undefined,
            ),
      );
      const rows = await ctx.db
        .select()
        .from(customers)
        .where(where)
        .orderBy(desc(customers.id))
        .limit(ctx.query.size)
        .offset((ctx.query.page - 1) * ctx.query.size)
        .all();
      return paginated(rows.map(presentCustomer), ctx.query.page, ctx.query.size, await countRows(ctx.db, customers, where));
    },
  }),
  defineOperation({
    operationId: 'getCustomer',
    method: 'GET',
    path: '/v1/customers/{customerId}',
    summary: 'One buyer',
    tag,
    auth: 'store',
    scope: 'customer:r',
    params: z.object({ customerId: z.string() }),
    response: customerSchema,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['CUSTOMER_NOT_FOUND'] },
    handler: async (ctx) => presentCustomer(await loadCustomer(ctx.db, ctx.store.id, ctx.params.customerId)),
  }),
];
