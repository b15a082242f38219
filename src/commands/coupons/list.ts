import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { benefitText } from '../../cli/coupons.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class CouponsList extends ApiCommand<typeof CouponsList> {
  static override summary = "List the store's coupons, newest first";
  static override examples = ['<%= config.bin %> coupons list', '<%= config.bin %> coupons list --status ACTIVE --type DOWNLOAD --json'];
  static override flags = {
    ...pageFlags(),
    status: Flags.string({ options: ['ACTIVE', 'SUSPENDED', 'ENDED'], description: 'Only coupons in this status' }),
    type: Flags.string({ options: ['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE'], description: 'Only coupons issued this way' }),
  };

  async run() {
    const data = await this.storeRequest('GET', '/v1/coupons', {
      query: { page: this.flags.page, size: this.flags.size, status: this.flags.status, issueType: this.flags.type },
    });
    this.outputList(data, () => {
      this.table(
        data.contents.map((c: any) => ({
          ...c,
          benefit: benefitText(c.benefit),
          issued: `${c.issuedCount}${c.totalQuantity ? `/${c.totalQuantity}` : ''}`,
          used: c.usedCount,
          type: c.issueType,
        })),
        ['couponId', 'name', 'type', 'code', 'benefit', 'status', 'issued', 'used'],
      );
      this.log(pageSummary(data, 'coupons'));
    });
  }
}
