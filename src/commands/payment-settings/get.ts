import type { Command } from '@oclif/core';
import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export const providerArg = Args.string({ description: 'Provider: pg_one or pg_two', required: true, options: ['pg_one', 'pg_two'] });

/** Commands that show payment providers (store-platform OWNER only; secrets arrive masked). */
export abstract class PaymentSettingsCommand<T extends typeof Command> extends ApiCommand<T> {
  protected showProvider(p: any) {
    const gate = p.liveGate ? `${p.liveGate.status} (${p.liveGate.conditions.filter((c: any) => c.met).length}/${p.liveGate.conditions.length})` : '-';
    this.log(`${p.provider} (${p.pgName}): ${p.status}${p.routingExclusion ? ` — ${p.routingExclusion}` : ''}`);
    if (!p.connected) return;
    this.log(
      `  enabled ${p.enabled} · sandboxMode ${p.sandboxMode} · keys in use ${p.environment} · live gate ${gate} · retired key sets ${p.retiredCredentialCount}`,
    );
    if (p.easyPayProviders.length) this.log(`  easy pay: ${p.easyPayProviders.join(', ')}`);
    for (const env of ['TEST', 'LIVE']) {
      const set = p.credentialSets[env];
      if (!set) continue;
      const id = set.clientKey ?? `${set.storeId}, ${set.channels.length} channel(s)`;
      const secrets = set.secrets
        .filter((s: any) => s.set)
        .map((s: any) => `${s.field}=${s.masked}`)
        .join(' ');
      this.log(`  ${env}: ${id} · ${secrets} · check ${set.verification.status}${set.verification.code ? ` (${set.verification.code})` : ''}`);
    }
    for (const c of p.liveGate?.conditions ?? []) if (!c.met) this.log(`  ✗ ${c.code}: ${c.message}`);
  }
}

export default class PaymentSettingsGet extends PaymentSettingsCommand<typeof PaymentSettingsGet> {
  static override summary = 'Show payment providers, key sets (masked), live gates, candidates and warnings';
  static override examples = ['<%= config.bin %> payment-settings get', '<%= config.bin %> payment-settings get --json'];

  async run() {
    const settings = await this.storeRequest('GET', '/v1/store/payment-settings');
    this.output(settings, () => {
      this.log(`Checkout: ${settings.environment ?? 'not possible (no provider in use)'} · candidates ${settings.candidates.join(' > ') || '(none)'}`);
      if (settings.checkoutOrigins.length) this.log(`Checkout origins: ${settings.checkoutOrigins.join(', ')}`);
      for (const p of settings.providers) this.showProvider(p);
      for (const w of settings.warnings) this.log(`⚠ ${w.message}`);
    });
  }
}
