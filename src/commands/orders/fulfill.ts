import { Flags } from '@oclif/core';
import { OrderItemFlowCommand } from '../../cli/flows.js';

export default class OrdersFulfill extends OrderItemFlowCommand<typeof OrdersFulfill> {
  static override summary = 'Mark a no-shipping (MANUAL) item supplied, with an optional note the buyer sees (flow action FULFILL)';
  static override examples = ['<%= config.bin %> orders fulfill oi_… --note "쿠폰 번호 1234-5678"'];
  static override flags = { note: Flags.string({ description: 'Note for the buyer (coupon number, how to use it, …)' }) };

  async run() {
    await this.move('fulfill', this.flags.note === undefined ? {} : { note: this.flags.note });
  }
}
