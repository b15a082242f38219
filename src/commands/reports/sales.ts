import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

const BAR_WIDTH = 30;

export default class ReportsSales extends ApiCommand<typeof ReportsSales> {
  static override summary = 'Payments, refunds and net by Korean date, gateway or method, with a bar per row (--csv for spreadsheets)';
  static override examples = [
    '<%= config.bin %> reports sales --from 2026-11-01 --to 2026-11-30',
    '<%= config.bin %> reports sales --group-by METHOD --include-test',
    '<%= config.bin %> reports sales --from 2026-11-01 --to 2026-11-30 --csv > sales.csv',
  ];
  static override flags = {
    from: Flags.string({ description: 'From (YYYY-MM-DD, Korean date; default 29 days before --to)' }),
    to: Flags.string({ description: 'To (YYYY-MM-DD, inclusive; default today; at most 92 days in all)' }),
    'group-by': Flags.string({ options: ['DAY', 'PROVIDER', 'METHOD', 'PROVIDER_METHOD'], default: 'DAY', description: 'Rows per' }),
    provider: Flags.string({ options: ['pg_one', 'pg_two'], description: 'Only this gateway' }),
    method: Flags.string({ options: ['CARD', 'BANK_TRANSFER', 'VIRTUAL_ACCOUNT', 'MOBILE', 'EASY_PAY'], description: 'Only this method' }),
    'include-test': Flags.boolean({ description: 'Count test (sandbox) payments and their refunds too' }),
    csv: Flags.boolean({ description: 'Print CSV instead of a table', exclusive: ['json'] }),
  };

  async run() {
    const f = this.flags;
    const report = await this.storeRequest('GET', '/v1/sales-report', {
      query: { from: f.from, to: f.to, groupBy: f['group-by'], provider: f.provider, method: f.method, includeTest: f['include-test'] ? 'true' : undefined },
    });
    const label = (r: any) => [r.date, r.provider, r.method].filter(Boolean).join(' ') || 'all';
    if (f.csv) {
      this.log('group,paymentCount,paymentAmount,refundCount,refundAmount,netAmount');
      for (const r of report.rows) this.log([label(r), r.paymentCount, r.paymentAmount, r.refundCount, r.refundAmount, r.netAmount].join(','));
      return;
    }
    this.output(report, () => {
      const most = Math.max(1, ...report.rows.map((r: any) => Math.abs(r.netAmount)));
      this.log(`${report.from} .. ${report.to} (${report.timezone}, ${report.currency})${report.includeTest ? ' · test payments included' : ''}`);
      this.table(
        report.rows.map((r: any) => ({
          group: label(r),
          payments: r.paymentCount,
          paid: r.paymentAmount,
          refunds: r.refundCount,
          refunded: r.refundAmount,
          net: r.netAmount,
          bar: '█'.repeat(Math.round((Math.max(0, r.netAmount) / most) * BAR_WIDTH)),
        })),
        ['group', 'payments', 'paid', 'refunds', 'refunded', 'net', 'bar'],
        { money: ['paid', 'refunded', 'net'] },
      );
      const s = report.summary;
      this.log(
        `total: ${s.paymentCount} payments ${s.paymentAmount.toLocaleString('ko-KR')}원 − ${s.refundCount} refunds ${s.refundAmount.toLocaleString('ko-KR')}원 = ${s.netAmount.toLocaleString('ko-KR')}원`,
      );
    });
  }
}
