import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PgConnectError, PgError } from './errors.js';
import { countRoundTrip, type Counted, type StatementCount } from '../statement-count.js';
import { committed, newOutermost, openOutermost, Turns, whenCommitted, type OutermostTransaction } from '../transaction-state.js';

export { PgConnectError, PgError };

export interface PgResult {
  fields: string[];
  rows: unknown[][];
  rowCount: number;
}

/**
 * The PostgreSQL types answered as JS numbers, as better-sqlite3 answers them: int8 (counts, sums of
 * integers, bigint columns) and numeric. The rest as pg parses them.
 */
const NUMBER_TYPES = [20, 1700];
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return NUMBER_TYPES.includes(oid) ? Number : pg.types.getTypeParser(oid, format);
  },
};

/** SQLSTATEs after which a SERIALIZABLE transaction is re-run from the start: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
/** How many distinct statement texts a pool names (see `names`). */
const NAMED_STATEMENTS = 1000;
const MAX_ATTEMPTS = 20;
/**
 * Every transaction passes a gate, an advisory lock that all processes share: each transaction holds it
 * shared (taken with BEGIN, in the same round trip; nobody waits); a transaction that lost this many
 * conflicts in a row waits for it exclusively before it begins, so it runs alone and cannot lose again.
 * Without it a transaction touching a hot row (a day's sales counter, a product's stock in a rush) could
 * lose to the others' commits twenty times running and fail.
 */
export const RUN_ALONE_AFTER = 4;
export const GATE_KEY = 0x737663;

export const LOST_IN_TRANSACTION = 'the connection to PostgreSQL was lost in the middle of a transaction';

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

/** A parameter as PostgreSQL's integer-typed columns take SQLite's values: booleans as 1 and 0. */
function toParam(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

interface Frame {
  connection: pg.PoolClient;
  depth: number;
  outermost: OutermostTransaction;
  /** Versions the transaction read since it last wrote: shared by its savepoints (src/db/prepared.ts `storeVersionReader`). */
  reads: VersionMemo;
}

/**
 * Versions of cached read models read since the last write. A write replaces the map rather than clearing
 * it, so an answer that was in flight during the write lands in the old one.
 */
interface VersionMemo {
  versions: Map<string, number>;
}

/** One request's memo; none after it answered. */
interface RequestReads extends VersionMemo {
  open: boolean;
}

/** A statement that writes nothing (the version memos outlive it); anything else may change a version, through triggers. */
const READ_ONLY = /^\s*select\b/i;

const CONNECTION_CLASS = '08';

/**
 * PostgreSQL through a pool of `pg` connections, answered asynchronously. A statement outside a transaction
 * takes any free connection and autocommits; a transaction keeps one connection from BEGIN to COMMIT, is
 * SERIALIZABLE and re-runs whole on a serialization failure or deadlock, so a rule that held with SQLite's
 * single writer holds here too; nested ones are savepoints.
 */
export class PgPool implements Counted {
  readonly dialect = 'postgres' as const;
  /** Set when statements are counted (src/db/statement-count.ts). */
  counted?: StatementCount;
  private readonly pool: pg.Pool;
  /**
   * The transaction a piece of asynchronous work runs in: the code keeps using the service's one `db`, and
   * its statements find their transaction's connection here, as SQLite's one connection found it implicitly.
   */
  private readonly frames = new AsyncLocalStorage<Frame>();
  /** The request a piece of asynchronous work serves (outside its transactions), for `versionsSeen`. */
  private readonly requests = new AsyncLocalStorage<RequestReads>();
  open = true;

  /**
   * Transactions running at once in this process, at most `writers` (`SVC_PG_WRITERS`, default 2); the rest
   * wait their turn. Reads outside transactions are not limited. Purchases contend for the same rows (a
   * store's order counter, its day's sales): in the scale bench 10 concurrent SERIALIZABLE transactions a
   * process re-ran 6,714 times for 2,804 at 2 and 1,143 at 1, with the same purchases per second.
   */
  private readonly writers: Turns;

  /**
   * Statement names by text. A named statement is parsed and planned once per connection, then only bound
   * and run. The code's statements with parameters are a few hundred texts; texts that vary without end (an
   * IN list of every length) go unnamed past `NAMED_STATEMENTS`. Texts without parameters go unnamed:
   * migrations' DDL, one-off maintenance, multi-statement texts (which cannot be named).
   */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly url: string,
    size = Number(process.env.SVC_PG_POOL_SIZE) || 10,
    writers = Number(process.env.SVC_PG_WRITERS) || 2,
  ) {
    this.pool = new pg.Pool({ connectionString: url, max: size, types });
    this.writers = new Turns(writers);
    // An idle connection the server dropped (a restart, a failover) is an error event here; the pool
    // replaces it on the next checkout.
    this.pool.on('error', () => {});
  }

  /** Connects once, so a wrong address or credentials fail the start instead of the first request. */
  async connect(): Promise<void> {
    try {
      await this.pool.query('SELECT 1');
    } catch (error) {
      throw new PgConnectError((error as Error).message, (error as { code?: string }).code);
    }
  }

  /** The server and database (never the credentials). */
  describe(): string {
    // libpq-style `host=… dbname=…` strings are no URL: then the server goes unnamed.
    const url = URL.parse(this.url);
    return url ? `PostgreSQL ${url.hostname ? `${url.hostname}:${url.port || 5432}` : 'local socket '}${url.pathname}` : 'PostgreSQL';
  }

  /** The transaction the current work runs in; never one that ended (its connection is someone else's by now). */
  private current(): Frame | undefined {
    const frame = this.frames.getStore();
    return openOutermost(frame?.outermost) && frame;
  }

  /** Runs `then` once the current transaction committed (once per `key`), or soon when there is none. */
  afterCommit(then: () => void, key: unknown = then): void {
    whenCommitted(this.frames, this.frames.getStore()?.outermost, then, key);
  }

  get inTransaction(): boolean {
    return this.current() !== undefined;
  }

  /**
   * Runs one request's work with a memo of the read-model versions it reads: a request that checks the
   * store's settings version four times asks the server once. Inside the request's transactions their own
   * memo serves (their snapshot). Any statement that may write, in the request or its transactions, empties
   * the memo, and it ends with the request, so work the request leaves running reads afresh.
   */
  withRequestReads<T>(work: () => T): T {
    const reads: RequestReads = { versions: new Map(), open: true };
    const result = this.requests.run(reads, work);
    if (result instanceof Promise) return result.finally(() => (reads.open = false)) as T;
    reads.open = false;
    return result;
  }

  /** The versions the current transaction, or else the current request, read since it last wrote; none outside both. */
  versionsSeen(): Map<string, number> | undefined {
    const frame = this.current();
    if (frame) return frame.reads.versions;
    const reads = this.requests.getStore();
    return reads?.open ? reads.versions : undefined;
  }

  private wrote(frame: Frame | undefined): void {
    if (frame) frame.reads.versions = new Map();
    const reads = this.requests.getStore();
    if (reads) reads.versions = new Map();
  }

  /** Every statement goes through here: on the current transaction's connection, else on any free one. */
  async query(text: string, params: unknown[] = []): Promise<PgResult> {
    if (!this.open) throw new Error('the PostgreSQL connection is closed');
    const frame = this.current();
    countRoundTrip(this);
    if (!READ_ONLY.test(text)) this.wrote(frame);
    try {
      const result = await (frame?.connection ?? this.pool).query({ name: this.nameOf(text, params), text, values: params.map(toParam), rowMode: 'array' });
      // A multi-statement text answers a result per statement: the last one is the answer.
      const last = Array.isArray(result) ? (result.at(-1) as pg.QueryResult) : result;
      return { fields: (last.fields ?? []).map((f) => f.name), rows: last.rows ?? [], rowCount: last.rowCount ?? 0 };
    } catch (error) {
      throw asPgError(error, text, frame !== undefined);
    }
  }

  private nameOf(text: string, params: unknown[]): string | undefined {
    if (params.length === 0) return undefined;
    let name = this.names.get(text);
    if (name === undefined && this.names.size < NAMED_STATEMENTS) this.names.set(text, (name = `svc${this.names.size}`));
    return name;
  }

  prepare(sql: string): PgStatement {
    return new PgStatement(this, toPostgresSql(sql));
  }

  async exec(sql: string): Promise<void> {
    await this.query(toPostgresSql(sql));
  }

  transaction<R>(body: () => R | Promise<R>): Promise<R> {
    const frame = this.current();
    return frame ? this.savepoint(frame, body) : this.serializable(body);
  }

  private async serializable<R>(body: () => R | Promise<R>): Promise<R> {
    await this.writers.take();
    try {
      return await this.serializableNow(body);
    } finally {
      this.writers.give();
    }
  }

  private async serializableNow<R>(body: () => R | Promise<R>): Promise<R> {
    let connection: pg.PoolClient;
    try {
      connection = await this.pool.connect();
    } catch (error) {
      throw asPgError(error, 'BEGIN', false);
    }
    let broken = false;
    // A connection the server drops while this transaction holds it is an error event here (the pool only
    // listens to idle ones); the statement in flight fails with it.
    const lost = () => (broken = true);
    connection.on('error', lost);
    try {
      for (let attempt = 1; ; attempt++) {
        const alone = attempt > RUN_ALONE_AFTER;
        const frame: Frame = { connection, depth: 1, outermost: newOutermost(), reads: { versions: new Map() } };
        try {
          // Taken before BEGIN, so the transaction's snapshot comes after the others are out.
          if (alone) await this.control(connection, `SELECT pg_advisory_lock(${GATE_KEY})`);
          try {
            await this.control(connection, `BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT pg_advisory_xact_lock_shared(${GATE_KEY})`);
            const result = await this.frames.run(frame, body);
            frame.outermost.ended = true;
            await this.control(connection, 'COMMIT');
            committed(this.frames, frame.outermost);
            return result;
          } catch (error) {
            frame.outermost.ended = true;
            await this.control(connection, 'ROLLBACK', false).catch(() => (broken = true));
            throw error;
          } finally {
            if (alone) await this.control(connection, `SELECT pg_advisory_unlock(${GATE_KEY})`, false).catch(() => (broken = true));
          }
        } catch (error) {
          if (!(error instanceof PgError && error.code && RETRYABLE.has(error.code)) || attempt >= MAX_ATTEMPTS || broken) throw error;
          // A random wait that grows with the attempts (up to 64 ms), so processes contending for the same
          // hot rows (a product's stock, the day's order counter) stop colliding in lockstep.
          if (!alone) await sleep(Math.random() * Math.min(64, 2 ** attempt));
        }
      }
    } finally {
      connection.off('error', lost);
      // A connection that failed mid-transaction is not given back to others.
      connection.release(broken);
    }
  }

  private async savepoint<R>(frame: Frame, body: () => R | Promise<R>): Promise<R> {
    const name = `sp${frame.depth}`;
    await this.control(frame.connection, `SAVEPOINT ${name}`);
    try {
      const result = await this.frames.run({ ...frame, depth: frame.depth + 1 }, body);
      await this.control(frame.connection, `RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      // What the savepoint wrote is undone: versions read since may no longer hold.
      this.wrote(frame);
      // A retryable failure dooms the whole transaction: let the outermost level re-run it.
      if (!(error instanceof PgError && error.code && RETRYABLE.has(error.code))) await this.control(frame.connection, `ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  /** A statement of the transaction's own, counted as the body's are; `asError` false lets it fail as `pg` threw it. */
  private control(connection: pg.PoolClient, sql: string, asError = true): Promise<unknown> {
    countRoundTrip(this, sql.split(';').length);
    return asError ? control(connection, sql) : connection.query(sql);
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.pool.end();
  }
}

/** A statement of the transaction's own (BEGIN, COMMIT, the gate), failing as the body's statements do. */
async function control(connection: pg.PoolClient, sql: string): Promise<void> {
  try {
    await connection.query(sql);
  } catch (error) {
    throw asPgError(error, sql, true);
  }
}

function asPgError(error: unknown, sql: string, inTransaction: boolean): unknown {
  if (error instanceof PgError) return error;
  const { code, detail, message } = error as { code?: string; detail?: string; message: string };
  // Before the server answered: refused, unreachable, or a connection it dropped.
  if (!code || code.startsWith(CONNECTION_CLASS) || code === '57P01' || code === 'ECONNREFUSED' || code === 'ECONNRESET') {
    if (inTransaction) return new PgError(LOST_IN_TRANSACTION, '08006', undefined, sql);
    return new PgConnectError(message, code);
  }
  return new PgError(message, code, detail, sql);
}

/** better-sqlite3's statement API, asynchronous, for the code's few raw statements. */
export class PgStatement {
  private plucked = false;
  private rawRows = false;

  constructor(
    private readonly pool: PgPool,
    private readonly text: string,
  ) {}

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
    return result.rows.map((row) => rowObject(result.fields, row));
  }

  async all(...params: unknown[]): Promise<unknown[]> {
    return this.shape(await this.pool.query(this.text, flatParams(params)));
  }

  async get(...params: unknown[]): Promise<unknown> {
    return (await this.all(...params))[0];
  }

  async run(...params: unknown[]): Promise<{ changes: number; lastInsertRowid: number }> {
    const result = await this.pool.query(this.text, flatParams(params));
    return { changes: result.rowCount, lastInsertRowid: 0 };
  }
}

export function rowObject(fields: string[], row: unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++) object[fields[i]] = row[i];
  return object;
}

function flatParams(params: unknown[]): unknown[] {
  return params.length === 1 && Array.isArray(params[0]) ? params[0] : params;
}
