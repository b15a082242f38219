import { AnalyticsCommand } from '../../cli/analytics.js';

export default class AnalyticsSearch extends AnalyticsCommand<typeof AnalyticsSearch> {
  static override summary = 'Per search term: searches, zero-result searches, purchases after searching';
  static override examples = ['<%= config.bin %> analytics search --from 2026-11-01 --to 2026-11-30', '<%= config.bin %> analytics search --csv > search.csv'];
  protected readonly report = 'search';

  protected override render(report: any) {
    super.render(report);
    if (report.zeroResultTerms.length) this.log(`zero results: ${report.zeroResultTerms.map((t: any) => `${t.term} (${t.searches})`).join(', ')}`);
  }
}
