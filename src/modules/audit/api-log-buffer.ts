import { getTableColumns } from 'drizzle-orm';
import { onPostgres, transaction, type Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import type { FinishedRequest } from '../../server/module.js';
import type { Services } from '../../server/services.js';
import { apiLogs } from './schema.js';

/**
 * The API log is written off the request path: a finished request only adds its record to this process's
 * buffer, and the buffer goes to the database in batches of one transaction each (insertBatch) when it holds
 * a batch, a moment after its first record, when the jobs run (so `/_dev/v1/jobs/run` makes it visible at
 * once) and on shutdown.
 * A killed process loses at most the last moment's records: the log is for looking into requests, not a
 * record anyone relies on (that is the audit log).
 */
const FLUSH_AFTER_MS = 250;
const BATCH = 200;
/** If writing falls behind (a database away), the buffer stops growing here: the oldest records go first. */
const MOST_HELD = 20_000;

interface Pending {
  records: ApiLogRow[];
  timer: NodeJS.Timeout | null;
  /** The flush under way: the next one starts after it, so "flushed" means written. */
  writing: Promise<void>;
}

const buffers = new WeakMap<Services, Pending>();

function bufferOf(services: Services): Pending {
  let buffer = buffers.get(services);
  if (!buffer) buffers.set(services, (buffer = { records: [], timer: null, writing: Promise.resolve() }));
  return buffer;
}

/** The `requestFinished` hook: keeps the record for the next batch. Synchronous, no I/O. */
export function recordApiRequest(services: Services, request: FinishedRequest): void {
  const buffer = bufferOf(services);
  buffer.records.push({
    id: newId('alog', request.at),
    storeId: request.storeId,
    operationId: request.operationId,
    method: request.method,
    path: request.path,
    status: request.status,
    errorCode: request.errorCode,
    durationMs: request.durationMs,
    actorType: request.actor.type,
    actorId: request.actor.id,
    traceId: request.traceId,
    requestId: request.requestId,
    idempotencyKey: request.idempotencyKey,
    createdAt: request.at,
  });
  if (buffer.records.length > MOST_HELD) buffer.records.splice(0, buffer.records.length - MOST_HELD);
  if (buffer.records.length >= BATCH) {
    if (buffer.timer) clearTimeout(buffer.timer);
    buffer.timer = setTimeout(() => void flushApiLog(services), 0);
  } else if (!buffer.timer) {
    buffer.timer = setTimeout(() => void flushApiLog(services), FLUSH_AFTER_MS);
  }
  buffer.timer.unref();
}

/** Writes every buffered record (in batches of at most BATCH rows); returns how many were written. */
export function flushApiLog(services: Services): Promise<number> {
  const buffer = bufferOf(services);
  if (buffer.timer) clearTimeout(buffer.timer);
  buffer.timer = null;
  const taken = buffer.records.splice(0);
  const written = buffer.writing.then(() => writeBatches(services, taken));
  buffer.writing = written.then(
    () => undefined,
    () => undefined,
  );
  return written;
}

async function writeBatches(services: Services, records: ApiLogRow[]): Promise<number> {
  let written = 0;
  for (let start = 0; start < records.length; start += BATCH) {
    const batch = records.slice(start, start + BATCH);
    try {
      await transaction(services.db, () => insertBatch(services.db, batch));
      written += batch.length;
    } catch (error) {
      // Losing a batch of the API log is better than holding up the service for it.
      console.error(`[svc] API log: ${batch.length} records not written:`, error);
    }
  }
  return written;
}

type ApiLogRow = typeof apiLogs.$inferInsert;

/**
 * One batch, inside the caller's transaction. PostgreSQL takes it as one multi-row insert: one round trip.
 * SQLite has no round trip to save, but every statement costs its binding and stepping: a prepared insert of
 * 50 rows costs about half of 50 prepared row inserts (4.5 against 8–9 µs of CPU a record, measured), so
 * records go 50 at a time, the rest one by one. The commit of the batch's one transaction is shared too.
 */
async function insertBatch(db: Db, batch: ApiLogRow[]) {
  if (onPostgres(db)) {
    await db.insert(apiLogs).values(batch).run();
    return;
  }
  const { many, one } = statements(db);
  let at = 0;
  for (; at + ROWS_PER_INSERT <= batch.length; at += ROWS_PER_INSERT) await many.run(...valuesOf(batch, at, ROWS_PER_INSERT));
  for (; at < batch.length; at++) await one.run(...valuesOf(batch, at, 1));
}

const ROWS_PER_INSERT = 50;
const COLUMNS = Object.entries(getTableColumns(apiLogs)).map(([key, column]) => ({ key: key as keyof ApiLogRow, name: column.name }));

/** An insert of `rows` records, every column of each bound in order (null where a record has no value). */
const insertOf = (rows: number) =>
  `INSERT INTO api_logs (${COLUMNS.map((c) => `"${c.name}"`).join(', ')}) VALUES ${Array.from({ length: rows }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')}`;

function valuesOf(batch: ApiLogRow[], from: number, rows: number): unknown[] {
  const values: unknown[] = [];
  for (let i = from; i < from + rows; i++) for (const { key } of COLUMNS) values.push(batch[i][key] ?? null);
  return values;
}

const statements = preparedFor((db) => ({ many: db.$client.prepare(insertOf(ROWS_PER_INSERT)), one: db.$client.prepare(insertOf(1)) }));
