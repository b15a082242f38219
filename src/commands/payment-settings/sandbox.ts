import { Args } from '@oclif/core';
import { PaymentSettingsCommand, providerArg } from './get.js';

export default class PaymentSettingsSandbox extends PaymentSettingsCommand<typeof PaymentSettingsSandbox> {
  static override summary = 'Switch a provider to sandbox (test keys) or off to live (needs the live gate open)';
  static override examples = ['<%= config.bin %> payment-settings sandbox pg_one off', '<%= config.bin %> payment-settings sandbox pg_one on'];
  static override args = { provider: providerArg, mode: Args.string({ description: 'on (sandbox) or off (live)', required: true, options: ['on', 'off'] }) };

  async run() {
    const provider = await this.storeRequest('PATCH', `/v1/store/payment-providers/${this.args.provider}`, { body: { sandboxMode: this.args.mode === 'on' } });
    this.output(provider, () => this.showProvider(provider));
  }
}
