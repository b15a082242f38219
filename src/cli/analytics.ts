import { type Command, Flags, type Interfaces } from '@oclif/core';
import { ApiCommand } from './api-command.js';

/** Shared by `svc analytics <report>`: flags, CSV, and the terminal pictures (sparklines, bars). */

const SPARKS = '▁▂▃▄▅▆▇█';
const BAR_WIDTH = 30;

export const sparkline = (values: number[]) => {
  const most = Math.max(...values, 0);
  return values.map((v) => (most === 0 ? SPARKS[0] : SPARKS[Math.min(SPARKS.length - 1, Math.floor((v / most) * (SPARKS.length - 1)))])).join('');
};
export const bar = (value: number, most: number) => '█'.repeat(most <= 0 ? 0 : Math.round((Math.max(0, value) / most) * BAR_WIDTH));

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export const periodFlags = {
  from: Flags.string({ description: 'From (YYYY-MM-DD, Korean date; default 29 days before --to)' }),
  to: Flags.string({ description: 'To (YYYY-MM-DD, inclusive; default today; at most 92 days in all)' }),
  'include-test': Flags.boolean({ description: 'Count purchases paid with test (sandbox) payments too' }),
  csv: Flags.boolean({ description: 'Print the rows as CSV instead of a table', exclusive: ['json'] }),
};

/** The row's label column per report. */
const LABEL: Record<string, string> = {
  overview: 'date',
  products: 'productId',
  sources: 'source',
  devices: 'device',
  pages: 'path',
  search: 'term',
  checkout: 'step',
  realtime: 'path',
};

export abstract class AnalyticsCommand<T extends typeof Command> extends ApiCommand<T> {
  static override flags: Interfaces.FlagInput = periodFlags;
  protected abstract readonly report: string;

  protected fetchReport() {
    const f = this.flags as Record<string, unknown>;
    return this.storeRequest('GET', `/v1/analytics/${this.report}`, {
      query: { from: f.from as string | undefined, to: f.to as string | undefined, includeTest: f['include-test'] ? 'true' : undefined },
    });
  }

  async run() {
    const report = await this.fetchReport();
    if ((this.flags as Record<string, unknown>).csv) return this.printCsv(report.rows);
    this.output(report, () => this.render(report));
  }

  protected printCsv(rows: Record<string, unknown>[]) {
    const columns = rows.length ? Object.keys(rows[0]) : [LABEL[this.report]];
    this.log(columns.join(','));
    for (const r of rows) this.log(columns.map((c) => csvCell(r[c])).join(','));
  }

  protected heading(report: any) {
    const computed = report.lastComputedAt ? `computed ${report.lastComputedAt}` : 'not computed yet';
    this.log(
      `${report.from} .. ${report.to} (${report.timezone}) · ${computed} · ${report.excludedBotSessions} bot sessions excluded${report.includeTest ? ' · test payments included' : ''}`,
    );
  }

  /** A table of the rows with a bar on the report's main figure. */
  protected render(report: any) {
    this.heading(report);
    const label = LABEL[this.report];
    const rows: Record<string, unknown>[] = report.rows;
    const columns = rows.length ? Object.keys(rows[0]).filter((c) => c !== label) : [];
    const main = columns[0];
    const most = Math.max(0, ...rows.map((r) => Number(r[main] ?? 0)));
    this.table(
      rows.map((r) => ({ ...r, bar: bar(Number(r[main] ?? 0), most) })),
      [label, ...columns, 'bar'],
      { money: ['purchaseAmount'] },
    );
  }
}
