import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { EVENT_TYPES } from '../../kernel/event-types.js';
import { webhookArg } from '../../cli/webhooks.js';

export default class WebhooksTest extends ApiCommand<typeof WebhooksTest> {
  static override summary = "Send a signed sample event to the subscription now and show the receiver's answer (not recorded, no retry)";
  static override examples = ['<%= config.bin %> webhooks test wh_… --event ORDER.PAID'];
  static override args = { webhookId: webhookArg };
  static override flags = {
    event: Flags.option({ options: EVENT_TYPES, description: 'Event type of the sample', default: 'ORDER.PAID' })(),
  };

  async run() {
    const data = await this.storeRequest('POST', `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}/test`, { body: { eventType: this.flags.event } });
    this.output(data, () => {
      const result = data.success
        ? `${data.responseStatusCode}`
        : `${data.failureReason} (${data.errorCode}${data.responseStatusCode ? `, HTTP ${data.responseStatusCode}` : ''})`;
      this.log(`${data.success ? '✓' : '✗'} ${data.eventType} ${data.eventId} → ${result} in ${data.responseTimeMs} ms`);
      if (data.responseBodyExcerpt) this.log(`  response: ${data.responseBodyExcerpt}`);
    });
    if (!data.success) process.exitCode = 1;
  }
}
