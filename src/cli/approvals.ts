import { Args, type Command } from '@oclif/core';
import { ApiCommand } from './api-command.js';

/** Base of the `svc approvals` commands that act on one approval request. */
export abstract class ApprovalCommand<T extends typeof Command> extends ApiCommand<T> {
  static override args = { approvalId: Args.string({ required: true, description: 'Approval request id (apr_…)' }) };

  protected get approvalPath() {
    return `/v1/approval-requests/${encodeURIComponent((this.args as { approvalId: string }).approvalId)}`;
  }

  protected printApproval(a: any) {
    this.log(`${a.approvalId} · ${a.status} · ${a.operationName} (${a.operationId})`);
    this.log(`${a.request.method} ${a.request.path}${a.target ? ` · ${a.target.type} ${a.target.id ?? ''}` : ''}`);
    this.log(`requested by ${a.requestedBy.name} at ${a.createdAt}, expires ${a.expiresAt}${a.decidedAt ? ` · decided ${a.decidedAt} by ${a.decidedBy}` : ''}`);
    if (a.result) this.log(`result: HTTP ${a.result.statusCode}${a.result.error ? ` ${a.result.error.code}: ${a.result.error.message}` : ''}`);
  }

  /** Approve or reject: needs a store-platform login of an OWNER or ADMIN (svc login), never an agent token. */
  protected async decide(verb: 'approve' | 'reject') {
    const approval = await this.storeRequest('POST', `${this.approvalPath}/${verb}`);
    this.output(approval, () => this.printApproval(approval));
  }
}
