import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class CustomersGet extends ApiCommand<typeof CustomersGet> {
  static override summary = 'Show a buyer';
  static override examples = ['<%= config.bin %> customers get cus_…', '<%= config.bin %> customers get cus_… --json'];
  static override args = { customerId: Args.string({ required: true, description: 'Customer id (cus_…)' }) };

  async run() {
    const customer = await this.storeRequest('GET', `/v1/customers/${encodeURIComponent(this.args.customerId)}`);
    this.output(customer, () => {
      this.log(
        `${customer.customerId} · ${customer.name ?? '-'} · ${customer.email ?? '-'} · ${customer.phone ?? '-'}${customer.member ? ' · member' : ''}${customer.withdrawnAt ? ` · withdrawn ${customer.withdrawnAt}` : ''}`,
      );
      this.log(`Since ${customer.createdAt}. Points: svc points ledger ${customer.customerId}`);
    });
  }
}
