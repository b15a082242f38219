import { ApprovalCommand } from '../../cli/approvals.js';

export default class ApprovalsApprove extends ApprovalCommand<typeof ApprovalsApprove> {
  static override summary = "Approve an AI agent's held request: it runs once, now (store-platform login, OWNER or ADMIN)";
  static override examples = ['<%= config.bin %> approvals approve apr_…'];

  async run() {
    await this.decide('approve');
  }
}
