import { OrderItemFlowCommand } from '../../cli/flows.js';

export default class OrdersDeliver extends OrderItemFlowCommand<typeof OrdersDeliver> {
  static override summary = 'Mark an order item delivered (flow action DELIVER; the flow also does it 7 days after dispatch)';
  static override examples = ['<%= config.bin %> orders deliver oi_…'];

  async run() {
    await this.move('delivered');
  }
}
