import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class ClaimsList extends ApiCommand<typeof ClaimsList> {
  static override summary = 'List claims (cancels, returns, exchanges), newest first';
  static override examples = ['<%= config.bin %> claims list --status REQUESTED', '<%= config.bin %> claims list --type RETURN --from 2026-11-01 --json'];
  static override flags = {
    ...pageFlags(),
    status: Flags.string({
      options: ['REQUESTED', 'APPROVED', 'PICKUP_COMPLETED', 'RESHIPPED', 'COMPLETED', 'REJECTED', 'WITHDRAWN'],
      description: 'Only claims in this status',
    }),
    type: Flags.string({ options: ['CANCEL', 'RETURN', 'EXCHANGE'], description: 'Only this kind of claim' }),
    order: Flags.string({ description: 'Only claims of this order' }),
    from: Flags.string({ description: 'Filed from (YYYY-MM-DD, Korean date)' }),
    to: Flags.string({ description: 'Filed to (YYYY-MM-DD, inclusive)' }),
  };

  async run() {
    const f = this.flags;
    const data = await this.storeRequest('GET', '/v1/claims', {
      query: { page: f.page, size: f.size, status: f.status, claimType: f.type, orderId: f.order, from: f.from, to: f.to },
    });
    this.outputList(data, () => {
      this.table(
        data.contents.map((c: any) => ({ ...c, type: c.claimType, refund: c.refundAmount })),
        ['claimId', 'claimNo', 'type', 'status', 'quantity', 'reason', 'refund', 'createdAt'],
        { money: ['refund'] },
      );
      this.log(pageSummary(data, 'claims'));
    });
  }
}
