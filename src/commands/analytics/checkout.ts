import { AnalyticsCommand, bar } from '../../cli/analytics.js';

export default class AnalyticsCheckout extends AnalyticsCommand<typeof AnalyticsCheckout> {
  static override summary = 'The checkout funnel as bars, and payment results per payment request';
  static override examples = [
    '<%= config.bin %> analytics checkout --from 2026-11-01 --to 2026-11-30',
    '<%= config.bin %> analytics checkout --csv > checkout.csv',
  ];
  protected readonly report = 'checkout';

  protected override render(report: any) {
    this.heading(report);
    const all = Math.max(0, ...report.rows.map((r: any) => r.sessions));
    for (const r of report.rows) this.log(`${r.step.padEnd(15)} ${bar(r.sessions, all).padEnd(30)} ${r.sessions} ${r.rate === null ? '' : `(${r.rate}%)`}`);
    this.log('');
    this.table(report.paymentResults, ['result', 'count']);
  }
}
