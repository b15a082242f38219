import { AsyncLocalStorage } from 'node:async_hooks';
import { copyFileSync, existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database, { type RunResult } from 'better-sqlite3';
import { count, NoopLogger, type Query, type SQL } from 'drizzle-orm';
import { NoopCache } from 'drizzle-orm/cache/core';
import { BaseSQLiteDatabase, SQLiteSyncDialect, type SelectedFieldsOrdered, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { BetterSQLiteSession, PreparedQuery as BetterSQLiteQuery } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { freshDatabaseTemplate, migrationsDir } from '../paths.js';
import type { PgPool } from './pg/pool.js';
import { countRoundTrip, type Counted, type StatementCount } from './statement-count.js';
import { committed, newOutermost, openOutermost, Turns, whenCommitted, type OutermostTransaction } from './transaction-state.js';

export type Sqlite = Database.Database;

/** better-sqlite3's statement API as the code uses it for its few raw statements; PostgreSQL's answers later. */
export interface RawStatement<Params extends unknown[] = unknown[], Row = unknown> {
  get(...params: Params): Promise<Row | undefined>;
  all(...params: Params): Promise<Row[]>;
  run(...params: Params): Promise<RunResult>;
  pluck(toggle?: boolean): RawStatement<Params, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  raw(toggle?: boolean): RawStatement<Params, unknown[]>;
}

/** The connection under the drizzle database: SQLite's one, or PostgreSQL's pool. */
export interface DbClient {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): RawStatement<Params, Row>;
}

/**
 * The database the modules query: drizzle's SQLite query builders, whose results are awaited. On SQLite they
 * answer at once (better-sqlite3 is synchronous, and awaiting a value costs one microtask); on PostgreSQL
 * they answer when the server does, while the process serves other requests.
 */
export type Db = BaseSQLiteDatabase<'async', RunResult> & { $client: DbClient };

export interface Database_ {
  db: Db;
  close(): Promise<void>;
}

/** Another service holds the data dir's database (its lock is exclusive, see below). */
export class DataDirInUseError extends Error {
  constructor(file: string) {
    super(`the database ${file} is in use by another svc service (svc dev or svc serve): stop it, or start this one with another --data-dir`);
  }
}

/**
 * Opens (creating when absent) the service's one SQLite file and applies every pending migration.
 */
export function openDatabase(file: string): Database_ {
  startFromTemplate(file);
  const sqlite = new Database(file);
  let db: Db;
  try {
    // The service is the only process that opens its file. Holding the lock for good spares every
    // statement the shared-memory locking of WAL (reads ~3x faster), and a second service on the same
    // data dir fails at start instead of corrupting timing assumptions.
    sqlite.pragma('locking_mode = EXCLUSIVE');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    // Checkpoints are where WAL mode syncs to disk: every 10,000 pages (~40 MB of WAL) instead of SQLite's
    // 1,000 cut the cost of a purchase transaction by a fifth in the checkout bench.
    sqlite.pragma('wal_autocheckpoint = 10000');
    sqlite.pragma('foreign_keys = ON');
    const synchronous = drizzleSqlite(sqlite);
    if (!upToDate(sqlite)) migrate(synchronous, { migrationsFolder: migrationsDir });
    db = synchronous as unknown as Db;
  } catch (error) {
    sqlite.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(file);
    throw error;
  }
  return {
    db,
    async close() {
      if (!sqlite.open) return;
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
      sqlite.close();
    },
  };
}

/**
 * Whether the file has every migration of the journal: drizzle's own test (it runs the migrations newer than
 * the last one recorded), made from the journal alone. drizzle reads and hashes every migration file first,
 * on every start (issue 31).
 */
function upToDate(sqlite: Sqlite): boolean {
  const recorded = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!recorded) return false;
  const { entries } = JSON.parse(readFileSync(join(migrationsDir, 'meta', '_journal.json'), 'utf8')) as { entries: { when: number }[] };
  const last = sqlite.prepare('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as { at: number | null };
  return last.at !== null && entries.every((entry) => entry.when <= Number(last.at));
}

/**
 * A new database file starts as a copy of the build's migrated one (`writeFreshDatabase`): replaying the
 * migrations statement by statement cost a fresh data dir's start ~50 ms (issue 31), SQLite reading the whole
 * schema again after each DDL statement. Migrations added since the build still apply, as on any older file.
 * The copy is linked into place whole, so a second service starting on the same data dir opens either no
 * file or a complete one.
 */
function startFromTemplate(file: string) {
  if (existsSync(file) || !existsSync(freshDatabaseTemplate)) return;
  const copy = `${file}.${process.pid}.fresh`;
  copyFileSync(freshDatabaseTemplate, copy);
  try {
    linkSync(copy, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(copy, { force: true });
  }
}

/** Writes `file`: an empty database with every migration applied, the template of new data dirs (the build runs it). */
export function writeFreshDatabase(file: string) {
  const sqlite = new Database(':memory:');
  try {
    sqlite.pragma('foreign_keys = ON');
    migrate(drizzleSqlite(sqlite), { migrationsFolder: migrationsDir });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, sqlite.serialize());
    // In WAL mode already, as openDatabase sets it: switching a copied file's journal mode syncs the whole
    // file to disk, which took longer than the migrations it spares on a busy disk.
    const inWalMode = new Database(temporary);
    inWalMode.pragma('journal_mode = WAL');
    inWalMode.close();
    // Replaced by a rename: a service starting while the build runs copies the old file or the new one.
    renameSync(temporary, file);
  } finally {
    sqlite.close();
  }
}

/**
 * Opens a PostgreSQL database (`svc serve --database-url`) and brings its schema up to date. The modules'
 * queries run on it through a drizzle session that turns their SQLite SQL into PostgreSQL's (src/db/pg).
 */
export async function openPostgresDatabase(url: string): Promise<Database_> {
  // Loaded only here: SQLite's start (svc dev) never pays for the PostgreSQL path.
  const [{ PgPool }, { drizzlePostgres }, { allTables, migratePostgres }] = await Promise.all([
    import('./pg/pool.js'),
    import('./pg/session.js'),
    import('./pg/schema.js'),
  ]);
  const pool = new PgPool(url);
  try {
    await pool.connect();
    await migratePostgres(pool, await allTables());
  } catch (error) {
    await pool.close();
    throw error;
  }
  return { db: drizzlePostgres(pool) as unknown as Db, close: () => pool.close() };
}

/** True when the service runs on PostgreSQL, where SQLite's single-connection shortcuts do not hold. */
export function onPostgres(db: Db): boolean {
  return (db.$client as { dialect?: string }).dialect === 'postgres';
}

/**
 * SQLite's driver itself, or null on PostgreSQL: for what only SQLite has (pragmas, a streamed scan, the
 * synchronous version reads of hot paths). Its statements skip the turn rule of `db` and `db.$client`, and
 * are not counted by `statementsRun`: they must only read.
 */
export function sqliteOf(db: Db): Sqlite | null {
  return onPostgres(db) ? null : (db.$client as SqliteClient).sqlite;
}

/**
 * How many statements SQLite's connection ran through `db` (its drizzle queries and `db.$client`'s raw
 * statements), or null on PostgreSQL. Every write goes through one of them — `sqliteOf`'s own statements
 * only read — so an unchanged count means an unchanged file: a hot read checks it before asking SQLite.
 */
export function statementsRun(db: Db): number | null {
  return onPostgres(db) ? null : (db.$client as SqliteClient).statements;
}

/** PostgreSQL's pool, or null on SQLite. */
const poolOf = (db: Db): PgPool | null => (onPostgres(db) ? (db.$client as unknown as PgPool) : null);

/** Where the data lives, for the start banner: the SQLite file, or the PostgreSQL server. */
export function describeDatabase(db: Db): string {
  return poolOf(db)?.describe() ?? `SQLite ${sqliteOf(db)!.name}`;
}

/**
 * Goes on with a query's answer: at once when it came at once (SQLite answers synchronously, though the
 * types say Promise), else when it comes. For the few hot paths that must not pay a promise on SQLite.
 */
export function whenAnswered<T, R>(answer: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return answer instanceof Promise ? answer.then(next) : next(answer);
}

/** Row count. */
export async function countRows(db: Db, table: SQLiteTable, where?: SQL): Promise<number> {
  return (await db.select({ n: count() }).from(table).where(where).get())!.n;
}

/**
 * The transaction the current asynchronous work runs in on SQLite: its savepoint depth (0 outermost), and
 * whether it ended — work it scheduled (a timer, a wake-up) carries the frame and then runs outside it.
 */
interface SqliteFrame {
  depth: number;
  outermost: OutermostTransaction;
}
const sqliteFrames = new AsyncLocalStorage<SqliteFrame>();

/**
 * `db.$client` on SQLite: its one connection, shared by all the work of the process. Its transactions take
 * turns, and `openTransaction` is the one between its BEGIN and its end. Requests interleave at every
 * `await`: a statement of other work that comes while a transaction is open would run inside it — see what
 * may still roll back, and be rolled back with it — so it waits for the transaction to end and runs in its
 * own turn, whether it comes through drizzle or as one of the code's few raw statements (`prepare`).
 */
class SqliteClient implements DbClient, Counted {
  readonly turns = new Turns(1);
  /** Set when statements are counted (src/db/statement-count.ts). */
  counted?: StatementCount;
  openTransaction: OutermostTransaction | null = null;
  /**
   * Statements run on the connection so far (`statementsRun`): while it stands still, nothing was written.
   * Counted as each runs, so a statement that waited for its turn counts when it changes the file.
   */
  statements = 0;

  constructor(readonly sqlite: Sqlite) {}

  get open() {
    return this.sqlite.open;
  }

  get inTransaction() {
    return this.sqlite.inTransaction;
  }

  prepare<Params extends unknown[] = unknown[], Row = unknown>(sql: string): RawStatement<Params, Row> {
    return new TurnTakingStatement(this.sqlite.prepare(sql), this) as unknown as RawStatement<Params, Row>;
  }

  /** Runs `statement` now, or, when another's transaction is open, once it ended (the types say Promise either way). */
  inTurn<T>(statement: () => T): T {
    countRoundTrip(this);
    if (this.openTransaction === null || sqliteFrames.getStore()?.outermost === this.openTransaction) {
      this.statements++;
      return statement();
    }
    return this.afterOpenTransaction(statement) as T;
  }

  private async afterOpenTransaction<T>(statement: () => T): Promise<T> {
    await this.turns.take();
    try {
      this.statements++;
      return statement();
    } finally {
      this.turns.give();
    }
  }
}

class TurnTakingStatement {
  constructor(
    private readonly statement: Database.Statement,
    private readonly client: SqliteClient,
  ) {}

  get(...params: unknown[]) {
    return this.client.inTurn(() => this.statement.get(...params));
  }

  all(...params: unknown[]) {
    return this.client.inTurn(() => this.statement.all(...params));
  }

  run(...params: unknown[]) {
    return this.client.inTurn(() => this.statement.run(...params));
  }

  pluck(toggle = true): this {
    this.statement.pluck(toggle);
    return this;
  }

  raw(toggle = true): this {
    this.statement.raw(toggle);
    return this;
  }
}

type BetterSQLiteQueryArgs = ConstructorParameters<typeof BetterSQLiteQuery>;

/** drizzle's better-sqlite3 query, run through its connection's turns. */
class TurnTakingQuery extends BetterSQLiteQuery {
  /** drizzle reads rows as arrays (`raw`) when it maps them itself. */
  private readonly rawRows: boolean;
  private inAll = false;

  constructor(
    private readonly client: SqliteClient,
    ...args: BetterSQLiteQueryArgs
  ) {
    super(...args);
    this.rawRows = args[6] !== undefined || args[9] !== undefined;
  }

  override run(placeholderValues?: Record<string, unknown>) {
    return this.client.inTurn(() => super.run(placeholderValues));
  }

  override all(placeholderValues?: Record<string, unknown>) {
    return this.client.inTurn(() => {
      // drizzle's `all` reads through `values` when it maps the rows: one statement, in this one turn.
      this.inAll = true;
      try {
        return super.all(placeholderValues);
      } finally {
        this.inAll = false;
      }
    });
  }

  override get(placeholderValues?: Record<string, unknown>) {
    return this.client.inTurn(() => super.get(placeholderValues));
  }

  override values(placeholderValues?: Record<string, unknown>) {
    if (this.inAll) return super.values(placeholderValues);
    return this.client.inTurn(() => {
      try {
        return super.values(placeholderValues);
      } finally {
        // The statement is shared by its text (TurnTakingSession): one that answers objects stays so.
        if (!this.rawRows) this.statement.raw(false);
      }
    });
  }

  private get statement(): Database.Statement {
    return (this as unknown as { stmt: Database.Statement }).stmt;
  }
}

/** drizzle's better-sqlite3 queries log nothing and cache nothing here, as its driver's defaults. */
const noLogger = new NoopLogger();
const noCache = new NoopCache();

/** How many statement texts a connection keeps prepared (see `TurnTakingSession`); texts past it are prepared per query. */
const KEPT_STATEMENTS = 1000;

class TurnTakingSession extends BetterSQLiteSession<Record<string, never>, Record<string, never>> {
  /**
   * Statements by text (and row shape): a query drizzle builds per call would otherwise have SQLite parse and
   * plan its text again each time. A text answering objects and the same text answering arrays (`raw`) are
   * two statements, so neither changes the other's shape.
   */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    private readonly connection: SqliteClient,
    dialect: SQLiteSyncDialect,
  ) {
    super(connection.sqlite, dialect, undefined);
  }

  override prepareQuery(
    query: Query,
    fields: SelectedFieldsOrdered | undefined,
    executeMethod: BetterSQLiteQueryArgs[7],
    isResponseInArrayMode: boolean,
    customResultMapper?: (rows: unknown[][]) => unknown,
    queryMetadata?: BetterSQLiteQueryArgs[4],
    cacheConfig?: BetterSQLiteQueryArgs[5],
  ) {
    const key = `${fields || customResultMapper ? 'raw' : 'objects'}:${query.sql}`;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.connection.sqlite.prepare(query.sql);
      if (this.statements.size < KEPT_STATEMENTS) this.statements.set(key, statement);
    }
    return new TurnTakingQuery(
      this.connection,
      statement,
      query,
      noLogger,
      noCache,
      queryMetadata,
      cacheConfig,
      fields,
      executeMethod,
      isResponseInArrayMode,
      customResultMapper,
    );
  }
}

/** drizzle over SQLite's one connection, as drizzle's own better-sqlite3 driver builds it, with queries that take turns. */
function drizzleSqlite(sqlite: Sqlite) {
  const client = new SqliteClient(sqlite);
  const dialect = new SQLiteSyncDialect();
  const db = new BaseSQLiteDatabase('sync', dialect, new TurnTakingSession(client, dialect), undefined);
  return Object.assign(db, { $client: client });
}

/**
 * Runs `then` once the current transaction committed (never if it rolls back; once per `key` however often
 * it is asked), or on the next turn when the caller is in none — outside every transaction either way. For
 * wake-ups of workers that read what the transaction wrote (the delivery worker, builds): before the commit
 * they would find nothing, or on PostgreSQL, sharing the transaction's connection, read what might still
 * roll back.
 */
export function afterCommit(db: Db, then: () => void, key: unknown = then): void {
  const pool = poolOf(db);
  if (pool) pool.afterCommit(then, key);
  else whenCommitted(sqliteFrames, sqliteFrames.getStore()?.outermost, then, key);
}

/**
 * `handler` with each call in a request scope of its own, in which PostgreSQL remembers the read-model
 * versions the request read until it writes (`PgPool.withRequestReads`). SQLite's version reads cost no
 * round trip: its handler is left as it is.
 */
export function withRequestReads<Args extends unknown[], R>(db: Db, handler: (...args: Args) => R): (...args: Args) => R {
  const pool = poolOf(db);
  return pool ? (...args) => pool.withRequestReads(() => handler(...args)) : handler;
}

/** Thrown when a SQLite transaction's body waited for real I/O, holding up every other statement of the process meanwhile. */
export class TransactionAwaitedIoError extends Error {
  constructor() {
    super('a SQLite transaction waited for I/O (a timer, the network, a file) before it ended: do that work before or after the transaction');
  }
}

/**
 * Runs `body` as one transaction, committed when it settles and rolled back when it throws; nested, as a
 * savepoint. Statements inside go through the service's one `db` as everywhere else.
 *
 * On PostgreSQL the transaction holds one pooled connection, SERIALIZABLE, re-run whole after a
 * serialization failure (src/db/pg/pool.ts). On SQLite there is one connection, so transactions take turns:
 * one at a time per process, and other work's statements wait while one is open (`SqliteClient`). So a
 * body must not wait for I/O: SQLite's statements answer at once, and a body that only queries ends within
 * the same turn of the event loop, while one that waited would have held up every request of the process.
 * A body that did wait is rolled back (`TransactionAwaitedIoError`).
 */
export function transaction<R>(db: Db, body: () => R | Promise<R>): Promise<R> {
  const pool = poolOf(db);
  if (pool) return pool.transaction(body);
  const client = db.$client as SqliteClient;
  const frame = sqliteFrames.getStore();
  return openOutermost(frame?.outermost) ? sqliteSavepoint(client, frame!, body) : sqliteTransaction(client, body);
}

async function sqliteTransaction<R>(client: SqliteClient, body: () => R | Promise<R>): Promise<R> {
  const { sqlite, turns } = client;
  const waiting = turns.take();
  if (waiting) await waiting;
  let waitedForIo = false;
  const turnEnds = setImmediate(() => (waitedForIo = true));
  const frame: SqliteFrame = { depth: 0, outermost: newOutermost() };
  try {
    countRoundTrip(client);
    sqlite.exec('BEGIN');
    client.openTransaction = frame.outermost;
    try {
      const result = await sqliteFrames.run(frame, body);
      if (waitedForIo) throw new TransactionAwaitedIoError();
      countRoundTrip(client);
      sqlite.exec('COMMIT');
      committed(sqliteFrames, frame.outermost);
      return result;
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
      throw error;
    }
  } finally {
    frame.outermost.ended = true;
    client.openTransaction = null;
    clearImmediate(turnEnds);
    turns.give();
  }
}

async function sqliteSavepoint<R>(client: SqliteClient, outer: SqliteFrame, body: () => R | Promise<R>): Promise<R> {
  const { sqlite } = client;
  const depth = outer.depth + 1;
  const name = `sp${depth}`;
  countRoundTrip(client);
  sqlite.exec(`SAVEPOINT ${name}`);
  try {
    const result = await sqliteFrames.run({ ...outer, depth }, body);
    countRoundTrip(client);
    sqlite.exec(`RELEASE ${name}`);
    return result;
  } catch (error) {
    sqlite.exec(`ROLLBACK TO ${name}`);
    sqlite.exec(`RELEASE ${name}`);
    throw error;
  }
}
