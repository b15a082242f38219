import { z } from 'zod';

/**
 * An order flow definition (issue 11 "Shapes"): states with their core status, transitions fired by an
 * action, an event or a timer, and the actions sellers and buyers may take. Stored per published version.
 */

/** A store event name (`custom.<name>`) and an app event name (`app.<handle>.<EVENT>`). */
export const CUSTOM_EVENT = /^custom\.[a-z0-9_-]{1,40}$/;
export const APP_EVENT = /^app\.([a-z0-9-]{1,40})\.([A-Z0-9_]{1,40})$/;
/** A notification channel `app.<handle>.<notification>`. */
/**
 * A parameter of an app channel that is exactly `secrets.NAME` passes that flow secret to the app's function.
 * It is opened only when the function is called, so runs, simulations and queued payloads hold its name only.
 */
export const SECRET_PARAM = /^\s*secrets\.([A-Z][A-Z0-9_]{0,39})\s*$/;
export const mentionsSecrets = (source: string) => /\bsecrets\b/.test(source);
export const APP_CHANNEL = /^app\.([a-z0-9-]{1,40})\.([a-z0-9-]{1,40})$/;

export const INPUT_KINDS = ['text', 'textarea', 'radio', 'checkbox', 'boolean', 'select', 'image', 'datetime'] as const;
export type InputKind = (typeof INPUT_KINDS)[number];

const key = z.string().regex(/^[A-Z][A-Z0-9_]{0,39}$/, { message: '대문자, 숫자, 밑줄로 된 40자 이하의 키여야 합니다.' });
/** A CEL expression over `{ order, item, input, flow, now }` (expressions.ts). */
const expression = z.string().min(1).max(1000);
/** ISO 8601 duration of days, hours, minutes, seconds (`P7D`, `PT36H`, `P1DT12H`). */
export const isoDuration = z.string().regex(/^P(?!$)(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/, { message: 'P7D, PT12H 같은 ISO 8601 기간이어야 합니다.' });

const claimDecision = z.enum(['IMMEDIATE', 'REQUEST', 'NONE']);
export const notifySchema = z
  .object({
    /** `webhook` (→ ORDER.FLOW_NOTIFICATION), `app.<handle>.<notification>`, or `email` (names checked by check.ts). */
    channel: z.string().min(1).max(100),
    params: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/), expression).optional(),
  })
  .strict();

export const stateSchema = z
  .object({
    label: z.string().min(1).max(60),
    coreStatus: z.string().regex(/^[A-Z_]{1,40}$/),
    final: z.boolean().optional(),
    claims: z.object({ cancel: claimDecision.optional(), return: claimDecision.optional(), exchange: claimDecision.optional() }).strict().optional(),
    notify: z.array(notifySchema).max(20).optional(),
  })
  .strict();

export const triggerSchema = z.union([
  z.object({ action: key }).strict(),
  /** `custom.<name>` or `app.<handle>.<EVENT>` (names checked by check.ts, so a draft can hold a wrong one). */
  z.object({ event: z.string().min(1).max(100) }).strict(),
  z.object({ timer: z.union([z.object({ after: isoDuration }).strict(), z.object({ at: expression }).strict()]) }).strict(),
]);

export const transitionSchema = z.object({ from: key, to: key, on: triggerSchema, when: expression.optional() }).strict();

export const inputSchema = z
  .object({
    key: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/),
    kind: z.enum(INPUT_KINDS),
    label: z.string().min(1).max(60),
    placeholder: z.string().max(100).optional(),
    required: z.boolean().optional(),
    options: z
      .array(z.object({ value: z.string().min(1).max(100), label: z.string().min(1).max(60) }).strict())
      .max(50)
      .optional(),
    when: z
      .object({ key: z.string(), in: z.array(z.union([z.string(), z.boolean()])).min(1) })
      .strict()
      .optional(),
  })
  .strict();

export const actionSchema = z
  .object({
    label: z.string().min(1).max(60),
    actor: z.enum(['SELLER', 'BUYER']),
    scope: z.enum(['ITEM', 'ORDER']),
    inputs: z.array(inputSchema).max(20).optional(),
    authority: z.literal('IMMEDIATE_CANCEL').optional(),
    requires: z
      .object({ groupClaim: z.enum(['CONTINUE', 'PAUSE']) })
      .strict()
      .optional(),
  })
  .strict();

export const definitionSchema = z
  .object({
    progression: z.enum(['ITEM', 'ORDER']),
    initial: key,
    states: z.record(key, stateSchema),
    transitions: z.array(transitionSchema).max(200),
    actions: z.record(key, actionSchema),
  })
  .strict();

export type Definition = z.infer<typeof definitionSchema>;
export type StateDef = z.infer<typeof stateSchema>;
export type Transition = z.infer<typeof transitionSchema>;
export type ActionDef = z.infer<typeof actionSchema>;
export type InputDef = z.infer<typeof inputSchema>;
export type Notify = z.infer<typeof notifySchema>;

export type FlowKind = 'SHIPPING' | 'MANUAL';

const decide = { label: '구매 확정', actor: 'BUYER', scope: 'ITEM' } as const;

/** The default flow of shipped products (issue 11): confirm, dispatch, deliver (or 7 days), decide (or 8 days). */
export const DEFAULT_SHIPPING: Definition = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID', claims: { cancel: 'IMMEDIATE', return: 'NONE', exchange: 'NONE' } },
    CONFIRMED: { label: '상품 준비중', coreStatus: 'CONFIRMED', claims: { cancel: 'REQUEST', return: 'NONE', exchange: 'NONE' } },
    DISPATCHED: { label: '배송중', coreStatus: 'DISPATCHED', claims: { cancel: 'NONE', return: 'NONE', exchange: 'NONE' } },
    DELIVERED: { label: '배송 완료', coreStatus: 'DELIVERED', claims: { cancel: 'NONE', return: 'REQUEST', exchange: 'REQUEST' } },
    PURCHASE_DECIDED: { label: '구매 확정', coreStatus: 'PURCHASE_DECIDED', final: true, claims: { cancel: 'NONE', return: 'NONE', exchange: 'NONE' } },
  },
  transitions: [
    { from: 'PAID', to: 'CONFIRMED', on: { action: 'CONFIRM' } },
    { from: 'CONFIRMED', to: 'DISPATCHED', on: { action: 'DISPATCH' } },
    { from: 'DISPATCHED', to: 'DELIVERED', on: { action: 'DELIVER' } },
    { from: 'DISPATCHED', to: 'DELIVERED', on: { timer: { after: 'P7D' } } },
    { from: 'DELIVERED', to: 'PURCHASE_DECIDED', on: { action: 'DECIDE_PURCHASE' } },
    { from: 'DELIVERED', to: 'PURCHASE_DECIDED', on: { timer: { after: 'P8D' } } },
  ],
  actions: {
    CONFIRM: { label: '주문 확인', actor: 'SELLER', scope: 'ITEM' },
    DISPATCH: {
      label: '발송 처리',
      actor: 'SELLER',
      scope: 'ITEM',
      inputs: [
        { key: 'carrier', kind: 'text', label: '택배사', placeholder: 'CJ대한통운', required: true },
        { key: 'trackingNo', kind: 'text', label: '송장 번호', placeholder: '1234-5678-9012', required: true },
      ],
    },
    DELIVER: { label: '배송 완료 처리', actor: 'SELLER', scope: 'ITEM' },
    DECIDE_PURCHASE: decide,
    // Claims (a later issue) run it on a claim the buyer filed; it moves nothing by itself.
    WITHDRAW_REQUEST: { label: '요청 철회', actor: 'BUYER', scope: 'ITEM' },
  },
};

/** The default flow of no-shipping (`MANUAL`) products: supply with a note, then decide (or 7 days). */
export const DEFAULT_MANUAL: Definition = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID', claims: { cancel: 'IMMEDIATE', return: 'NONE', exchange: 'NONE' } },
    FULFILLED: { label: '제공 완료', coreStatus: 'FULFILLED', claims: { cancel: 'NONE', return: 'REQUEST', exchange: 'NONE' } },
    PURCHASE_DECIDED: { label: '구매 확정', coreStatus: 'PURCHASE_DECIDED', final: true, claims: { cancel: 'NONE', return: 'NONE', exchange: 'NONE' } },
  },
  transitions: [
    { from: 'PAID', to: 'FULFILLED', on: { action: 'FULFILL' } },
    { from: 'FULFILLED', to: 'PURCHASE_DECIDED', on: { action: 'DECIDE_PURCHASE' } },
    { from: 'FULFILLED', to: 'PURCHASE_DECIDED', on: { timer: { after: 'P7D' } } },
  ],
  actions: {
    FULFILL: {
      label: '제공 완료 처리',
      actor: 'SELLER',
      scope: 'ITEM',
      inputs: [{ key: 'note', kind: 'textarea', label: '제공 안내', placeholder: '쿠폰 번호, 이용 방법 등', required: false }],
    },
    DECIDE_PURCHASE: decide,
    WITHDRAW_REQUEST: { label: '요청 철회', actor: 'BUYER', scope: 'ITEM' },
  },
};

export const DEFAULT_DEFINITIONS: Record<FlowKind, { name: string; definition: Definition }> = {
  SHIPPING: { name: '기본 배송 흐름', definition: DEFAULT_SHIPPING },
  MANUAL: { name: '기본 제공 흐름', definition: DEFAULT_MANUAL },
};

/** Milliseconds of an ISO 8601 duration accepted by `isoDuration`. */
export function durationMs(duration: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(duration);
  if (!m) throw new Error(`not a duration: ${duration}`);
  const [, d = '0', h = '0', min = '0', s = '0'] = m;
  return ((Number(d) * 24 + Number(h)) * 60 + Number(min)) * 60_000 + Number(s) * 1000;
}
