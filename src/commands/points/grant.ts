import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class PointsGrant extends ApiCommand<typeof PointsGrant> {
  static override summary = 'Give a buyer points (or take some back with a negative amount, up to the balance)';
  static override examples = [
    '<%= config.bin %> points grant cus_… 3000 --reason "리뷰 이벤트"',
    '<%= config.bin %> points grant cus_… 5000 --reason "사과 적립" --expires-at 2027-06-30T23:59:59+09:00',
    '<%= config.bin %> points grant cus_… -- -1200 --reason "잘못 지급" --json',
  ];
  static override args = {
    customerId: Args.string({ required: true, description: 'Customer id (cus_…)' }),
    amount: Args.integer({ required: true, description: 'Points in won: positive gives, negative takes back' }),
  };
  static override flags = {
    reason: Flags.string({ required: true, description: 'Why (kept on the ledger entry)' }),
    'expires-at': Flags.string({ description: "When given points lapse (ISO 8601); default: the policy's validity" }),
  };

  async run() {
    const { customerId, amount } = this.args;
    const result = await this.storeRequest('POST', `/v1/customers/${encodeURIComponent(customerId)}/points`, {
      body: { amount, reason: this.flags.reason, expiresAt: this.flags['expires-at'] },
    });
    this.output(result, () =>
      this.log(
        `${result.entry.kind} ${result.entry.amount.toLocaleString('ko-KR')} → balance ${result.balance.toLocaleString('ko-KR')}원${result.entry.expiresAt ? ` (valid until ${result.entry.expiresAt})` : ''}`,
      ),
    );
  }
}
