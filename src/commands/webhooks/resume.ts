import { ApiCommand } from '../../cli/api-command.js';
import { webhookArg } from '../../cli/webhooks.js';

export default class WebhooksResume extends ApiCommand<typeof WebhooksResume> {
  static override summary = 'Reactivate a suspended subscription (then: svc webhooks redeliver WEBHOOK_ID --failed)';
  static override args = { webhookId: webhookArg };

  async run() {
    const data = await this.storeRequest('POST', `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}/resume`);
    this.output(data, () => this.log(`${data.webhookId} is ${data.status}.`));
  }
}
