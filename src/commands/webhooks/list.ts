import { ApiCommand } from '../../cli/api-command.js';
import { webhookColumns, webhookRow } from '../../cli/webhooks.js';

export default class WebhooksList extends ApiCommand<typeof WebhooksList> {
  static override summary = "List the store's webhook subscriptions";

  async run() {
    const data = await this.storeRequest('GET', '/v1/webhooks');
    this.output(data.contents, () => this.table(data.contents.map(webhookRow), webhookColumns));
  }
}
