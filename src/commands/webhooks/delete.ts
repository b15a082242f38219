import { ApiCommand } from '../../cli/api-command.js';
import { webhookArg } from '../../cli/webhooks.js';

export default class WebhooksDelete extends ApiCommand<typeof WebhooksDelete> {
  static override summary = 'Delete a subscription with its delivery records; pending sends are cancelled';
  static override args = { webhookId: webhookArg };

  async run() {
    const data = await this.storeRequest('DELETE', `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}`);
    this.output(data, () => this.log(`Deleted ${data.webhookId}.`));
  }
}
