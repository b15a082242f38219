import { Args } from '@oclif/core';
import { won } from '../../cli/format.js';
import { ApiCommand } from '../../cli/api-command.js';

export default class PaymentsGet extends ApiCommand<typeof PaymentsGet> {
  static override summary = 'Show a payment record with its attempts (in window order), refunds and cash receipt';
  static override args = { paymentId: Args.string({ required: true, description: 'Payment id (pay_…)' }) };

  async run() {
    const p = await this.storeRequest('GET', `/v1/payments/${encodeURIComponent(this.args.paymentId)}`);
    this.output(p, () => {
      this.log(`Payment ${p.paymentId} · ${p.status} · ${won(p.amount)}${p.testPayment ? ' · TEST' : ''}`);
      this.log(
        `  order ${p.orderNo}${p.orderId ? ` (${p.orderId})` : ' (no order)'} · ${p.provider ?? '-'} ${p.method ?? '-'} · pgOrderId ${p.pgOrderId ?? '-'} · tx ${p.pgTransactionId ?? '-'}`,
      );
      this.log('Attempts:');
      this.table(
        p.attempts.map((a: any) => ({ ...a, failure: a.failure?.code ?? null })),
        ['seq', 'attemptId', 'pgOrderId', 'provider', 'method', 'status', 'approvedAmount', 'failure'],
        { money: ['approvedAmount'] },
      );
      if (p.refunds.length) {
        this.log('Refunds:');
        this.table(p.refunds, ['refundId', 'amount', 'reason', 'status', 'completedAt'], { money: ['amount'] });
      }
      if (p.cashReceipt) this.log(`Cash receipt: ${p.cashReceipt.type} ${p.cashReceipt.identityNumber} · ${p.cashReceipt.status}`);
    });
  }
}
