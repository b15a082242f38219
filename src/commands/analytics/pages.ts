import { AnalyticsCommand } from '../../cli/analytics.js';

export default class AnalyticsPages extends AnalyticsCommand<typeof AnalyticsPages> {
  static override summary = 'Per page path: views, sessions, visitors, dwell';
  static override examples = ['<%= config.bin %> analytics pages --from 2026-11-01 --to 2026-11-30', '<%= config.bin %> analytics pages --csv > pages.csv'];
  protected readonly report = 'pages';
}
