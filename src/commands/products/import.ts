import { Args, Flags } from '@oclif/core';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ApiCallError } from '../../client/api-client.js';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { parseOptionAxis } from './create.js';

const COLUMNS = ['name', 'salePrice', 'listPrice', 'stockQuantity', 'categoryId', 'status', 'options', 'images'] as const;
const NUMERIC = new Set(['salePrice', 'listPrice', 'stockQuantity']);

interface RowResult {
  row: number;
  ok: boolean;
  productId: string | null;
  productNo: number | null;
  code: string | null;
  message: string | null;
}

/** A CSV row as a product body: empty cells are left out; numbers the API checks itself. */
function rowBody(record: Record<string, string>) {
  const body: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(record)) {
    if (cell === '') continue;
    if (column === 'options') body.options = cell.split(';').map(parseOptionAxis);
    else if (column === 'images') body.images = cell.split('|').map((s) => s.trim());
    else body[column] = NUMERIC.has(column) && /^-?\d+$/.test(cell) ? Number(cell) : cell;
  }
  return body;
}

export default class ProductsImport extends ApiCommand<typeof ProductsImport> {
  static override summary = 'Create products from a CSV file through the API, with progress and a result per row';
  static override description = [
    `Columns (header row, any order): ${COLUMNS.join(', ')}. Only name and salePrice are required.`,
    'options: axes separated by ";", each NAME=V1,V2 (e.g. 색상=빨강,파랑;사이즈=S,M). images: upload ids separated by "|".',
    'Each row is sent with an Idempotency-Key made of the file content and the row number, so importing the same file again creates nothing twice.',
  ].join('\n');
  static override examples = ['<%= config.bin %> products import products.csv', '<%= config.bin %> products import products.csv --json > results.json'];
  static override args = { file: Args.string({ description: 'CSV file (UTF-8)', required: true }) };
  static override flags = { concurrency: Flags.integer({ description: 'Requests in flight', default: 8, min: 1, max: 32 }) };

  async run() {
    const { parse } = await import('csv-parse/sync');
    const { Listr } = await import('listr2');
    let text: string;
    try {
      text = readFileSync(this.args.file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${this.args.file}: ${(error as Error).message}`);
    }
    let records: { record: Record<string, string>; info: { lines: number } }[];
    try {
      records = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true, info: true });
    } catch (error) {
      throw new UsageError(`${this.args.file} is not valid CSV: ${(error as Error).message}`);
    }
    const unknown = Object.keys(records[0]?.record ?? {}).filter((c) => !(COLUMNS as readonly string[]).includes(c));
    if (unknown.length) throw new UsageError(`unknown column(s) ${unknown.join(', ')}; expected ${COLUMNS.join(', ')}`);
    const storeId = await this.storeId();
    const fileKey = createHash('sha256').update(text).digest('hex').slice(0, 24);

    const results: RowResult[] = [];
    const importRow = async ({ record, info }: (typeof records)[number]): Promise<RowResult> => {
      const row = info.lines;
      try {
        const body = rowBody(record);
        const { data } = await this.client.request('POST', '/v1/products', { body, storeId, idempotencyKey: `import-${fileKey}-${row}` });
        return { row, ok: true, productId: data.productId, productNo: data.productNo, code: null, message: null };
      } catch (error) {
        if (error instanceof ApiCallError) {
          const field = error.body.fieldErrors?.[0];
          return {
            row,
            ok: false,
            productId: null,
            productNo: null,
            code: error.body.code,
            message: field ? `${field.field}: ${field.message}` : error.body.message,
          };
        }
        if (error instanceof UsageError) return { row, ok: false, productId: null, productNo: null, code: 'USAGE', message: error.message };
        throw error;
      }
    };

    const title = (done: number) => `Importing ${this.args.file}: ${done}/${records.length} rows`;
    await new Listr(
      [
        {
          title: title(0),
          task: async (_ctx, task) => {
            let next = 0;
            await Promise.all(
              Array.from({ length: Math.min(this.flags.concurrency, records.length) }, async () => {
                while (next < records.length) {
                  const result = await importRow(records[next++]);
                  results.push(result);
                  task.title = title(results.length);
                }
              }),
            );
            const failed = results.filter((r) => !r.ok).length;
            task.title = `${title(results.length)} — ${results.length - failed} created, ${failed} failed`;
          },
        },
      ],
      { renderer: this.flags.json ? 'silent' : 'default', fallbackRenderer: 'simple', exitOnError: true },
    ).run();

    results.sort((a, b) => a.row - b.row);
    this.output(results, () =>
      this.table(
        results.map((r) => ({ ...r, result: r.ok ? 'created' : r.code })),
        ['row', 'result', 'productId', 'productNo', 'message'],
      ),
    );
    // Not this.exit(1): the base class reads an exit thrown from run() as a usage error (2).
    if (results.some((r) => !r.ok)) process.exitCode = 1;
  }
}
