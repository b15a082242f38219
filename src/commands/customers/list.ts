import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class CustomersList extends ApiCommand<typeof CustomersList> {
  static override summary = "List the store's buyers, newest first; --keyword matches name, e-mail or phone";
  static override examples = ['<%= config.bin %> customers list', '<%= config.bin %> customers list --keyword 010-1234 --json'];
  static override flags = { ...pageFlags(), keyword: Flags.string({ description: 'Name, e-mail or phone contains' }) };

  async run() {
    const data = await this.storeRequest('GET', '/v1/customers', { query: { page: this.flags.page, size: this.flags.size, keyword: this.flags.keyword } });
    this.outputList(data, () => {
      this.table(
        data.contents.map((c: any) => ({ ...c, member: c.member ? 'yes' : '', withdrawn: c.withdrawnAt ? 'withdrawn' : '' })),
        ['customerId', 'name', 'email', 'phone', 'member', 'withdrawn', 'createdAt'],
      );
      this.log(pageSummary(data, 'buyers'));
    });
  }
}
