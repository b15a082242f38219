import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { eventList, eventsFlag } from '../../cli/webhooks.js';

export default class WebhooksCreate extends ApiCommand<typeof WebhooksCreate> {
  static override summary = 'Subscribe an https URL to event types; prints the signing secret once';
  static override examples = [
    '<%= config.bin %> webhooks create --url https://example.com/hooks/svc --events ORDER.PAID,CLAIM.COMPLETED',
    '# local receivers need svc dev --unsafe-allow-webhook-hosts 127.0.0.1',
    '<%= config.bin %> webhooks create --url http://127.0.0.1:3000/hook --events ORDER.PAID',
  ];
  static override flags = {
    url: Flags.string({ description: 'Receiver URL (https; no user info; public address)', required: true }),
    events: eventsFlag(true),
  };

  async run() {
    const eventTypes = eventList(this.flags.events!);
    const data = await this.storeRequest('POST', '/v1/webhooks', { body: { url: this.flags.url, eventTypes } });
    this.output(data, () => {
      this.log(`Created ${data.webhookId} → ${data.url} (${data.eventTypes.join(', ')})`);
      this.log(`Signing secret (shown only now; keep it in your receiver's secret store):\n  ${data.secret}`);
      this.log(`Check it: svc webhooks test ${data.webhookId} --event ${data.eventTypes[0]}`);
    });
  }
}
