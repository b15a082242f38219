import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class ApprovalsList extends ApiCommand<typeof ApprovalsList> {
  static override summary = "List AI agents' approval requests, newest first (default: pending)";
  static override examples = ['<%= config.bin %> approvals list', '<%= config.bin %> approvals list --status SUCCEEDED --json'];
  static override flags = {
    ...pageFlags(),
    status: Flags.string({
      options: ['PENDING', 'EXECUTING', 'SUCCEEDED', 'FAILED', 'UNKNOWN', 'REJECTED', 'EXPIRED'],
      description: 'Only requests in this status',
      default: 'PENDING',
    }),
  };

  async run() {
    const f = this.flags;
    const data = await this.storeRequest('GET', '/v1/approval-requests', { query: { page: f.page, size: f.size, status: f.status } });
    this.outputList(data, () => {
      this.table(
        data.contents.map((a: any) => ({ ...a, requestedBy: a.requestedBy.name, request: `${a.request.method} ${a.request.path}` })),
        ['approvalId', 'status', 'operationId', 'request', 'requestedBy', 'expiresAt'],
      );
      this.log(pageSummary(data, 'approval requests'));
    });
  }
}
