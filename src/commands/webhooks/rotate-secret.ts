import { ApiCommand } from '../../cli/api-command.js';
import { webhookArg } from '../../cli/webhooks.js';

export default class WebhooksRotateSecret extends ApiCommand<typeof WebhooksRotateSecret> {
  static override summary = 'Issue a new signing secret; the previous one keeps signing alongside for 24 hours';
  static override args = { webhookId: webhookArg };

  async run() {
    const data = await this.storeRequest('POST', `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}/rotate-secret`);
    this.output(data, () => {
      this.log(`New secret for ${data.webhookId} (shown only now):\n  ${data.secret}`);
      this.log(`Requests carry two v1 signatures, new first, until ${data.oldSecretExpiresAt}; switch your receiver before then.`);
    });
  }
}
