import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { FieldError } from '../../server/errors.js';
import { stated } from '../../server/formats.js';
import type { StoreCtx } from '../../server/registry.js';
import { instantInput } from '../../server/validation.js';
import { categoryIdsInStore, productIdsInStore } from '../catalog/index.js';
import { coupons } from './schema.js';
import type { CouponRow } from './service.js';

/** A coupon's rule as requests give it: the create and change bodies, and the rules that span fields. */

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

export const createBody = z
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
export const patchBody = z
  .object(ruleFields)
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: '바꿀 필드가 하나 이상 필요합니다.' })
  .meta({ minProperties: 1, ...ONE_VALIDITY });

export type Rule = Omit<CouponRow, 'id' | 'storeId' | 'status' | 'issuedCount' | 'usedCount' | 'createdAt' | 'updatedAt'>;

/** Rules that span fields: which fields go with which issue type, one validity, targets of this store. */
export async function ruleProblems(ctx: StoreCtx, rule: Rule, issuedCount: number, { newCode }: { newCode: boolean }): Promise<FieldError[]> {
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

export const ms = (value: string | null | undefined) => (value === null || value === undefined ? null : Date.parse(value));
