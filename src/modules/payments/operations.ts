import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { HTTPS_ORIGIN_PATTERN, stated } from '../../server/formats.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation } from '../../server/registry.js';
import { EASY_PAY_PROVIDERS, METHODS, PROVIDERS, type Environment, type Pg } from './gateway.js';
import { deleteCredentials, disconnectProvider, findProvider, patchProvider, saveKeys, updateSettings, verifyProvider, type KeyDraft } from './service.js';
import { paymentProviderView, paymentSettingsView, presentPaymentSettings } from './settings.js';

defineMessages({
  INVALID_CREDENTIALS: '결제 키 형식이 올바르지 않거나 선택한 환경(TEST/LIVE)과 맞지 않습니다.',
  PAYMENT_PROVIDER_INCOMPLETE: '결제사 키가 부족합니다. 처음 등록할 때는 모든 키가 필요하고, 사용하려면 현재 모드의 키가 있어야 합니다.',
  INVALID_PRIORITY: '우선순위에는 연결된 결제사를 빠짐없이 한 번씩 넣어야 합니다.',
  PAYMENT_PROVIDER_NOT_FOUND: '연결되지 않은 결제사입니다.',
  PAYMENT_CREDENTIAL_NOT_FOUND: '해당 환경의 결제 키가 없습니다.',
  PAYMENT_PROVIDER_VERIFICATION_FAILED: '라이브 키 연결 확인에 실패해 저장하지 않았습니다.',
  PAYMENT_CREDENTIAL_ACTIVE: '사용 중인 결제 키는 삭제할 수 없습니다.',
  LIVE_GATE_NOT_MET: '라이브 전환 조건을 아직 모두 충족하지 않았습니다.',
  LIVE_PAYMENTS_DISABLED: '플랫폼에서 이 상점의 라이브 결제를 아직 허용하지 않았습니다.',
  PAYMENT_CREDENTIAL_CHANGED: '결제 키가 그 사이에 변경되었습니다. 다시 조회한 뒤 시도하세요.',
  PAYMENT_PROVIDER_CHANGED: '결제사 설정이 그 사이에 변경되었습니다. 다시 조회한 뒤 시도하세요.',
  PAYMENT_PROVIDER_UNAVAILABLE: '결제창을 준비하지 못했습니다. 다른 결제 수단을 선택하거나 잠시 후 다시 시도하세요.',
  SANDBOX_PAYMENT_NOT_FOUND: '테스트 결제창 정보를 찾을 수 없습니다.',
  SANDBOX_PAYMENT_DECIDED: '이미 결과가 정해진 테스트 결제창입니다.',
});

const tag = 'Payment settings';
const environment = z.enum(['TEST', 'LIVE']);
const provider = z.enum(PROVIDERS);
const expectedVersion = z.number().int().min(0).optional();
const secret = z.string().min(1).max(500);

/** Payment settings are store-platform OWNER only (spec 01 §5.2) and denied to AI agents (§5.6). */
const ownerOnly = {
  auth: 'store' as const,
  roles: ['OWNER' as const],
  callers: ['storePlatform' as const],
  agent: 'denied' as const,
  tag,
};
const settingsTarget = (id: string | null) => ({ type: id ? 'PAYMENT_PROVIDER' : 'PAYMENT_SETTINGS', id });

const invalid = (field: string, reason: string) => fail(400, 'INVALID_CREDENTIALS', { field, reason });

/** `test_`/`live_` keys of pg_one: widget keys refused, prefix must match the environment (spec 01 §5.5). */
function checkPgOneKey(field: string, value: string | undefined, kind: 'ck' | 'sk', env: Environment) {
  if (value === undefined) return;
  if (/^(test|live)_g(ck|sk)_/.test(value)) throw invalid(field, 'WIDGET_KEY');
  const match = new RegExp(`^(test|live)_${kind}_[A-Za-z0-9]{8,}$`).exec(value);
  if (!match) throw invalid(field, 'FORMAT');
  if (match[1] !== env.toLowerCase()) throw invalid(field, 'ENVIRONMENT_MISMATCH');
}

const pgOneBody = z
  .object({
    environment,
    clientKey: z.string().min(1).max(200).optional(),
    secretKey: secret.optional(),
    webhookSecret: secret.nullable().optional(),
    expectedVersion,
  })
  .strict();

const channel = z
  .object({
    channelKey: z.string().min(1).max(200),
    channelName: z.string().max(100).nullable().optional(),
    methods: z.array(z.enum(METHODS)).min(1).max(METHODS.length),
  })
  .strict();

const pgTwoBody = z
  .object({
    environment,
    storeId: z.string().min(1).max(200).optional(),
    channels: z.array(channel).min(1).max(20).optional(),
    apiSecret: secret.optional(),
    webhookSecret: secret.nullable().optional(),
    expectedVersion,
  })
  .strict();

function pgOneDraft(body: z.infer<typeof pgOneBody>): KeyDraft {
  checkPgOneKey('clientKey', body.clientKey, 'ck', body.environment);
  checkPgOneKey('secretKey', body.secretKey, 'sk', body.environment);
  return {
    environment: body.environment,
    merchant: body.clientKey ?? null,
    publicConfig: body.clientKey ? { clientKey: body.clientKey } : {},
    secrets: { secretKey: body.secretKey, webhookSecret: body.webhookSecret },
  };
}

function pgTwoDraft(body: z.infer<typeof pgTwoBody>): KeyDraft {
  if (body.storeId !== undefined && !/^store-[A-Za-z0-9-]+$/.test(body.storeId)) throw invalid('storeId', 'FORMAT');
  body.channels?.forEach((c, i) => {
    if (!/^channel-key-[A-Za-z0-9-]+$/.test(c.channelKey)) throw invalid(`channels.${i}.channelKey`, 'FORMAT');
    if (body.channels!.findIndex((o) => o.channelKey === c.channelKey) !== i) throw invalid(`channels.${i}.channelKey`, 'DUPLICATE_CHANNEL');
    if (new Set(c.methods).size !== c.methods.length) throw invalid(`channels.${i}.methods`, 'DUPLICATE_METHOD');
  });
  if (body.apiSecret !== undefined && body.apiSecret.length < 16) throw invalid('apiSecret', 'TOO_SHORT');
  if (body.webhookSecret && !body.webhookSecret.startsWith('whsec_')) throw invalid('webhookSecret', 'FORMAT');
  const publicConfig: KeyDraft['publicConfig'] = {};
  if (body.storeId) Object.assign(publicConfig, { storeId: body.storeId });
  if (body.channels)
    Object.assign(publicConfig, { channels: body.channels.map((c) => ({ channelKey: c.channelKey, channelName: c.channelName ?? null, methods: c.methods })) });
  return {
    environment: body.environment,
    merchant: body.storeId ?? null,
    publicConfig,
    secrets: { apiSecret: body.apiSecret, webhookSecret: body.webhookSecret },
  };
}

const providerParams = z.object({ provider }).strict();

/** Errors of `saveKeys` with its key drafts (format rules: INVALID_CREDENTIALS). */
const saveKeysErrors = {
  400: ['INVALID_CREDENTIALS', 'PAYMENT_PROVIDER_INCOMPLETE'],
  409: ['PAYMENT_CREDENTIAL_CHANGED', 'PAYMENT_PROVIDER_CHANGED', 'PAYMENT_PROVIDER_VERIFICATION_FAILED'],
};

export const paymentOperations = [
  defineOperation({
    ...ownerOnly,
    operationId: 'getPaymentSettings',
    method: 'GET',
    path: '/v1/store/payment-settings',
    summary: 'Payment providers, key sets (masked), live gates, candidates, priority and warnings',
    scope: 'store:r',
    target: () => settingsTarget(null),
    response: paymentSettingsView,
    handler: (ctx) => presentPaymentSettings(ctx.services, ctx.store.id),
  }),
  defineOperation({
    ...ownerOnly,
    operationId: 'updatePaymentSettings',
    method: 'PUT',
    path: '/v1/store/payment-settings',
    summary: 'Set provider priority and checkout origins; only sent items change',
    scope: 'store:rw',
    body: z
      .object({
        priority: z.array(provider).optional(),
        checkoutOrigins: z
          .array(
            z
              .url({ protocol: /^https$/ })
              .refine((v) => !URL.canParse(v) || new URL(v).origin === v, { message: 'https://host[:port] 형식의 출처여야 합니다.' })
              .meta({ pattern: HTTPS_ORIGIN_PATTERN }),
          )
          .max(20)
          .optional(),
      })
      .strict(),
    target: () => settingsTarget(null),
    response: paymentSettingsView,
    errors: { 400: ['INVALID_PRIORITY'] },
    handler: (ctx) => updateSettings(ctx, ctx.body),
  }),
  defineOperation({
    ...ownerOnly,
    operationId: 'savePgOneKeys',
    method: 'PUT',
    path: '/v1/store/payment-providers/pg_one',
    summary: 'Save the TEST or LIVE key set of pg_one (connects it, disabled and in sandbox mode, the first time)',
    scope: 'store:rw',
    async: true,
    body: pgOneBody,
    target: () => settingsTarget('pg_one'),
    response: paymentProviderView,
    errors: saveKeysErrors,
    handler: (ctx) => saveKeys(ctx, 'pg_one', pgOneDraft(ctx.body), ['clientKey'], ctx.body.expectedVersion),
  }),
  defineOperation({
    ...ownerOnly,
    operationId: 'savePgTwoKeys',
    method: 'PUT',
    path: '/v1/store/payment-providers/pg_two',
    summary: 'Save the TEST or LIVE key set of pg_two (store id, channels, API secret)',
    scope: 'store:rw',
    async: true,
    body: pgTwoBody,
    target: () => settingsTarget('pg_two'),
    response: paymentProviderView,
    errors: saveKeysErrors,
    handler: (ctx) => saveKeys(ctx, 'pg_two', pgTwoDraft(ctx.body), ['storeId', 'channels'], ctx.body.expectedVersion),
  }),
  defineOperation({
    ...ownerOnly,
    operationId: 'updatePaymentProvider',
    method: 'PATCH',
    path: '/v1/store/payment-providers/{provider}',
    summary: 'Enable or disable a provider, switch sandbox/live (live needs the gate open), set easy-pay providers',
    scope: 'store:rw',
    params: providerParams,
    body: z
      .object({
        enabled: z.boolean().optional(),
        sandboxMode: z.boolean().optional(),
        easyPayProviders: z
          .array(z.enum(EASY_PAY_PROVIDERS))
          .max(EASY_PAY_PROVIDERS.length)
          .refine((v) => new Set(v).size === v.length, { message: '같은 간편결제사를 두 번 넣을 수 없습니다.', params: { code: 'DUPLICATE' } })
          .meta(stated.uniqueItems)
          .optional(),
        expectedVersion,
      })
      .strict()
      .refine((b) => b.enabled !== undefined || b.sandboxMode !== undefined || b.easyPayProviders !== undefined, {
        message: 'enabled, sandboxMode, easyPayProviders 중 하나 이상이 필요합니다.',
        params: { code: 'REQUIRED' },
      })
      .meta(stated.atLeastOne('enabled', 'sandboxMode', 'easyPayProviders')),
    target: (ctx) => settingsTarget(ctx.params.provider),
    preview: async (ctx) => {
      const current = await findProvider(ctx.db, ctx.store.id, ctx.params.provider as Pg);
      const { expectedVersion: _, ...patch } = ctx.body;
      return {
        changes: Object.entries(patch)
          .filter(([field, after]) => !isDeepStrictEqual(current?.[field as keyof typeof patch] ?? null, after))
          .map(([field, after]) => ({ field, before: current?.[field as keyof typeof patch] ?? null, after })),
      };
    },
    response: paymentProviderView,
    errors: {
      404: ['PAYMENT_PROVIDER_NOT_FOUND'],
      409: ['PAYMENT_PROVIDER_CHANGED', 'LIVE_GATE_NOT_MET', 'LIVE_PAYMENTS_DISABLED', 'PAYMENT_PROVIDER_INCOMPLETE'],
    },
    handler: (ctx) => patchProvider(ctx, ctx.params.provider as Pg, ctx.body),
  }),
  defineOperation({
    ...ownerOnly,
    operationId: 'verifyPaymentProvider',
    method: 'POST',
    path: '/v1/store/payment-providers/{provider}/verify',
    summary: 'Connection test of a key set (default: the one in use); the result stays until the keys change',
    scope: 'store:rw',
    async: true,
    params: providerParams,
    body: z.object({ environment: environment.optional() }).strict(),
    target: (ctx) => settingsTarget(ctx.params.provider),
    response: z.object({
      environment,
      result: z.object({
        status: z.enum(['PASSED', 'FAILED']),
        code: z.string().nullable().describe("The gateway's code when the test failed."),
        message: z.string().nullable(),
      }),
      provider: paymentProviderView,
    }),
    errors: { 404: ['PAYMENT_PROVIDER_NOT_FOUND', 'PAYMENT_CREDENTIAL_NOT_FOUND'], 409: ['PAYMENT_CREDENTIAL_CHANGED'] },
    handler: (ctx) => verifyProvider(ctx, ctx.params.provider as Pg, ctx.body.environment),
  }),
  defineOperation({
    ...ownerOnly,
    operationId: 'deletePaymentCredentials',
    method: 'DELETE',
    path: '/v1/store/payment-providers/{provider}/credentials/{environment}',
    summary: 'Archive the key set of an environment that is not in use',
    scope: 'store:rw',
    params: z.object({ provider, environment }).strict(),
    target: (ctx) => settingsTarget(ctx.params.provider),
    response: paymentProviderView,
    errors: { 404: ['PAYMENT_PROVIDER_NOT_FOUND', 'PAYMENT_CREDENTIAL_NOT_FOUND'], 409: ['PAYMENT_CREDENTIAL_ACTIVE'] },
    handler: (ctx) => deleteCredentials(ctx, ctx.params.provider as Pg, ctx.params.environment),
  }),
  defineOperation({
    ...ownerOnly,
    operationId: 'disconnectPaymentProvider',
    method: 'DELETE',
    path: '/v1/store/payment-providers/{provider}',
    summary: 'Disconnect a provider; all its keys are archived (kept for refunds of its payments)',
    scope: 'store:rw',
    params: providerParams,
    target: (ctx) => settingsTarget(ctx.params.provider),
    response: paymentProviderView.describe('The provider as it is now: not connected.'),
    errors: { 404: ['PAYMENT_PROVIDER_NOT_FOUND'] },
    handler: (ctx) => disconnectProvider(ctx, ctx.params.provider as Pg),
  }),
];
