import { Flags } from '@oclif/core';
import { OrderItemFlowCommand } from '../../cli/flows.js';

export default class OrdersDispatch extends OrderItemFlowCommand<typeof OrdersDispatch> {
  static override summary = 'Dispatch an order item with its carrier and tracking number (flow action DISPATCH)';
  static override examples = ['<%= config.bin %> orders dispatch oi_… --carrier CJ대한통운 --tracking-no 123456789012'];
  static override flags = {
    carrier: Flags.string({ description: 'Carrier name', required: true }),
    'tracking-no': Flags.string({ description: 'Tracking number', required: true }),
  };

  async run() {
    await this.move('dispatch', { carrier: this.flags.carrier, trackingNo: this.flags['tracking-no'] });
  }
}
