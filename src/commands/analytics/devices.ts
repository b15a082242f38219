import { AnalyticsCommand } from '../../cli/analytics.js';

export default class AnalyticsDevices extends AnalyticsCommand<typeof AnalyticsDevices> {
  static override summary = 'Per device: sessions and what they led to';
  static override examples = [
    '<%= config.bin %> analytics devices --from 2026-11-01 --to 2026-11-30',
    '<%= config.bin %> analytics devices --csv > devices.csv',
  ];
  protected readonly report = 'devices';
}
