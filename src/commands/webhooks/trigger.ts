import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { EVENT_TYPES } from '../../kernel/event-types.js';

export default class WebhooksTrigger extends ApiCommand<typeof WebhooksTrigger> {
  static override summary = 'Cause a real event in the (svc dev) store: ORDER.PAID makes a sandbox purchase; other types are emitted with sample data';
  static override description = [
    'ORDER.PAID runs `svc checkout try` (a guest sandbox purchase), so subscriptions and `svc webhooks listen` see exactly what a real payment sends.',
    'Other types go through the event outbox with sample data via POST /_dev/v1/events (svc dev only) until their flows have a CLI of their own.',
  ].join('\n');
  static override examples = ['<%= config.bin %> webhooks trigger ORDER.PAID', '<%= config.bin %> webhooks trigger CLAIM.COMPLETED --json'];
  static override args = { type: Args.string({ description: 'Event type', required: true, options: EVENT_TYPES }) };

  async run() {
    if (this.args.type === 'ORDER.PAID') {
      const passOn = [
        ['--profile', this.flags.profile],
        ['--store', this.flags.store],
      ].flatMap(([flag, value]) => (value ? [flag!, value] : []));
      await this.config.runCommand('checkout:try', [...passOn, ...(this.flags.json ? ['--json'] : [])]);
      return;
    }
    const data = await this.storeRequest('POST', '/_dev/v1/events', { body: { type: this.args.type } });
    this.output(data, () => this.log(`Emitted ${data.type} ${data.eventId}${data.sequence === null ? '' : ` (sequence ${data.sequence})`}.`));
  }
}
