import { ApiCommand } from '../../cli/api-command.js';
import { webhookColumns, webhookRow } from '../../cli/webhooks.js';

export default class WebhooksList extends ApiCommand<typeof WebhooksList> {
  static override summary = "List the store's webhook subscriptions";

  async run() {
    const data = await this.storeRequest('GET', '/v1/webhooks');
    this.outputList(data, (contents: any[]) => this.table(contents.map(webhookRow), webhookColumns));
  }
}
