import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { eventList, eventsFlag, webhookArg } from '../../cli/webhooks.js';

export default class WebhooksUpdate extends ApiCommand<typeof WebhooksUpdate> {
  static override summary = 'Change URL or event types; also reactivates a suspended subscription and resets its failures';
  static override examples = ['<%= config.bin %> webhooks update wh_… --events ORDER.PAID,ORDER.CANCELED'];
  static override args = { webhookId: webhookArg };
  static override flags = {
    url: Flags.string({ description: 'New receiver URL (default: unchanged)' }),
    events: eventsFlag(false),
  };

  async run() {
    const { url, events } = this.flags;
    if (url === undefined && events === undefined) throw new UsageError('nothing to change: pass --url and/or --events');
    const eventTypes = events === undefined ? undefined : eventList(events);
    // The API replaces the subscription whole (PUT); fields not given keep their current value.
    const current = await this.storeRequest('GET', `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}`);
    const data = await this.storeRequest('PUT', `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}`, {
      body: { url: url ?? current.url, eventTypes: eventTypes ?? current.eventTypes },
    });
    this.output(data, () => this.log(`Updated ${data.webhookId} → ${data.url} (${data.eventTypes.join(', ')}), ${data.status}`));
  }
}
