import { AnalyticsCommand } from '../../cli/analytics.js';

export default class AnalyticsSources extends AnalyticsCommand<typeof AnalyticsSources> {
  static override summary = 'Per source (utm_source, else referrer host): sessions and what they led to';
  static override examples = [
    '<%= config.bin %> analytics sources --from 2026-11-01 --to 2026-11-30',
    '<%= config.bin %> analytics sources --csv > sources.csv',
  ];
  protected readonly report = 'sources';
}
