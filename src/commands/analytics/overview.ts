import { AnalyticsCommand, bar, sparkline } from '../../cli/analytics.js';

export default class AnalyticsOverview extends AnalyticsCommand<typeof AnalyticsOverview> {
  static override summary = 'Sessions, visitors, page views, dwell and purchases by Korean date, with sparklines';
  static override examples = [
    '<%= config.bin %> analytics overview --from 2026-11-01 --to 2026-11-30',
    '<%= config.bin %> analytics overview --csv > overview.csv',
  ];
  protected readonly report = 'overview';

  protected override render(report: any) {
    this.heading(report);
    for (const metric of ['sessions', 'visitors', 'pageViews', 'purchases', 'purchaseAmount'] as const) {
      this.log(`${metric.padEnd(15)} ${sparkline(report.rows.map((r: any) => r[metric]))} ${report.summary[metric].toLocaleString('ko-KR')}`);
    }
    const most = Math.max(0, ...report.rows.map((r: any) => r.sessions));
    this.table(
      report.rows.map((r: any) => ({ ...r, bar: bar(r.sessions, most) })),
      ['date', 'sessions', 'engagedSessions', 'visitors', 'pageViews', 'cartAdds', 'checkoutStarts', 'purchases', 'purchaseAmount', 'bar'],
      { money: ['purchaseAmount'] },
    );
  }
}
