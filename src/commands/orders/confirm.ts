import { OrderItemFlowCommand } from '../../cli/flows.js';

export default class OrdersConfirm extends OrderItemFlowCommand<typeof OrdersConfirm> {
  static override summary = 'Confirm an order item (its flow action CONFIRM: PAID → CONFIRMED in the default SHIPPING flow)';
  static override examples = ['<%= config.bin %> orders confirm oi_…'];

  async run() {
    await this.move('confirm');
  }
}
