import { ApprovalCommand } from '../../cli/approvals.js';

export default class ApprovalsGet extends ApprovalCommand<typeof ApprovalsGet> {
  static override summary = 'Show an approval request: status, operation, and its result once it ran';
  static override examples = ['<%= config.bin %> approvals get apr_…'];

  async run() {
    const approval = await this.storeRequest('GET', this.approvalPath);
    this.output(approval, () => this.printApproval(approval));
  }
}
