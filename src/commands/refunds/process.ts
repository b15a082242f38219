import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class RefundsProcess extends ApiCommand<typeof RefundsProcess> {
  static override summary = 'Retry a HELD refund (the gateway could not refund then: balance, pending settlement)';
  static override examples = ['<%= config.bin %> refunds process rfd_…', '<%= config.bin %> refunds process rfd_… --json'];
  static override args = { refundId: Args.string({ required: true, description: 'Refund id (rfd_…; in svc payments get)' }) };

  async run() {
    const refund = await this.storeRequest('POST', `/v1/payments/refunds/${encodeURIComponent(this.args.refundId)}/process`);
    this.output(refund, () =>
      this.log(`${refund.refundId} ${refund.status} · ${refund.amount.toLocaleString('ko-KR')}원${refund.heldReason ? ` · held: ${refund.heldReason}` : ''}`),
    );
  }
}
