import { LibpqConnection, loadNative } from './native.js';
import { PgError, PgWorkerConnection, type PgResult, type SyncConnection } from './sync.js';

export type PostgresClient = SyncConnection['client'];

/**
 * libpq when its addon is installed, else `pg` in a worker thread; `SVC_POSTGRES_CLIENT` (`libpq` or `pg`)
 * picks one, and naming libpq where it is missing fails instead of falling back.
 */
function openConnection(url: string, client = process.env.SVC_POSTGRES_CLIENT as PostgresClient | undefined): SyncConnection {
  if (client !== undefined && client !== 'libpq' && client !== 'pg') throw new Error(`SVC_POSTGRES_CLIENT is ${client}: it takes libpq or pg`);
  return client === 'libpq' || (client === undefined && loadNative()) ? new LibpqConnection(url) : new PgWorkerConnection(url);
}

/** SQLSTATEs after which a SERIALIZABLE transaction is re-run from the start: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
const nap = new Int32Array(new SharedArrayBuffer(4));
/**
 * Before re-running a transaction that lost a conflict: a random wait that grows with the attempts (up to
 * 64 ms), so processes contending for the same hot rows (a product's stock, the day's order counter) stop
 * colliding in lockstep. The process is synchronous on PostgreSQL, so the wait blocks it like a query would.
 */
function pause(attempt: number) {
  Atomics.wait(nap, 0, 0, Math.random() * Math.min(64, 2 ** attempt));
}
const MAX_ATTEMPTS = 20;
/**
 * Every transaction passes a gate, an advisory lock that all processes share: each transaction holds it
 * shared (taken with BEGIN, in the same round trip; nobody waits); a transaction that lost this many
 * conflicts in a row waits for it exclusively before it begins, so it runs alone and cannot lose again.
 * Without it a transaction touching a hot row (a day's sales counter, a product's stock in a rush) could
 * lose to the other processes' commits twenty times running and fail.
 */
export const RUN_ALONE_AFTER = 4;
export const GATE_KEY = 0x737663;

/**
 * SQLite's SQL, as drizzle's SQLite dialect and the code's raw statements write it, for PostgreSQL:
 * `?` placeholders become `$1…` (outside string literals and quoted identifiers), backquoted names double-quoted. The few SQLite-only
 * functions are kept out of the code through dialect-aware helpers instead (src/db/dialect.ts).
 */
export function toPostgresSql(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (quote) {
      if (c === quote) quote = null;
      out += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else if (c === '`') {
      const end = sql.indexOf('`', i + 1);
      out += `"${sql.slice(i + 1, end)}"`;
      i = end;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  // drizzle's SQLite dialect qualifies an upsert's conflict target (`on conflict ("t"."c")`), which PostgreSQL refuses.
  return out.replace(/on conflict \(([^)]*)\)/gi, (_, target: string) => `on conflict (${target.replace(/"[^"]+"\./g, '')})`);
}

function flatParams(params: unknown[]): unknown[] {
  return params.length === 1 && Array.isArray(params[0]) ? params[0] : params;
}

class PgStatement {
  private plucked = false;
  private rawRows = false;
  readonly reader: boolean;

  constructor(private readonly client: PgClient, readonly source: string, private readonly text: string) {
    this.reader = /^\s*(select|with|values)\b/i.test(text) || /\breturning\b/i.test(text);
  }

  pluck(toggle = true): this {
    this.plucked = toggle;
    return this;
  }

  raw(toggle = true): this {
    this.rawRows = toggle;
    return this;
  }

  private shape(result: PgResult): unknown[] {
    if (this.plucked) return result.rows.map((row) => row[0]);
    if (this.rawRows) return result.rows;
    return result.rows.map((row) => {
      const object: Record<string, unknown> = {};
      result.fields.forEach((name, i) => (object[name] = row[i]));
      return object;
    });
  }

  all(...params: unknown[]): unknown[] {
    return this.shape(this.client.query(this.text, flatParams(params)));
  }

  get(...params: unknown[]): unknown {
    return this.all(...params)[0];
  }

  iterate(...params: unknown[]): IterableIterator<unknown> {
    return this.all(...params)[Symbol.iterator]();
  }

  run(...params: unknown[]): { changes: number; lastInsertRowid: number } {
    const result = this.client.query(this.text, flatParams(params));
    return { changes: result.rowCount, lastInsertRowid: 0 };
  }
}

type TransactionFn<A extends unknown[], R> = ((...args: A) => R) & { deferred: (...args: A) => R; immediate: (...args: A) => R; exclusive: (...args: A) => R };

/**
 * better-sqlite3's API over one synchronous PostgreSQL connection, so drizzle's better-sqlite3 driver and the
 * code's `ctx.sqlite.transaction(…)()` run unchanged. Transactions are SERIALIZABLE and re-run whole on a
 * serialization failure or deadlock, so a rule that held with SQLite's single writer holds here too; nested
 * ones are savepoints. Statements outside a transaction autocommit.
 */
export class PgClient {
  readonly connection: SyncConnection;
  readonly dialect = 'postgres' as const;
  private depth = 0;

  constructor(private readonly url: string, client?: PostgresClient) {
    this.connection = openConnection(url, client);
  }

  /** The server and database (never the credentials) and the client, with a hint when it is the slower one. */
  describe(): string {
    // libpq also takes `host=… dbname=…` strings, which are no URL: then the server goes unnamed.
    const url = URL.parse(this.url);
    const where = url ? `PostgreSQL ${url.hostname ? `${url.hostname}:${url.port || 5432}` : 'local socket '}${url.pathname}` : 'PostgreSQL';
    return this.connection.client === 'libpq' ? `${where} (libpq)` : `${where} (pg in a worker thread; libpq is faster: install libpq's headers, then npm rebuild libpq)`;
  }

  get open(): boolean {
    return this.connection.open;
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  /**
   * Every statement goes through here. A connection the server dropped is replaced only between
   * transactions: inside one, the rest of it would otherwise commit alone on the new connection.
   */
  query(text: string, params: unknown[] = []): PgResult {
    return this.connection.query(text, params, this.depth === 0);
  }

  prepare(sql: string): PgStatement {
    // Statements are cheap objects here, but their pluck/raw mode is per caller: a fresh one each time.
    return new PgStatement(this, sql, toPostgresSql(sql));
  }

  exec(sql: string): this {
    this.query(toPostgresSql(sql));
    return this;
  }

  /** SQLite's pragmas mean nothing to PostgreSQL. */
  pragma(): unknown[] {
    return [];
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): TransactionFn<A, R> {
    const run = (...args: A): R => (this.depth > 0 ? this.savepoint(fn, args) : this.serializable(fn, args));
    return Object.assign(run, { deferred: run, immediate: run, exclusive: run });
  }

  private serializable<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    for (let attempt = 1; ; attempt++) {
      const alone = attempt > RUN_ALONE_AFTER;
      // Taken before BEGIN, so the transaction's snapshot comes after the others are out.
      if (alone) this.query(`SELECT pg_advisory_lock(${GATE_KEY})`);
      try {
        this.query(`BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT pg_advisory_xact_lock_shared(${GATE_KEY})`);
        this.depth = 1;
        const result = fn(...args);
        this.query('COMMIT');
        this.depth = 0;
        return result;
      } catch (error) {
        this.depth = 0;
        try {
          // Never on a new connection: a lost one took its transaction with it.
          this.connection.query('ROLLBACK', [], false);
        } catch {
          // The connection answered the failed COMMIT by ending the transaction already, or is gone.
        }
        if (!(error instanceof PgError && error.code && RETRYABLE.has(error.code)) || attempt >= MAX_ATTEMPTS) throw error;
        if (!alone) pause(attempt);
      } finally {
        if (alone) this.releaseGate();
      }
    }
  }

  private releaseGate() {
    try {
      this.connection.query(`SELECT pg_advisory_unlock(${GATE_KEY})`, [], false);
    } catch {
      // A lost connection took its session's lock with it.
    }
  }

  private savepoint<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    const name = `sp${this.depth}`;
    this.query(`SAVEPOINT ${name}`);
    this.depth++;
    try {
      const result = fn(...args);
      this.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      // A retryable failure dooms the whole transaction: let the outermost level re-run it.
      if (!(error instanceof PgError && error.code && RETRYABLE.has(error.code))) this.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    } finally {
      this.depth--;
    }
  }

  close(): void {
    this.connection.close();
  }
}
