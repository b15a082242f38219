import { OrderItemFlowCommand } from '../../cli/flows.js';

export default class OrdersFlow extends OrderItemFlowCommand<typeof OrdersFlow> {
  static override summary = "Show an order item's flow state: its actions (enabled or why not, with inputs) and its timers";
  static override examples = ['<%= config.bin %> orders flow oi_…', '<%= config.bin %> orders flow oi_… --json'];

  async run() {
    const flow = await this.storeRequest('GET', `${this.itemPath}/flow`);
    this.output(flow, () => this.printItemFlow(flow));
  }
}
