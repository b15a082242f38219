import { Flags } from '@oclif/core';
import { readFileSync } from 'node:fs';
import { ApiCommand } from '../../cli/api-command.js';

export default class WebhooksVerify extends ApiCommand<typeof WebhooksVerify> {
  static override summary = 'Check a webhook signature the way a receiver must (the same verifyWebhook the package exports)';
  static override examples = [`<%= config.bin %> webhooks verify --secret whsec_… --header 't=1763700000,v1=5f…' --body @request-body.json`];
  static override flags = {
    secret: Flags.string({ description: 'Subscription secret (repeat during a rotation)', required: true, multiple: true }),
    header: Flags.string({ description: 'The Svc-Signature header value as received', required: true }),
    body: Flags.string({ description: 'The raw body: @file (bytes as received) or the text itself', required: true }),
    tolerance: Flags.integer({ description: 'Accepted clock distance in seconds', default: 300, min: 0 }),
  };

  async run() {
    const { verifyWebhook } = await import('../../kernel/webhook-signature.js');
    const f = this.flags;
    const body = f.body.startsWith('@') ? readFileSync(f.body.slice(1)) : f.body;
    const result = verifyWebhook({ secret: f.secret, header: f.header, body, toleranceSeconds: f.tolerance });
    this.output(result, () => this.log(result.valid ? `✓ valid (signed at ${new Date(result.timestamp * 1000).toISOString()})` : `✗ ${result.reason}`));
    if (!result.valid) process.exitCode = 1;
  }
}
