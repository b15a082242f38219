import { createRequire } from 'node:module';
import { LOST_IN_TRANSACTION, NUMBER_TYPES, PgConnectError, PgError, type PgResult, type SyncConnection } from './sync.js';

/** The part of the `libpq` addon's API used here (https://github.com/brianc/node-libpq). */
interface Libpq {
  connectSync(conninfo: string): void;
  exec(text: string): void;
  execParams(text: string, params: (string | null)[]): void;
  resultStatus(): string;
  resultErrorMessage(): string;
  resultErrorFields(): { sqlState?: string; messagePrimary?: string; messageDetail?: string } | null;
  errorMessage(): string;
  ntuples(): number;
  nfields(): number;
  fname(column: number): string;
  ftype(column: number): number;
  getvalue(row: number, column: number): string;
  getisnull(row: number, column: number): boolean;
  cmdTuples(): string;
  /** 0 idle, 1 active, 2 in a transaction, 3 in a failed transaction, 4 unknown: the connection is gone. */
  transactionStatus(): number;
  finish(): void;
}

const CONNECTION_LOST = 4;

type TypeParser = (text: string) => unknown;
interface Native {
  Libpq: new () => Libpq;
  parserOf(oid: number): TypeParser;
}

let native: Native | null | undefined;

/**
 * The `libpq` addon (an optional dependency, built from source against the system's libpq: Debian's
 * `libpq-dev`) and pg's type parsers, or null when the addon is not installed or did not build.
 */
export function loadNative(): Native | null {
  if (native !== undefined) return native;
  const require = createRequire(import.meta.url);
  try {
    const Libpq = require('libpq') as Native['Libpq'];
    const { types } = require('pg') as typeof import('pg');
    const parsers = new Map<number, TypeParser>();
    const parserOf = (oid: number) => {
      let parser = parsers.get(oid);
      if (!parser) parsers.set(oid, (parser = NUMBER_TYPES.includes(oid) ? Number : (types.getTypeParser(oid, 'text') as TypeParser)));
      return parser;
    };
    native = { Libpq, parserOf };
  } catch {
    native = null;
  }
  return native;
}

/**
 * One PostgreSQL connection through libpq's blocking calls, on the calling thread: no worker hop, so a
 * statement costs ~40 % less than through the worker-thread client (docs/decisions.md).
 */
export class LibpqConnection implements SyncConnection {
  readonly client = 'libpq' as const;
  private readonly native: Native;
  /** Null once the server dropped the connection, until a statement connects again. */
  private pq: Libpq | null;
  open = true;

  constructor(private readonly url: string) {
    const loaded = loadNative();
    if (!loaded) throw new Error('the libpq addon is not installed: install libpq\'s headers (Debian: apt-get install libpq-dev) and run npm rebuild libpq');
    this.native = loaded;
    try {
      this.pq = this.connect();
    } catch (error) {
      this.open = false;
      throw error;
    }
  }

  private connect(): Libpq {
    const pq = new this.native.Libpq();
    try {
      pq.connectSync(this.url);
    } catch (error) {
      throw new PgConnectError((error as Error).message.trim(), undefined);
    }
    // libpq prints the server's notices on stderr ("relation … already exists, skipping"); pg drops them.
    pq.exec('SET client_min_messages = warning');
    return pq;
  }

  query(sql: string, params: unknown[] = [], reconnect = true): PgResult {
    if (!this.open) throw new Error('the PostgreSQL connection is closed');
    // A server that restarted (failover, maintenance) cost the statement that found it gone: the next one
    // outside a transaction connects again, or fails as the start would (PgConnectError) while it is away.
    if (!this.pq && !reconnect) throw new PgError(LOST_IN_TRANSACTION, '08006', undefined, sql);
    const pq = (this.pq ??= this.connect());
    // Without parameters the simple protocol, which also runs several statements in one round trip.
    if (params.length === 0) pq.exec(sql);
    else pq.execParams(sql, params.map(toText));
    const status = pq.resultStatus();
    if (status !== 'PGRES_TUPLES_OK' && status !== 'PGRES_COMMAND_OK') {
      const fields = pq.resultErrorFields();
      const message = fields?.messagePrimary ?? (pq.resultErrorMessage() || pq.errorMessage()).trim();
      if (pq.transactionStatus() === CONNECTION_LOST) {
        pq.finish();
        this.pq = null;
      }
      throw new PgError(message, fields?.sqlState, fields?.messageDetail, sql);
    }
    const columns = pq.nfields();
    const fields: string[] = [];
    const parsers: TypeParser[] = [];
    for (let c = 0; c < columns; c++) {
      fields.push(pq.fname(c));
      parsers.push(this.native.parserOf(pq.ftype(c)));
    }
    const count = pq.ntuples();
    const rows: unknown[][] = new Array(count);
    for (let r = 0; r < count; r++) {
      const row: unknown[] = new Array(columns);
      for (let c = 0; c < columns; c++) {
        const text = pq.getvalue(r, c);
        // libpq answers '' for NULL too: ask only then.
        row[c] = text === '' && pq.getisnull(r, c) ? null : parsers[c](text);
      }
      rows[r] = row;
    }
    return { fields, rows, rowCount: Number(pq.cmdTuples()) || count };
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.pq?.finish();
    this.pq = null;
  }
}

/** A parameter in PostgreSQL's text format, as pg sends it. */
function toText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
