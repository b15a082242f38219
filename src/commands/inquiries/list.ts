import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class InquiriesList extends ApiCommand<typeof InquiriesList> {
  static override summary = "List buyers' questions, newest first";
  static override examples = ['<%= config.bin %> inquiries list --unanswered', '<%= config.bin %> inquiries list --kind PRODUCT --json'];
  static override flags = {
    ...pageFlags(),
    kind: Flags.string({ options: ['PRODUCT', 'PERSONAL'], description: 'Product questions or one-to-one ones' }),
    unanswered: Flags.boolean({ description: 'Only questions without an answer' }),
  };

  async run() {
    const data = await this.storeRequest('GET', '/v1/inquiries', {
      query: { page: this.flags.page, size: this.flags.size, kind: this.flags.kind, answered: this.flags.unanswered ? 'false' : undefined },
    });
    this.outputList(data, () => {
      this.table(
        data.contents.map((i: any) => ({ ...i, product: i.productId ?? '', answered: i.answer ? 'yes' : 'no', secret: i.secret ? 'secret' : '' })),
        ['inquiryId', 'kind', 'title', 'product', 'secret', 'answered', 'createdAt'],
      );
      this.log(pageSummary(data, 'questions'));
    });
  }
}
