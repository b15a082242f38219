import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import { announce } from '../../server/hooks.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation, reply } from '../../server/registry.js';
import { clearAttempts, reserveAttempt, type ThrottleRule } from '../../server/throttle.js';
import { checkPassword, hashPassword } from '../accounts/index.js';
import { notifyStoreApps } from '../apps/index.js';
import { buyerLoginSettings, customers } from './schema.js';
import { buyerTokenSchema, customerSchema, issueBuyerToken, presentCustomer, loadCustomer, type Customer } from './service.js';

defineMessages({
  MEMBER_EMAIL_TAKEN: '이미 가입된 이메일입니다. 로그인하세요.',
  MEMBER_LOGIN_DISABLED: '이 상점은 이메일 회원가입과 로그인을 쓰지 않습니다.',
  INVALID_LOGIN: '이메일 또는 비밀번호가 올바르지 않습니다.',
  CUSTOMER_ALREADY_WITHDRAWN: '이미 탈퇴한 구매자입니다.',
});

/** Sign-ins per e-mail of a store: 10 in 15 minutes, like account logins. */
const MEMBER_LOGINS: ThrottleRule = { limit: 10, windowMs: 15 * 60_000 };
// Compared against for an unknown e-mail, so it takes as long as a wrong password.
const dummyHash = hashPassword('svc-no-such-member');

/** Member sign-up accepts mobile numbers only (spec 02 §2.4): 010, 011, 016–019 and 7 or 8 digits. */
const mobile = z
  .string()
  .trim()
  .transform((v) => v.replace(/-/g, ''))
  .pipe(z.string().regex(/^01[016789]\d{7,8}$/, { message: '휴대폰 번호(010-1234-5678)만 받습니다.' }));

const signUpBody = z
  .object({
    email: z
      .email()
      .max(254)
      .transform((v) => v.toLowerCase()),
    password: z.string().min(8).max(128),
    name: z.string().trim().min(1).max(50),
    phone: mobile,
  })
  .strict();

const loginSettings = z.object({ emailPassword: z.boolean().describe('Storefront sign-up and login with e-mail and password') });
const settingsOf = async (db: Db, storeId: string) =>
  (await db.select().from(buyerLoginSettings).where(eq(buyerLoginSettings.storeId, storeId)).get()) ?? { emailPassword: true };

const memberView = buyerTokenSchema.extend({ customer: customerSchema });
const tag = 'Storefront members';

export const memberOperations = [
  defineOperation({
    operationId: 'storefrontSignUp',
    method: 'POST',
    path: '/storefront/v1/members',
    summary: 'Sign up as a member of the store (mobile phone only); answers a 30-minute buyer token',
    tag,
    auth: 'buyer',
    status: 201,
    async: true,
    body: signUpBody,
    response: memberView,
    errors: { 403: ['MEMBER_LOGIN_DISABLED'], 409: ['MEMBER_EMAIL_TAKEN'] },
    handler: async (ctx) => {
      const { storeId } = ctx.buyer;
      if (!(await settingsOf(ctx.db, storeId)).emailPassword) throw fail(403, 'MEMBER_LOGIN_DISABLED');
      const passwordHash = await hashPassword(ctx.body.password);
      const customer = await transaction(ctx.db, async () => {
        const now = ctx.services.clock.now();
        const taken = await ctx.db
          .select()
          .from(customers)
          .where(and(eq(customers.storeId, storeId), eq(customers.email, ctx.body.email)))
          .get();
        if (taken) throw fail(409, 'MEMBER_EMAIL_TAKEN');
        const row: Customer = {
          id: newId('cus', now),
          storeId,
          uid: null,
          email: ctx.body.email,
          name: ctx.body.name,
          phone: ctx.body.phone,
          passwordHash,
          createdAt: now,
          withdrawnAt: null,
        };
        await ctx.db.insert(customers).values(row).run();
        // Sign-up coupons and the like, in the same transaction.
        await announce(ctx.db, 'customerSignedUp', { storeId, customerId: row.id, at: now });
        return row;
      });
      return reply(201, { ...(await issueBuyerToken(ctx.services, customer)), customer: presentCustomer(customer) });
    },
  }),
  defineOperation({
    operationId: 'storefrontLogin',
    method: 'POST',
    path: '/storefront/v1/members/login',
    summary: 'A member signs in with e-mail and password; answers a 30-minute buyer token',
    tag,
    auth: 'buyer',
    async: true,
    body: z
      .object({
        email: z
          .string()
          .trim()
          .min(1)
          .max(254)
          .transform((v) => v.toLowerCase()),
        password: z.string().min(1).max(128),
      })
      .strict(),
    response: memberView,
    errors: { 401: ['INVALID_LOGIN'], 403: ['MEMBER_LOGIN_DISABLED'], 429: ['LOGIN_THROTTLED'] },
    handler: async (ctx) => {
      const { storeId } = ctx.buyer;
      if (!(await settingsOf(ctx.db, storeId)).emailPassword) throw fail(403, 'MEMBER_LOGIN_DISABLED');
      const attempts = `member-login:${storeId}:${ctx.body.email}`;
      await transaction(ctx.db, () => reserveAttempt(ctx.db, attempts, MEMBER_LOGINS, ctx.now, 'LOGIN_THROTTLED'));
      const customer = await ctx.db
        .select()
        .from(customers)
        .where(and(eq(customers.storeId, storeId), eq(customers.email, ctx.body.email)))
        .get();
      const ok = await checkPassword(ctx.body.password, customer?.passwordHash ?? (await dummyHash));
      if (!customer || !ok || customer.withdrawnAt !== null) throw fail(401, 'INVALID_LOGIN');
      await transaction(ctx.db, () => clearAttempts(ctx.db, attempts));
      return { ...(await issueBuyerToken(ctx.services, customer)), customer: presentCustomer(customer) };
    },
  }),
  defineOperation({
    operationId: 'withdrawCustomer',
    title: '구매자 탈퇴 처리',
    method: 'POST',
    path: '/v1/customers/{customerId}/withdraw',
    summary: "A buyer's withdrawal: personal fields erased, orders kept, tokens stop; apps holding customer scopes hear APP.CUSTOMER_REDACT",
    tag: 'Customers',
    auth: 'store',
    scope: 'customer:rw',
    agent: 'approval',
    params: z.object({ customerId: z.string() }).strict(),
    response: customerSchema,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['CUSTOMER_NOT_FOUND'], 409: ['CUSTOMER_ALREADY_WITHDRAWN'] },
    target: (ctx) => ({ type: 'CUSTOMER', id: ctx.params.customerId }),
    preview: (ctx) => ({ changes: [{ field: 'withdrawnAt', before: null, after: isoAt(ctx.now) }] }),
    handler: async (ctx) => {
      const customer = await loadCustomer(ctx.db, ctx.store.id, ctx.params.customerId);
      if (customer.withdrawnAt !== null) throw fail(409, 'CUSTOMER_ALREADY_WITHDRAWN');
      const erased = { uid: null, email: null, name: null, phone: null, passwordHash: null, withdrawnAt: ctx.now };
      await ctx.db.update(customers).set(erased).where(eq(customers.id, customer.id)).run();
      await notifyStoreApps(
        ctx.db,
        ctx.store.id,
        'APP.CUSTOMER_REDACT',
        { customerId: customer.id, withdrawnAt: isoAt(ctx.now) },
        ['customer:r', 'customer:rw'],
        ctx.now,
      );
      return presentCustomer({ ...customer, ...erased });
    },
  }),
  defineOperation({
    operationId: 'getBuyerLoginSettings',
    method: 'GET',
    path: '/v1/buyer-login-settings',
    summary: 'How buyers may sign in to the storefront',
    tag: 'Customers',
    auth: 'store',
    scope: 'customer:r',
    roles: ['OWNER', 'ADMIN'],
    callers: ['storePlatform'],
    response: loginSettings,
    handler: async (ctx) => ({ emailPassword: (await settingsOf(ctx.db, ctx.store.id)).emailPassword }),
  }),
  defineOperation({
    operationId: 'putBuyerLoginSettings',
    method: 'PUT',
    path: '/v1/buyer-login-settings',
    summary: 'Turn storefront e-mail sign-up and login on or off (store-platform OWNER or ADMIN; never agents)',
    tag: 'Customers',
    auth: 'store',
    scope: 'customer:rw',
    roles: ['OWNER', 'ADMIN'],
    callers: ['storePlatform'],
    agent: 'denied',
    body: loginSettings.strict(),
    response: loginSettings,
    target: (ctx) => ({ type: 'STORE', id: ctx.store.id }),
    handler: async (ctx) => {
      const row = { storeId: ctx.store.id, emailPassword: ctx.body.emailPassword, updatedAt: ctx.now };
      await ctx.db.insert(buyerLoginSettings).values(row).onConflictDoUpdate({ target: buyerLoginSettings.storeId, set: row }).run();
      return ctx.body;
    },
  }),
];
