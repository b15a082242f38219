import Database from 'better-sqlite3';
import { count, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { migrationsDir } from '../paths.js';

export type Sqlite = Database.Database;
export type Db = BetterSQLite3Database & { $client: Sqlite };

export interface Database_ {
  db: Db;
  sqlite: Sqlite;
  close(): void;
}

/** Another service holds the data dir's database (its lock is exclusive, see below). */
export class DataDirInUseError extends Error {
  constructor(file: string) {
    super(`the database ${file} is in use by another svc service (svc dev or svc serve): stop it, or start this one with another --data-dir`);
  }
}

/**
 * Opens (creating when absent) the service's one SQLite file and applies every pending migration.
 * better-sqlite3 is synchronous: a transaction runs to completion without yielding to the event loop,
 * so no other request can interleave with it.
 */
export function openDatabase(file: string): Database_ {
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
    db = drizzle(sqlite);
    migrate(db, { migrationsFolder: migrationsDir });
  } catch (error) {
    sqlite.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(file);
    throw error;
  }
  return {
    db,
    sqlite,
    close() {
      if (!sqlite.open) return;
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
      sqlite.close();
    },
  };
}

/**
 * Opens a PostgreSQL database (`svc serve --database-url`) and brings its schema up to date. The connection
 * answers synchronously behind better-sqlite3's API (src/db/pg/facade.ts), so drizzle's better-sqlite3
 * driver and every module run on it unchanged; the decision is in docs/decisions.md.
 */
export async function openPostgresDatabase(url: string): Promise<Database_> {
  // Loaded only here: SQLite's start (svc dev) never pays for the PostgreSQL path.
  const [{ PgClient }, { allTables, migratePostgres }] = await Promise.all([import('./pg/facade.js'), import('./pg/schema.js')]);
  const client = new PgClient(url);
  try {
    migratePostgres(client, await allTables());
  } catch (error) {
    client.close();
    throw error;
  }
  const sqlite = client as unknown as Sqlite;
  return { db: drizzle(sqlite), sqlite, close: () => client.close() };
}

/** True when the service runs on PostgreSQL, where SQLite's single-connection shortcuts do not hold. */
export function onPostgres(db: Db): boolean {
  return (db.$client as { dialect?: string }).dialect === 'postgres';
}

/** Where the data lives, for the start banner: the SQLite file, or the PostgreSQL server and the client used. */
export function describeDatabase(db: Db): string {
  const client = db.$client as Sqlite | { dialect: 'postgres'; describe(): string };
  return 'dialect' in client && client.dialect === 'postgres' ? client.describe() : `SQLite ${(client as Sqlite).name}`;
}

/** Row count, synchronously (drizzle's `$count` is a promise, which a write transaction cannot await). */
export function countRows(db: Db, table: SQLiteTable, where?: SQL): number {
  return db.select({ n: count() }).from(table).where(where).get()!.n;
}
