import { Flags } from '@oclif/core';
import { PaymentSettingsCommand, providerArg } from './get.js';

export default class PaymentSettingsEnable extends PaymentSettingsCommand<typeof PaymentSettingsEnable> {
  static override summary = 'Enable a provider for checkout (needs keys for its mode), or disable it with --off';
  static override examples = ['<%= config.bin %> payment-settings enable pg_one', '<%= config.bin %> payment-settings enable pg_two --off'];
  static override args = { provider: providerArg };
  static override flags = {
    off: Flags.boolean({ description: 'Disable instead' }),
    'easy-pay': Flags.string({ description: 'Easy-pay providers offered directly, comma-separated (EASYPAY_1..EASYPAY_4; "" for none)' }),
  };

  async run() {
    const easy = this.flags['easy-pay'];
    const body = {
      enabled: !this.flags.off,
      ...(easy === undefined
        ? {}
        : {
            easyPayProviders: easy
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          }),
    };
    const provider = await this.storeRequest('PATCH', `/v1/store/payment-providers/${this.args.provider}`, { body });
    this.output(provider, () => this.showProvider(provider));
  }
}
