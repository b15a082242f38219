import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class PointsLedger extends ApiCommand<typeof PointsLedger> {
  static override summary = "A buyer's point balance and ledger, newest first";
  static override examples = ['<%= config.bin %> points ledger cus_…', '<%= config.bin %> points ledger cus_… --page 2 --json'];
  static override args = { customerId: Args.string({ required: true, description: 'Customer id (cus_…)' }) };
  static override flags = { ...pageFlags() };

  async run() {
    const data = await this.storeRequest('GET', `/v1/customers/${encodeURIComponent(this.args.customerId)}/points`, {
      query: { page: this.flags.page, size: this.flags.size },
    });
    this.output(data, () => {
      this.log(`Balance ${data.balance.toLocaleString('ko-KR')}원`);
      this.table(
        data.contents.map((e: any) => ({ ...e, order: e.orderId ?? '', expires: e.expiresAt ?? '' })),
        ['createdAt', 'kind', 'amount', 'balanceAfter', 'reason', 'order', 'expires'],
        { money: ['amount', 'balanceAfter'] },
      );
      this.log(pageSummary(data, 'entries'));
    });
  }
}
