import { AnalyticsCommand } from '../../cli/analytics.js';

export default class AnalyticsProducts extends AnalyticsCommand<typeof AnalyticsProducts> {
  static override summary = 'Per product: views, click-through rate, cart adds, purchases and item amounts';
  static override examples = [
    '<%= config.bin %> analytics products --from 2026-11-01 --to 2026-11-30',
    '<%= config.bin %> analytics products --csv > products.csv',
  ];
  protected readonly report = 'products';
}
