import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/** A PostgreSQL error as the server sent it: `code` is the SQLSTATE (40001 serialization failure, 23505 unique…). */
export class PgError extends Error {
  constructor(message: string, readonly code: string | undefined, readonly detail?: string, readonly sql?: string) {
    super(message);
  }
}

/** The server could not be reached or refused the connection (wrong address, credentials or database). */
export class PgConnectError extends PgError {}

export interface PgResult {
  fields: string[];
  rows: unknown[][];
  rowCount: number;
}

/**
 * A blocking PostgreSQL connection, as code written against better-sqlite3's API needs: `query` returns once
 * the server answered. One connection, one statement at a time, as with SQLite. Two clients implement it:
 * libpq on the calling thread (src/db/pg/native.ts) and `pg` in a worker thread (below).
 */
export interface SyncConnection {
  readonly client: 'libpq' | 'pg';
  readonly open: boolean;
  /**
   * With `reconnect`, a connection the server dropped (a restart, a failover) is replaced first; without,
   * a lost connection fails the statement (08006).
   */
  query(sql: string, params?: unknown[], reconnect?: boolean): PgResult;
  close(): void;
}

/**
 * The PostgreSQL types both clients answer as JS numbers, as better-sqlite3 answers them: int8 (counts,
 * sums of integers, bigint columns) and numeric. The rest as pg parses them.
 */
export const NUMBER_TYPES = [20, 1700];

export const LOST_IN_TRANSACTION = 'the connection to PostgreSQL was lost in the middle of a transaction';

/*
 * The worker owns one `pg` Client and answers each query on the port, then wakes the main thread, which
 * sleeps on the shared word (the synckit technique). Kept as source text so the same file serves tsx and
 * the compiled build without a second entry point; `pg` is resolved by the main thread and passed in.
 */
const workerSource = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const { port, signal, url, numberTypes } = workerData;
for (const oid of numberTypes) pg.types.setTypeParser(oid, Number);
const flag = new Int32Array(signal);
const answer = (message) => {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
// A connection the server dropped (a restart, a failover) is replaced on the next statement.
let client, connected, lost;
const open = () => {
  lost = false;
  client = new pg.Client({ connectionString: url });
  client.on('error', () => (lost = true));
  client.on('end', () => (lost = true));
  connected = client.connect().catch((error) => {
    lost = true;
    throw Object.assign(error, { connecting: true });
  });
};
open();
port.on('message', async ({ sql, params, reconnect }) => {
  try {
    if (lost) {
      if (!reconnect) throw Object.assign(new Error(workerData.lostInTransaction), { code: '08006' });
      open();
    }
    await connected;
    const result = await client.query({ text: sql, values: params, rowMode: 'array' });
    answer({ ok: true, fields: (result.fields ?? []).map((f) => f.name), rows: result.rows ?? [], rowCount: result.rowCount ?? 0 });
  } catch (error) {
    answer({ ok: false, message: error.message, code: error.code, detail: error.detail, connecting: error.connecting === true });
  }
});
`;

/**
 * The pure-JavaScript client: `pg` answers in a worker thread while the calling thread sleeps on a shared
 * word. Needs no native build, and costs a thread hop per statement; the fallback when libpq is missing.
 */
export class PgWorkerConnection implements SyncConnection {
  readonly client = 'pg' as const;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  open = true;

  constructor(url: string) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const pgPath = createRequire(import.meta.url).resolve('pg');
    this.worker = new Worker(workerSource, { eval: true, workerData: { port: port2, signal: this.flag.buffer, url, pgPath, numberTypes: NUMBER_TYPES, lostInTransaction: LOST_IN_TRANSACTION }, transferList: [port2] });
    this.worker.unref();
    try {
      this.query('SELECT 1');
    } catch (error) {
      this.close();
      throw error;
    }
  }

  query(sql: string, params: unknown[] = [], reconnect = true): PgResult {
    if (!this.open) throw new Error('the PostgreSQL connection is closed');
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ sql, params: params.map(toPg), reconnect });
    // A statement longer than a minute means a dead server or a lock cycle the server did not break.
    if (Atomics.wait(this.flag, 0, 0, 60_000) === 'timed-out') throw new PgError(`PostgreSQL did not answer within 60 s: ${sql.slice(0, 200)}`, undefined);
    // The wake-up can overtake the message itself (the port delivers it a moment later): wait for it briefly.
    let received = receiveMessageOnPort(this.port);
    for (let waited = 0; !received && waited < 60_000; waited++) {
      Atomics.wait(this.flag, 0, 1, 1);
      received = receiveMessageOnPort(this.port);
    }
    if (!received) throw new PgError(`PostgreSQL's answer never arrived: ${sql.slice(0, 200)}`, undefined);
    const message = received.message as
      | { ok: true; fields: string[]; rows: unknown[][]; rowCount: number }
      | { ok: false; message: string; code?: string; detail?: string; connecting: boolean };
    if (!message.ok) throw message.connecting ? new PgConnectError(message.message, message.code) : new PgError(message.message, message.code, message.detail, sql);
    for (const row of message.rows) for (let i = 0; i < row.length; i++) if (row[i] instanceof Uint8Array) row[i] = Buffer.from(row[i] as Uint8Array);
    return message;
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.port.close();
    void this.worker.terminate();
  }
}

function toPg(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return value.toString();
  return value;
}
