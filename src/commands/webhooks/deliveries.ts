import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { EVENT_TYPES } from '../../kernel/event-types.js';
import { deliveryColumns, deliveryRow, webhookArg } from '../../cli/webhooks.js';

export default class WebhooksDeliveries extends ApiCommand<typeof WebhooksDeliveries> {
  static override summary = 'Delivery records of the last 30 days (newest first), or one record with its request';
  static override examples = [
    '<%= config.bin %> webhooks deliveries wh_… --status FAILED',
    '<%= config.bin %> webhooks deliveries wh_… --resource-id ord_…',
    '<%= config.bin %> webhooks deliveries wh_… whd_…',
  ];
  static override args = {
    webhookId: webhookArg,
    deliveryId: Args.string({ description: 'Show this record in full (payload, request headers)' }),
  };
  static override flags = {
    status: Flags.option({ options: ['PENDING', 'PENDING_RETRY', 'SUCCESS', 'FAILED'] as const, description: 'Only records in this state' })(),
    'event-type': Flags.option({ options: EVENT_TYPES, description: 'Only this event type' })(),
    'resource-id': Flags.string({ description: 'Any id in the event data (an order id also finds its claim and stock events)' }),
    limit: Flags.integer({ description: 'At most this many (≤ 100)', default: 50, min: 1, max: 100 }),
  };

  async run() {
    const base = `/v1/webhooks/${encodeURIComponent(this.args.webhookId)}/deliveries`;
    if (this.args.deliveryId) {
      const d = await this.storeRequest('GET', `${base}/${encodeURIComponent(this.args.deliveryId)}`);
      this.output(d, () => {
        for (const [k, v] of Object.entries(d))
          if (!['payload', 'requestHeaders', 'responseBodyExcerpt'].includes(k))
            this.log(`${k.padEnd(20)} ${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : v}`);
        this.log('request headers');
        for (const h of d.requestHeaders) this.log(`  ${h.name}: ${h.value ?? '(not kept)'}`);
        this.log(`payload${d.payloadTruncated ? ' (cut at 16 KB)' : ''}${d.payloadMasked ? ' (masked)' : ''}\n  ${d.payload ?? '-'}`);
        if (d.responseBodyExcerpt) this.log(`response body\n  ${d.responseBodyExcerpt}`);
      });
      return;
    }
    const f = this.flags;
    const data = await this.storeRequest('GET', base, {
      query: { status: f.status, eventType: f['event-type'], resourceId: f['resource-id'], limit: f.limit },
    });
    this.outputList(data, (contents: any[]) => this.table(contents.map(deliveryRow), deliveryColumns));
  }
}
