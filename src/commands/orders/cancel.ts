import { Flags } from '@oclif/core';
import { OrderItemFlowCommand } from '../../cli/flows.js';
import { UsageError } from '../../cli/usage-error.js';

const REASONS = ['OUT_OF_STOCK', 'PRICE_ERROR', 'DELIVERY_IMPOSSIBLE', 'ETC'];

export default class OrdersCancel extends OrderItemFlowCommand<typeof OrdersCancel> {
  static override summary = 'Cancel units of an order item before dispatch (stock back, points then card refunded); --preview shows the money only';
  static override examples = [
    '<%= config.bin %> orders cancel oi_… --quantity 1 --reason OUT_OF_STOCK --preview',
    '<%= config.bin %> orders cancel oi_… --quantity 2 --reason ETC --detail "고객 요청" --json',
  ];
  static override flags = {
    quantity: Flags.integer({ min: 1, description: 'Units to cancel (required unless --preview; the preview without it is of every unit left)' }),
    reason: Flags.string({ options: REASONS, description: 'Why (required unless --preview)' }),
    detail: Flags.string({ description: 'A note kept with the cancel (not sent to webhooks)' }),
    preview: Flags.boolean({ description: 'Show what would be refunded; change nothing' }),
  };

  async run() {
    const f = this.flags;
    const money = (a: any) =>
      this.table(
        [
          { part: 'item', amount: a.itemRefundAmount },
          { part: 'shipping refund', amount: a.deliveryFeeRefundAmount },
          { part: 'shipping charge', amount: -a.deliveryFeeChargeAmount },
          { part: 'refund', amount: a.refundAmount },
          { part: '· as points', amount: a.pointRefundAmount },
          { part: '· by card/cash', amount: a.cashRefundAmount },
        ],
        ['part', 'amount'],
        { money: ['amount'] },
      );
    if (f.preview) {
      const amounts = await this.storeRequest('GET', `${this.itemPath}/cancel-preview`, { query: { quantity: f.quantity } });
      return this.output(amounts, () => money(amounts));
    }
    if (!f.quantity) throw new UsageError('--quantity is required unless --preview');
    if (!f.reason) throw new UsageError(`--reason is required (${REASONS.join(', ')}) unless --preview`);
    const canceled = await this.storeRequest('POST', `${this.itemPath}/cancel`, { body: { quantity: f.quantity, reason: f.reason, detail: f.detail } });
    this.output(canceled, () => {
      this.log(
        `Canceled ${f.quantity} of ${canceled.orderItemId} (${canceled.canceledQuantity} in all) · item ${canceled.itemStatus} · order ${canceled.orderStatus} · refund ${canceled.refundId} ${canceled.refundStatus}`,
      );
      money(canceled.amounts);
    });
  }
}
