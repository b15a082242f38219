import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class PaymentsList extends ApiCommand<typeof PaymentsList> {
  static override summary = 'List payment records, newest first (default: last 30 days, real payments only)';
  static override examples = [
    '<%= config.bin %> payments list --include-test',
    '<%= config.bin %> payments list --status APPROVED,CANCELED --provider pg_one --from 2026-11-01 --to 2026-11-21',
    '<%= config.bin %> payments list --include-test --search 20261121-000001',
  ];
  static override flags = {
    ...pageFlags(),
    status: Flags.string({ description: 'Comma-separated: READY, CONFIRMING, APPROVED, PARTIALLY_REFUNDED, CANCELED, FAILED' }),
    provider: Flags.option({ options: ['pg_one', 'pg_two'] as const, description: 'Gateway' })(),
    method: Flags.option({ options: ['CARD', 'BANK_TRANSFER', 'VIRTUAL_ACCOUNT', 'MOBILE', 'EASY_PAY', 'POINT'] as const, description: 'Actual method' })(),
    'include-test': Flags.boolean({ description: 'Include test (sandbox) payments' }),
    from: Flags.string({ description: 'From (YYYY-MM-DD, Korean date; period at most 92 days)' }),
    to: Flags.string({ description: 'To (YYYY-MM-DD, inclusive)' }),
    search: Flags.string({ description: 'Order number, transaction number, payment id, attempt id (exact) or buyer name (contains)' }),
  };

  async run() {
    const f = this.flags;
    const data = await this.storeRequest('GET', '/v1/payments', {
      query: {
        page: f.page,
        size: f.size,
        status: f.status,
        provider: f.provider,
        method: f.method,
        includeTest: f['include-test'] || undefined,
        from: f.from,
        to: f.to,
        keyword: f.search,
      },
    });
    this.outputList(data, () => {
      this.table(
        data.contents.map((p: any) => ({ ...p, test: p.testPayment ? 'test' : '' })),
        ['paymentId', 'orderNo', 'status', 'amount', 'provider', 'method', 'test', 'createdAt'],
        { money: ['amount'] },
      );
      this.log(`${pageSummary(data, 'payments')} ${data.from}..${data.to}${f['include-test'] ? '' : ' (test payments hidden: add --include-test)'}`);
    });
  }
}
