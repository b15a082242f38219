import { ApprovalCommand } from '../../cli/approvals.js';

export default class ApprovalsReject extends ApprovalCommand<typeof ApprovalsReject> {
  static override summary = "Reject an AI agent's held request: it never runs (store-platform login, OWNER or ADMIN)";
  static override examples = ['<%= config.bin %> approvals reject apr_…'];

  async run() {
    await this.decide('reject');
  }
}
