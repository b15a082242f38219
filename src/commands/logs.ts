import { Flags } from '@oclif/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { styleText } from 'node:util';
import { ApiCommand } from '../cli/api-command.js';
import { terminalSafe } from '../cli/format.js';

interface ApiLog {
  apiLogId: string;
  operationId: string;
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  traceId: string;
  createdAt: string;
}

interface Page {
  contents: ApiLog[];
  nextCursor: string | null;
}

const POLL_MS = 1000;
const KST_OFFSET_MS = 9 * 3600 * 1000;

export default class Logs extends ApiCommand<typeof Logs> {
  static override summary = "The store's API requests of the last 7 days, one line each (find an error's traceId)";
  static override description =
    'Each line: time (KST), status, method, path, duration, error code, traceId. Oldest first; --follow keeps printing requests as they come, until Ctrl-C. Records appear a moment after their request.';
  static override examples = [
    '<%= config.bin %> logs --trace-id 6759b27ebcfc87b0',
    '<%= config.bin %> logs --status 400 --operation updateStore',
    '<%= config.bin %> logs --follow',
    '<%= config.bin %> logs --follow --json',
  ];
  static override flags = {
    'trace-id': Flags.string({ description: 'Only the request with this traceId (the error object carries it)' }),
    operation: Flags.string({ description: 'Only requests of this operation id (e.g. updateStore)' }),
    status: Flags.integer({ description: 'Only requests answered with this HTTP status', min: 100, max: 599 }),
    from: Flags.string({ description: 'Made at or after this ISO 8601 instant' }),
    to: Flags.string({ description: 'Made before this ISO 8601 instant' }),
    limit: Flags.integer({ description: 'How many of the newest requests to print (at most 100)', default: 20, min: 1, max: 100 }),
    follow: Flags.boolean({ char: 'f', description: 'Keep printing new requests as they come (--json: one JSON object a line)' }),
  };

  async run() {
    const first = await this.page(this.flags.limit);
    if (!this.flags.follow) {
      this.outputList(first, (contents) => (contents.length === 0 ? this.log('(none)') : [...contents].reverse().forEach((r) => this.print(r))));
      return;
    }
    let newest = first.contents[0]?.apiLogId ?? null;
    [...first.contents].reverse().forEach((r) => this.print(r));
    for (;;) {
      await sleep(POLL_MS);
      const fresh = await this.newerThan(newest);
      fresh.forEach((r) => this.print(r));
      newest = fresh.at(-1)?.apiLogId ?? newest;
    }
  }

  private page(limit: number, cursor?: string): Promise<Page> {
    const f = this.flags;
    return this.storeRequest<Page>('GET', '/v1/api-logs', {
      query: { traceId: f['trace-id'], operationId: f.operation, status: f.status, from: f.from, to: f.to, limit, cursor },
    });
  }

  /** Every record after `newest`, oldest first: pages go newest first, so read on until one reaches it. */
  private async newerThan(newest: string | null): Promise<ApiLog[]> {
    const fresh: ApiLog[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await this.page(100, cursor);
      const newer = page.contents.filter((r) => newest === null || r.apiLogId > newest);
      fresh.push(...newer);
      if (newer.length < page.contents.length || !page.nextCursor) return fresh.reverse();
      cursor = page.nextCursor;
    }
  }

  /** One request a line; `--follow --json` prints each record as one line of JSON. */
  private print(r: ApiLog) {
    if (this.flags.json) {
      if (this.flags.follow) this.log(JSON.stringify(r));
      return;
    }
    const time = `${new Date(Date.parse(r.createdAt) + KST_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ')} KST`;
    const cells = [`${r.method} ${r.path}`, `${r.durationMs}ms`, r.errorCode ?? '-', r.traceId].map((c) => terminalSafe(c, true));
    // The status is coloured at a terminal only (styleText leaves it plain for pipes and NO_COLOR).
    process.stdout.write(`${time}  ${styleText(statusColour(r.status), String(r.status))}  ${cells.join('  ')}\n`);
  }
}

const statusColour = (status: number) => (status >= 500 ? 'red' : status >= 400 ? 'yellow' : status >= 300 ? 'cyan' : 'green');
