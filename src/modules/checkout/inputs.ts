import { z } from 'zod';
import { stated } from '../../server/formats.js';
import { isRealDate } from '../../kernel/dates.js';
import { phone, shippingAddress } from '../orders/index.js';

const stay = z.object({ checkIn: z.string(), checkOut: z.string() }).strict();
export const quantity = z.number().int().min(1).max(999);

/** Add-on picks (group and value names) and custom input text by key (issue 30); checked against the product. */
const itemOptions = {
  addonSelections: z
    .array(z.object({ name: z.string().min(1).max(30), value: z.string().min(1).max(50) }).strict())
    .max(20)
    .optional(),
  customInputs: z.record(z.string().min(1).max(40), z.string().max(1000)).optional(),
};
const orderLine = { productId: z.string().min(1), optionId: z.string().min(1), quantity, stay: stay.optional(), ...itemOptions };

export const cartAdd = z.object(orderLine).strict();
export const cartPatch = z.object({ quantity }).strict();

export const checkoutCreate = z.union(
  [z.object({ cartItemIds: z.array(z.string().min(1)).min(1).max(100) }).strict(), z.object({ directItem: z.object(orderLine).strict() }).strict()],
  { error: 'cartItemIds 또는 directItem 중 하나를 보내세요.' },
);

const coupons = z.array(z.object({ code: z.string().min(1).max(50) }).strict()).max(10);
const pointAmount = z.number().int().min(0).max(100_000_000);

export const pricingRequest = z.object({ coupons: coupons.default([]), pointAmount: pointAmount.default(0) }).strict();
export const deliveryQuote = z.object({ zipCode: z.string().regex(/^\d{5}$/) }).strict();

const PG = z.enum(['pg_one', 'pg_two']);
/** `{ pg, method, provider? }`, or the key string `<pg>:<method>:<provider>` (issue 4). */
export const paymentOption = z
  .union([
    z.object({ pg: PG, method: z.string().min(1).max(30), provider: z.string().min(1).max(30).nullable().optional() }).strict(),
    z.string().regex(/^(pg_one|pg_two):[A-Z_]+(:[A-Z0-9_]*)?$/, { message: '<pg>:<method>:<provider> 형식이어야 합니다.' }),
  ])
  .transform((o) => {
    if (typeof o !== 'string') return { pg: o.pg, method: o.method, provider: o.provider ?? null };
    const [pg, method, provider] = o.split(':');
    return { pg, method, provider: provider || null };
  });

const RESIDENT = /^\d{6}[1-8]\d{6}$/;
const residentLike = (digits: string) =>
  RESIDENT.test(digits) && isRealDate(`${Number(digits.slice(0, 2)) > 30 ? '19' : '20'}${digits.slice(0, 2)}-${digits.slice(2, 4)}-${digits.slice(4, 6)}`);

/** Cash receipt identity numbers (spec 02 §2.4): per purpose, hyphens allowed, resident numbers refused. */
export const cashReceipt = z
  .object({
    type: z.enum(['INCOME_DEDUCTION', 'EXPENSE_PROOF']),
    identityNumber: z.string().min(1).max(30),
  })
  .strict()
  .superRefine((value, ctx) => {
    const digits = value.identityNumber.replace(/-/g, '');
    const issue = (code: string, message: string) => ctx.addIssue({ code: 'custom', path: ['identityNumber'], message, params: { code } });
    if (!/^\d+$/.test(digits)) return issue('INVALID_IDENTITY_NUMBER', '숫자와 하이픈만 쓸 수 있습니다.');
    if (residentLike(digits))
      return issue('RESIDENT_NUMBER_NOT_ALLOWED', '주민등록번호는 받을 수 없습니다. 휴대폰 번호, 사업자등록번호 또는 현금영수증 카드 번호를 쓰세요.');
    const card = /^\d{13,19}$/.test(digits);
    if (value.type === 'INCOME_DEDUCTION' && !card && !/^01[016789]\d{7,8}$/.test(digits))
      return issue('INVALID_IDENTITY_NUMBER', '소득공제용은 휴대폰 번호 또는 현금영수증 카드 번호(13~19자리)여야 합니다.');
    if (value.type === 'EXPENSE_PROOF' && !card && !/^\d{10}$/.test(digits))
      return issue('INVALID_IDENTITY_NUMBER', '지출증빙용은 사업자등록번호(10자리) 또는 현금영수증 카드 번호(13~19자리)여야 합니다.');
  })
  .meta({
    // The same rules on the number as typed (hyphens anywhere); the document refuses every resident-like number, date or not.
    allOf: [
      { properties: { identityNumber: { pattern: '^-*(?:\\d-*)+$', not: { pattern: '^-*(?:\\d-*){6}[1-8]-*(?:\\d-*){6}$' } } } },
      stated.when('type', ['INCOME_DEDUCTION'], { properties: { identityNumber: { pattern: '^-*(?:0-*1-*[016789](?:-*\\d){7,8}|(?:\\d-*){13,19})-*$' } } }),
      stated.when('type', ['EXPENSE_PROOF'], { properties: { identityNumber: { pattern: '^-*(?:(?:\\d-*){10}|(?:\\d-*){13,19})$' } } }),
    ],
  })
  .transform((v) => ({ type: v.type, digits: v.identityNumber.replace(/-/g, '') }));

export const guest = z
  .object({
    name: z.string().trim().min(1).max(50),
    phone,
    email: z.email().max(254),
    orderPassword: z.string().min(4).max(128),
  })
  .strict();

export const paymentStart = z
  .object({
    option: paymentOption.optional(),
    shippingAddress: shippingAddress.optional(),
    guest: guest.optional(),
    cashReceipt: cashReceipt.optional(),
    coupons: coupons.default([]),
    pointAmount: pointAmount.default(0),
    returnUrl: z.string().min(1).max(2048).optional(),
  })
  .strict();
export type PaymentStartInput = z.infer<typeof paymentStart>;

export const newAttempt = z
  .object({
    option: paymentOption,
    returnUrl: z.string().min(1).max(2048),
    cashReceipt: cashReceipt.optional(),
  })
  .strict();

/** `amount` (dev only) makes the sandbox gateway authorise another amount, to see the mismatch cancel. */
export const simulateOutcome = z
  .object({
    /** REFUND_HELD: not a window outcome — the payment's next refund is held by the sandbox gateway. */
    outcome: z.enum(['APPROVE', 'REFUSE', 'CANCEL', 'WINDOW_ERROR', 'CONFIRMING', 'REFUND_HELD']),
    amount: z.number().int().min(0).max(1_000_000_000).optional(),
  })
  .strict();
export type Outcome = z.infer<typeof simulateOutcome>['outcome'];
