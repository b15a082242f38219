import { and, desc, eq, inArray } from 'drizzle-orm';
import { z } from 'zod';
import { countRows, transaction } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { ApiError, fail, validationFailed, type FieldError } from '../../server/errors.js';
import { stated } from '../../server/formats.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, reply, type StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { instantInput } from '../../server/validation.js';
import { categoryIdsInStore, findStoreProduct, productIdsInStore } from '../catalog/index.js';
import { storeCustomersByIds } from '../customers/index.js';
import { coupons } from './schema.js';
import {
  couponItemSchema,
  couponSchema,
  downloadRefusal,
  findCoupon,
  heldCount,
  issueItem,
  memberItems,
  presentCoupon,
  presentCouponItem,
  type CouponRow,
} from './service.js';

const tag = 'Coupons';
const MAX_GRANT = 100;

// The statements (`.meta`) are ruleProblems' rules that need nothing but the request.
const benefitInput = z
  .object({
    method: z.enum(['PERCENT', 'AMOUNT']),
    value: z.number().int().min(1).max(100_000_000),
    maxDiscountAmount: z.number().int().min(1).max(100_000_000).optional(),
  })
  .strict()
  .meta({
    allOf: [
      stated.when('method', ['PERCENT'], { properties: { value: { maximum: 100 } } }),
      stated.when('method', ['AMOUNT'], { not: { required: ['maxDiscountAmount'] } }),
    ],
  });
/** useDays and useEnd: not both set. */
const ONE_VALIDITY = { not: { required: ['useDays', 'useEnd'], properties: { useDays: { type: 'integer' }, useEnd: { type: 'string' } } } };

/** The rule fields a coupon has and a rule change may set (issue type and code are fixed at creation). */
const ruleFields = {
  name: z.string().trim().min(1).max(100),
  benefit: benefitInput,
  minOrderAmount: z.number().int().min(0).max(100_000_000),
  target: z
    .object({ kind: z.enum(['ALL', 'PRODUCTS', 'CATEGORIES']), ids: z.array(z.string()).max(100).default([]) })
    .strict()
    .meta({
      ...stated.when('kind', ['ALL'], { properties: { ids: { maxItems: 0 } } }, { properties: { ids: { minItems: 1 } }, required: ['ids'] }),
    }),
  downloadStart: instantInput.nullable(),
  downloadEnd: instantInput.nullable(),
  useDays: z.number().int().min(1).max(3650).nullable(),
  useEnd: instantInput.nullable(),
  totalQuantity: z.number().int().min(1).max(10_000_000).nullable(),
  perCustomerLimit: z.number().int().min(1).max(100),
  stackable: z.boolean(),
};

const createBody = z
  .object({
    ...ruleFields,
    issueType: z.enum(['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE']),
    code: z
      .string()
      .trim()
      .regex(/^[A-Z0-9][A-Z0-9-]{2,29}$/, { message: '대문자, 숫자, 하이픈 3~30자여야 합니다.' })
      .optional(),
    minOrderAmount: ruleFields.minOrderAmount.default(0),
    target: ruleFields.target.default({ kind: 'ALL', ids: [] }),
    downloadStart: ruleFields.downloadStart.optional(),
    downloadEnd: ruleFields.downloadEnd.optional(),
    useDays: ruleFields.useDays.optional(),
    useEnd: ruleFields.useEnd.optional(),
    totalQuantity: ruleFields.totalQuantity.optional(),
    perCustomerLimit: ruleFields.perCustomerLimit.default(1),
    stackable: ruleFields.stackable.default(false),
  })
  .strict()
  .meta({
    allOf: [
      stated.when('issueType', ['CODE'], { required: ['code'] }, { not: { required: ['code'] } }),
      stated.when('issueType', ['DOWNLOAD'], {}, { properties: { downloadStart: { type: 'null' }, downloadEnd: { type: 'null' } } }),
      ONE_VALIDITY,
    ],
  });
const patchBody = z
  .object(ruleFields)
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: '바꿀 필드가 하나 이상 필요합니다.' })
  .meta({ minProperties: 1, ...ONE_VALIDITY });

type Rule = Omit<CouponRow, 'id' | 'storeId' | 'status' | 'issuedCount' | 'usedCount' | 'createdAt' | 'updatedAt'>;

/** Rules that span fields: which fields go with which issue type, one validity, targets of this store. */
async function ruleProblems(ctx: StoreCtx, rule: Rule, issuedCount: number, { newCode }: { newCode: boolean }): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const bad = (field: string, code: string, message: string) => errors.push({ field, code, message });
  if (rule.benefit.method === 'PERCENT' && rule.benefit.value > 100) bad('benefit.value', 'OUT_OF_RANGE', '할인율은 1~100이어야 합니다.');
  if (rule.benefit.method === 'AMOUNT' && rule.benefit.maxDiscountAmount !== null)
    bad('benefit.maxDiscountAmount', 'NOT_APPLICABLE', '정액 할인에는 최대 할인액이 없습니다.');
  if (rule.issueType === 'CODE' && !rule.code) bad('code', 'REQUIRED', 'CODE 쿠폰에는 code가 필요합니다.');
  if (rule.issueType !== 'CODE' && rule.code) bad('code', 'NOT_APPLICABLE', 'code는 CODE 쿠폰에만 씁니다.');
  if (rule.issueType !== 'DOWNLOAD' && (rule.downloadStart !== null || rule.downloadEnd !== null))
    bad('downloadStart', 'NOT_APPLICABLE', '내려받기 기간은 DOWNLOAD 쿠폰에만 있습니다.');
  if (rule.downloadStart !== null && rule.downloadEnd !== null && rule.downloadEnd <= rule.downloadStart)
    bad('downloadEnd', 'BEFORE_START', 'downloadEnd는 downloadStart 뒤여야 합니다.');
  if (rule.useDays !== null && rule.useEnd !== null) bad('useEnd', 'CONFLICT', 'useDays와 useEnd 중 하나만 정합니다.');
  if (rule.totalQuantity !== null && rule.totalQuantity < issuedCount) bad('totalQuantity', 'BELOW_ISSUED', `이미 ${issuedCount}장 발급되었습니다.`);
  if (rule.target.kind === 'ALL' && rule.target.ids.length) bad('target.ids', 'NOT_APPLICABLE', 'ALL 대상에는 ids가 없습니다.');
  if (rule.target.kind !== 'ALL') {
    if (rule.target.ids.length === 0) bad('target.ids', 'REQUIRED', '대상 상품 또는 카테고리가 필요합니다.');
    const idsInStore = rule.target.kind === 'PRODUCTS' ? productIdsInStore : categoryIdsInStore;
    const found = new Set(await idsInStore(ctx.db, ctx.store.id, rule.target.ids));
    rule.target.ids.forEach(
      (id, i) => found.has(id) || bad(`target.ids.${i}`, 'NOT_FOUND', `이 상점에 없는 ${rule.target.kind === 'PRODUCTS' ? '상품' : '카테고리'}입니다.`),
    );
  }
  if (
    newCode &&
    rule.code &&
    (await ctx.db
      .select({ id: coupons.id })
      .from(coupons)
      .where(and(eq(coupons.storeId, ctx.store.id), eq(coupons.code, rule.code)))
      .get())
  )
    bad('code', 'TAKEN', '이 상점에 이미 있는 코드입니다.');
  return errors;
}

const ms = (value: string | null | undefined) => (value === null || value === undefined ? null : Date.parse(value));
const loadCoupon = async (ctx: StoreCtx<any, any, { couponId: string }>) =>
  requireOwned(await findCoupon(ctx.db, ctx.params.couponId), ctx.store.id, 'COUPON_NOT_FOUND');
const couponParams = z.object({ couponId: z.string() }).strict();
const COUPON_LOOKUP = { 403: ['TENANT_MISMATCH'], 404: ['COUPON_NOT_FOUND'] } as const;

/** Suspend and resume: a status move allowed only from `from`. */
function statusMove(
  operationId: string,
  path: string,
  from: 'ACTIVE' | 'SUSPENDED',
  to: 'ACTIVE' | 'SUSPENDED',
  summary: string,
  agent: 'direct' | 'approval',
) {
  return defineOperation({
    operationId,
    method: 'POST',
    path: `/v1/coupons/{couponId}/${path}`,
    summary,
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent,
    params: couponParams,
    response: couponSchema,
    errors: { ...COUPON_LOOKUP, 409: ['COUPON_STATUS_CONFLICT'] },
    target: (ctx) => ({ type: 'COUPON', id: ctx.params.couponId }),
    preview: async (ctx) => ({ changes: [{ field: 'status', before: (await findCoupon(ctx.db, ctx.params.couponId))?.status ?? null, after: to }] }),
    handler: async (ctx) => {
      const coupon = await loadCoupon(ctx);
      if (coupon.status !== from) throw fail(409, 'COUPON_STATUS_CONFLICT', { status: coupon.status, expected: from });
      await ctx.db.update(coupons).set({ status: to, updatedAt: ctx.now }).where(eq(coupons.id, coupon.id)).run();
      return presentCoupon({ ...coupon, status: to, updatedAt: ctx.now });
    },
  });
}

const grantResult = z.object({
  granted: z.array(z.object({ customerId: z.string(), couponItem: couponItemSchema })),
  failed: z.array(z.object({ customerId: z.string(), code: z.string(), message: z.string() })),
});

const storefrontCoupon = couponSchema
  .pick({
    couponId: true,
    name: true,
    benefit: true,
    minOrderAmount: true,
    target: true,
    downloadStart: true,
    downloadEnd: true,
    useDays: true,
    useEnd: true,
    stackable: true,
  })
  .extend({
    downloaded: z.boolean().optional().describe('Members only: whether they hold it'),
    downloadable: z.boolean().optional().describe('Members only: whether they may download it now'),
  });
const heldCoupon = couponItemSchema.extend({ coupon: couponSchema.pick({ name: true, benefit: true, minOrderAmount: true, target: true, stackable: true }) });

export const couponOperations = [
  defineOperation({
    operationId: 'listCoupons',
    method: 'GET',
    path: '/v1/coupons',
    summary: "The store's coupons, newest first",
    tag,
    auth: 'store',
    scope: 'promotion:r',
    query: z
      .object({
        ...pageQuery(100),
        status: z.enum(['ACTIVE', 'SUSPENDED', 'ENDED']).optional(),
        issueType: z.enum(['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE']).optional(),
      })
      .strict(),
    response: pageOf(couponSchema),
    handler: async (ctx) => {
      const where = and(
        eq(coupons.storeId, ctx.store.id),
        ctx.query.status && eq(coupons.status, ctx.query.status),
        ctx.query.issueType && eq(coupons.issueType, ctx.query.issueType),
      );
      const rows = await ctx.db
        .select()
        .from(coupons)
        .where(where)
        .orderBy(desc(coupons.id))
        .limit(ctx.query.size)
        .offset((ctx.query.page - 1) * ctx.query.size)
        .all();
      return paginated(rows.map(presentCoupon), ctx.query.page, ctx.query.size, await countRows(ctx.db, coupons, where));
    },
  }),
  defineOperation({
    operationId: 'createCoupon',
    method: 'POST',
    path: '/v1/coupons',
    summary: 'Create a coupon: granted by the seller (MANUAL), downloaded (DOWNLOAD), given at sign-up (SIGNUP) or typed (CODE)',
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: 'approval',
    status: 201,
    body: createBody,
    response: couponSchema,
    target: () => ({ type: 'COUPON', id: null }),
    preview: (ctx) => ({ changes: [{ field: 'coupon', before: null, after: ctx.body }] }),
    handler: async (ctx) => {
      const b = ctx.body;
      const rule: Rule = {
        name: b.name,
        code: b.code ?? null,
        issueType: b.issueType,
        benefit: { method: b.benefit.method, value: b.benefit.value, maxDiscountAmount: b.benefit.maxDiscountAmount ?? null },
        minOrderAmount: b.minOrderAmount,
        target: b.target,
        downloadStart: ms(b.downloadStart),
        downloadEnd: ms(b.downloadEnd),
        useDays: b.useDays ?? null,
        useEnd: ms(b.useEnd),
        totalQuantity: b.totalQuantity ?? null,
        perCustomerLimit: b.perCustomerLimit,
        stackable: b.stackable,
      };
      const errors = await ruleProblems(ctx, rule, 0, { newCode: true });
      if (errors.length) throw validationFailed(errors);
      const coupon: CouponRow = {
        id: newId('cpn', ctx.now),
        storeId: ctx.store.id,
        ...rule,
        status: 'ACTIVE',
        issuedCount: 0,
        usedCount: 0,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.db.insert(coupons).values(coupon).run();
      return reply(201, presentCoupon(coupon));
    },
  }),
  defineOperation({
    operationId: 'getCoupon',
    method: 'GET',
    path: '/v1/coupons/{couponId}',
    summary: 'One coupon with its issued and used counts',
    tag,
    auth: 'store',
    scope: 'promotion:r',
    params: couponParams,
    response: couponSchema,
    errors: COUPON_LOOKUP,
    handler: async (ctx) => presentCoupon(await loadCoupon(ctx)),
  }),
  defineOperation({
    operationId: 'updateCoupon',
    method: 'PATCH',
    path: '/v1/coupons/{couponId}',
    summary: "Change a coupon's rule (items already issued keep their expiry)",
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: 'approval',
    params: couponParams,
    body: patchBody,
    response: couponSchema,
    errors: { ...COUPON_LOOKUP, 409: ['COUPON_STATUS_CONFLICT'] },
    target: (ctx) => ({ type: 'COUPON', id: ctx.params.couponId }),
    preview: async (ctx) => {
      const before = await findCoupon(ctx.db, ctx.params.couponId);
      return {
        changes: Object.entries(ctx.body).map(([field, after]) => ({
          field,
          before: before ? ((presentCoupon(before) as Record<string, unknown>)[field] ?? null) : null,
          after,
        })),
      };
    },
    handler: async (ctx) => {
      const coupon = await loadCoupon(ctx);
      if (coupon.status === 'ENDED') throw fail(409, 'COUPON_STATUS_CONFLICT', { status: coupon.status });
      const b = ctx.body;
      const rule: Rule = {
        ...coupon,
        ...(b.name !== undefined && { name: b.name }),
        ...(b.benefit !== undefined && {
          benefit: { method: b.benefit.method, value: b.benefit.value, maxDiscountAmount: b.benefit.maxDiscountAmount ?? null },
        }),
        ...(b.minOrderAmount !== undefined && { minOrderAmount: b.minOrderAmount }),
        ...(b.target !== undefined && { target: b.target }),
        ...(b.downloadStart !== undefined && { downloadStart: ms(b.downloadStart) }),
        ...(b.downloadEnd !== undefined && { downloadEnd: ms(b.downloadEnd) }),
        ...(b.useDays !== undefined && { useDays: b.useDays }),
        ...(b.useEnd !== undefined && { useEnd: ms(b.useEnd) }),
        ...(b.totalQuantity !== undefined && { totalQuantity: b.totalQuantity }),
        ...(b.perCustomerLimit !== undefined && { perCustomerLimit: b.perCustomerLimit }),
        ...(b.stackable !== undefined && { stackable: b.stackable }),
      };
      const errors = await ruleProblems(ctx, rule, coupon.issuedCount, { newCode: false });
      if (errors.length) throw validationFailed(errors);
      const changed = { ...coupon, ...rule, updatedAt: ctx.now };
      await ctx.db.update(coupons).set(changed).where(eq(coupons.id, coupon.id)).run();
      return presentCoupon(changed);
    },
  }),
  defineOperation({
    operationId: 'grantCoupon',
    method: 'POST',
    path: '/v1/coupons/{couponId}/grants',
    summary: 'Give a MANUAL coupon to up to 100 buyers; each buyer succeeds or fails on its own',
    tag,
    auth: 'store',
    scope: 'promotion:rw',
    agent: 'approval',
    params: couponParams,
    body: z.object({ customerIds: z.array(z.string()).min(1).max(MAX_GRANT) }).strict(),
    response: grantResult,
    errors: { ...COUPON_LOOKUP, 409: ['COUPON_NOT_GRANTABLE', 'COUPON_STATUS_CONFLICT'] },
    target: (ctx) => ({ type: 'COUPON', id: ctx.params.couponId }),
    preview: (ctx) => ({ changes: [{ field: 'grants', before: null, after: ctx.body.customerIds }] }),
    handler: async (ctx) => {
      const coupon = await loadCoupon(ctx);
      if (coupon.issueType !== 'MANUAL') throw fail(409, 'COUPON_NOT_GRANTABLE', { issueType: coupon.issueType });
      if (coupon.status !== 'ACTIVE') throw fail(409, 'COUPON_STATUS_CONFLICT', { status: coupon.status });
      const result: z.output<typeof grantResult> = { granted: [], failed: [] };
      const buyers = new Map((await storeCustomersByIds(ctx.db, ctx.store.id, ctx.body.customerIds)).map((c) => [c.id, c]));
      for (const customerId of new Set(ctx.body.customerIds)) {
        const refuse = (code: string, message: string) => result.failed.push({ customerId, code, message });
        const buyer = buyers.get(customerId);
        if (!buyer) {
          refuse('CUSTOMER_NOT_FOUND', '이 상점의 구매자가 아닙니다.');
          continue;
        }
        if (buyer.withdrawnAt !== null) {
          refuse('CUSTOMER_WITHDRAWN', '탈퇴한 구매자입니다.');
          continue;
        }
        if ((await heldCount(ctx.db, coupon.id, customerId)) >= coupon.perCustomerLimit) {
          refuse('COUPON_LIMIT_REACHED', `한 사람에게 ${coupon.perCustomerLimit}장까지 줄 수 있습니다.`);
          continue;
        }
        try {
          // A savepoint per buyer: one sold-out grant leaves the others in place.
          const item = await transaction(ctx.db, async () => issueItem(ctx.db, (await findCoupon(ctx.db, coupon.id))!, customerId, 'MANUAL', ctx.now));
          result.granted.push({ customerId, couponItem: presentCouponItem(item) });
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          refuse(error.code, '쿠폰이 모두 소진되었습니다.');
        }
      }
      return result;
    },
  }),
  statusMove('suspendCoupon', 'suspend', 'ACTIVE', 'SUSPENDED', 'Stop a coupon: no downloads, grants or new uses until resumed (held items stay)', 'direct'),
  statusMove('resumeCoupon', 'resume', 'SUSPENDED', 'ACTIVE', 'Resume a suspended coupon', 'approval'),

  defineOperation({
    operationId: 'storefrontListCoupons',
    method: 'GET',
    path: '/storefront/v1/coupons',
    summary: 'Coupons a buyer can download (for a product, with productId); a member sees whether they hold each and may download it',
    tag: 'Storefront coupons',
    auth: 'buyer',
    query: z.object({ productId: z.string().optional() }).strict(),
    response: z.object({ contents: z.array(storefrontCoupon) }),
    handler: async (ctx) => {
      const product = ctx.query.productId ? await findStoreProduct(ctx.db, ctx.buyer.storeId, ctx.query.productId) : null;
      if (ctx.query.productId && !product) throw fail(404, 'PRODUCT_NOT_FOUND');
      const rows = (
        await ctx.db
          .select()
          .from(coupons)
          .where(and(eq(coupons.storeId, ctx.buyer.storeId), eq(coupons.issueType, 'DOWNLOAD'), eq(coupons.status, 'ACTIVE')))
          .orderBy(desc(coupons.id))
          .all()
      )
        .filter((c) => c.downloadEnd === null || ctx.now < c.downloadEnd)
        .filter(
          (c) =>
            !product ||
            c.target.kind === 'ALL' ||
            (c.target.kind === 'PRODUCTS' ? c.target.ids.includes(product.id) : product.categoryId !== null && c.target.ids.includes(product.categoryId)),
        );
      const member = ctx.buyer.customer;
      return {
        contents: await Promise.all(
          rows.map(async (c) => {
            const { couponId, name, benefit, minOrderAmount, target, downloadStart, downloadEnd, useDays, useEnd, stackable } = presentCoupon(c);
            const view = { couponId, name, benefit, minOrderAmount, target, downloadStart, downloadEnd, useDays, useEnd, stackable };
            return member
              ? {
                  ...view,
                  downloaded: (await heldCount(ctx.db, c.id, member.id)) > 0,
                  downloadable: (await downloadRefusal(ctx.db, c, member.id, ctx.now)) === null,
                }
              : view;
          }),
        ),
      };
    },
    errors: { 404: ['PRODUCT_NOT_FOUND'] },
  }),
  defineOperation({
    operationId: 'storefrontDownloadCoupon',
    method: 'POST',
    path: '/storefront/v1/coupons/{couponId}/download',
    summary: 'A member downloads a coupon: one coupon item, to use at checkout by its code',
    tag: 'Storefront coupons',
    auth: 'buyer',
    status: 201,
    params: couponParams,
    response: couponItemSchema,
    errors: {
      401: ['COUPON_MEMBERS_ONLY'],
      404: ['COUPON_NOT_FOUND'],
      409: ['COUPON_ALREADY_DOWNLOADED', 'COUPON_SOLD_OUT', 'COUPON_NOT_STARTED', 'COUPON_DOWNLOAD_ENDED', 'COUPON_NOT_DOWNLOADABLE', 'COUPON_NOT_ACTIVE'],
    },
    handler: async (ctx) => {
      const coupon = await findCoupon(ctx.db, ctx.params.couponId);
      if (!coupon || coupon.storeId !== ctx.buyer.storeId) throw fail(404, 'COUPON_NOT_FOUND');
      const refusal = await downloadRefusal(ctx.db, coupon, ctx.buyer.customer?.id ?? null, ctx.now);
      if (refusal) throw fail(refusal.status, refusal.code, { couponId: coupon.id });
      return reply(201, presentCouponItem(await issueItem(ctx.db, coupon, ctx.buyer.customer!.id, 'DOWNLOAD', ctx.now)));
    },
  }),
  defineOperation({
    operationId: 'storefrontMyCoupons',
    method: 'GET',
    path: '/storefront/v1/me/coupons',
    summary: "A member's coupons, used ones included, with where each came from (source)",
    tag: 'Storefront coupons',
    auth: 'buyer',
    response: z.object({ contents: z.array(heldCoupon) }),
    errors: { 401: ['UNAUTHORIZED'] },
    handler: async (ctx) => {
      const member = ctx.buyer.customer;
      if (!member) throw fail(401, 'UNAUTHORIZED');
      const items = await memberItems(ctx.db, ctx.buyer.storeId, member.id);
      const rules = new Map(
        items.length
          ? (
              await ctx.db
                .select()
                .from(coupons)
                .where(inArray(coupons.id, [...new Set(items.map((i) => i.couponId))]))
                .all()
            ).map((c) => [c.id, c])
          : [],
      );
      return {
        contents: items.map((i) => {
          const c = rules.get(i.couponId)!;
          return {
            ...presentCouponItem(i),
            coupon: { name: c.name, benefit: c.benefit, minOrderAmount: c.minOrderAmount, target: c.target, stackable: c.stackable },
          };
        }),
      };
    },
  }),
];
