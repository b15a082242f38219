import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { webhookArg } from '../../cli/webhooks.js';

export default class WebhooksRedeliver extends ApiCommand<typeof WebhooksRedeliver> {
  static override summary = 'Send a FAILED delivery again (once per record), or with --failed every failed one of the last 72 hours';
  static override examples = ['<%= config.bin %> webhooks redeliver wh_… whd_…', '<%= config.bin %> webhooks redeliver wh_… --failed'];
  static override args = {
    webhookId: webhookArg,
    deliveryId: Args.string({ description: 'The FAILED record to send again' }),
  };
  static override flags = {
    failed: Flags.boolean({ description: 'Every unredelivered FAILED record of the last 72 hours (at most 500, oldest first)' }),
  };

  async run() {
    const base = `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}/deliveries`;
    if (Boolean(this.flags.failed) === (this.args.deliveryId !== undefined)) throw new UsageError('give either a DELIVERY_ID or --failed');
    if (this.flags.failed) {
      const data = await this.storeRequest('POST', `${base}/redeliver-failed`);
      this.output(data, () => this.log(`Queued ${data.queued} deliveries.`));
      return;
    }
    const data = await this.storeRequest('POST', `${base}/${encodeURIComponent(this.args.deliveryId!)}/redeliver`);
    this.output(data, () => this.log(`Queued ${data.deliveryId} (event ${data.eventId}, redelivery of ${data.redeliveryOf}).`));
  }
}
