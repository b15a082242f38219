import { Flags } from '@oclif/core';
import { UsageError } from '../../cli/usage-error.js';
import { PaymentSettingsCommand, providerArg } from './get.js';

const METHODS = ['CARD', 'EASY_PAY', 'BANK_TRANSFER', 'MOBILE', 'VIRTUAL_ACCOUNT'];

/** `channel-key-…=CARD,EASY_PAY[:name]` → a pg_two channel. */
function parseChannel(spec: string) {
  const match = /^([^=]+)=([A-Z_,]+)(?::(.+))?$/.exec(spec);
  const methods = match?.[2].split(',').filter(Boolean) ?? [];
  if (!match || methods.length === 0 || methods.some((m) => !METHODS.includes(m))) {
    throw new UsageError(`--channel "${spec}" must look like channel-key-abc=CARD,EASY_PAY[:name] (methods: ${METHODS.join(', ')})`);
  }
  return { channelKey: match[1], methods, ...(match[3] ? { channelName: match[3] } : {}) };
}

export default class PaymentSettingsConnect extends PaymentSettingsCommand<typeof PaymentSettingsConnect> {
  static override summary = 'Save the TEST or LIVE keys of a provider (the first save connects it, disabled and in sandbox mode)';
  static override description =
    'Omitted secrets keep their stored value. Prefer SVC_PG_SECRET over --secret-key/--api-secret so the secret stays out of shell history.';
  static override examples = [
    '<%= config.bin %> payment-settings connect pg_one --environment TEST --client-key test_ck_… --secret-key test_sk_…',
    'SVC_PG_SECRET=… <%= config.bin %> payment-settings connect pg_two --environment TEST --pg-store-id store-… --channel channel-key-…=CARD,EASY_PAY',
  ];
  static override args = { provider: providerArg };
  static override flags = {
    environment: Flags.option({ options: ['TEST', 'LIVE'] as const, description: 'Which key set to save', required: true })(),
    'client-key': Flags.string({ description: 'pg_one client key (test_ck_… / live_ck_…)' }),
    'secret-key': Flags.string({ description: 'pg_one secret key (test_sk_… / live_sk_…; or env SVC_PG_SECRET)' }),
    'pg-store-id': Flags.string({ description: 'pg_two Store ID (store-…)' }),
    channel: Flags.string({ description: 'pg_two channel as channel-key-…=METHOD,METHOD[:name] (repeatable, replaces all channels)', multiple: true }),
    'api-secret': Flags.string({ description: 'pg_two API secret (at least 16 characters; or env SVC_PG_SECRET)' }),
    'webhook-secret': Flags.string({ description: 'Webhook secret (pg_two: whsec_…)' }),
    'clear-webhook-secret': Flags.boolean({ description: 'Erase the stored webhook secret', exclusive: ['webhook-secret'] }),
  };

  async run() {
    const f = this.flags;
    const pg = this.args.provider;
    const secret = pg === 'pg_one' ? f['secret-key'] : f['api-secret'];
    const wrong = pg === 'pg_one' ? ['pg-store-id', 'channel', 'api-secret'] : ['client-key', 'secret-key'];
    const given = wrong.filter((name) => f[name as keyof typeof f] !== undefined);
    if (given.length) throw new UsageError(`--${given.join(', --')} ${given.length > 1 ? 'are' : 'is'} not a ${pg} setting`);
    const fields: Record<string, unknown> =
      pg === 'pg_one'
        ? { clientKey: f['client-key'], secretKey: secret ?? process.env.SVC_PG_SECRET }
        : { storeId: f['pg-store-id'], channels: f.channel?.map(parseChannel), apiSecret: secret ?? process.env.SVC_PG_SECRET };
    const body = {
      environment: f.environment,
      ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
      ...(f['clear-webhook-secret'] ? { webhookSecret: null } : f['webhook-secret'] ? { webhookSecret: f['webhook-secret'] } : {}),
    };
    const provider = await this.storeRequest('PUT', `/v1/store/payment-providers/${pg}`, { body });
    this.output(provider, () => this.showProvider(provider));
  }
}
