import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';

export default class CustomersWithdraw extends ApiCommand<typeof CustomersWithdraw> {
  static override summary = 'Withdraw a buyer: personal fields erased, orders kept, tokens stop; apps holding customer scopes are told';
  static override examples = ['<%= config.bin %> customers withdraw cus_… --yes'];
  static override args = { customerId: Args.string({ required: true, description: 'Customer id (cus_…)' }) };
  static override flags = { yes: Flags.boolean({ description: 'Confirm: this cannot be undone' }) };

  async run() {
    if (!this.flags.yes) throw new UsageError("withdrawal erases the buyer's personal data for good: add --yes to confirm");
    const customer = await this.storeRequest('POST', `/v1/customers/${encodeURIComponent(this.args.customerId)}/withdraw`);
    this.output(customer, () => this.log(`${customer.customerId} withdrawn at ${customer.withdrawnAt}; their orders stay.`));
  }
}
