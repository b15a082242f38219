import { Flags } from '@oclif/core';
import { AnalyticsCommand, bar, periodFlags } from '../../cli/analytics.js';

export default class AnalyticsRealtime extends AnalyticsCommand<typeof AnalyticsRealtime> {
  static override summary = 'The last 5 minutes from raw events; --watch refreshes in place';
  static override examples = ['<%= config.bin %> analytics realtime', '<%= config.bin %> analytics realtime --watch'];
  static override flags = {
    'include-test': periodFlags['include-test'],
    csv: periodFlags.csv,
    watch: Flags.boolean({ description: 'Refresh in place until interrupted', exclusive: ['json', 'csv'] }),
    interval: Flags.integer({ description: 'Seconds between refreshes with --watch', default: 5, min: 1 }),
  };
  protected readonly report = 'realtime';

  override async run() {
    if (!(this.flags as Record<string, unknown>).watch) return super.run();
    for (;;) {
      const report = await this.fetchReport();
      process.stdout.write('\x1b[2J\x1b[H');
      this.render(report);
      await new Promise((r) => setTimeout(r, Number((this.flags as Record<string, unknown>).interval) * 1000));
    }
  }

  protected override render(report: any) {
    const s = report.summary;
    this.log(
      `${report.from} .. ${report.to} · ${s.visitors} visitors · ${s.pageViews} page views · ${s.cartAdds} cart adds · ${s.checkoutStarts} checkouts · ${s.purchases} purchases (${s.purchaseAmount.toLocaleString('ko-KR')}원) · ${report.excludedBotSessions} bots excluded`,
    );
    const most = Math.max(0, ...report.rows.map((r: any) => r.pageViews));
    this.table(
      report.rows.map((r: any) => ({ ...r, bar: bar(r.pageViews, most) })),
      ['path', 'pageViews', 'visitors', 'bar'],
    );
  }
}
