import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { cursorPageOf } from '../../server/paging.js';
import { instant } from '../../server/responses.js';
import { appStorage } from './schema.js';

/** Quota of spec 02 §8, per installation. */
export const STORAGE_MAX_KEYS = 1000;
export const STORAGE_MAX_BYTES = 1024 * 1024;

// Any text works as a key (it travels URL-encoded in the path); control characters would only confuse logs.
export const storageKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]+$/u, { message: '키는 제어 문자 없이 1~200자입니다.' });

const statements = preparedFor((db) => ({
  usage: db
    .select({ keys: count(), bytes: sql<number>`coalesce(sum(${appStorage.bytes}), 0)` })
    .from(appStorage)
    .where(eq(appStorage.installationId, sql.placeholder('installationId')))
    .prepare(),
  get: db
    .select()
    .from(appStorage)
    .where(and(eq(appStorage.installationId, sql.placeholder('installationId')), eq(appStorage.key, sql.placeholder('key'))))
    .prepare(),
}));

const utf8Bytes = (s: string) => Buffer.byteLength(s, 'utf8');

const storageUsageView = z.object({
  keys: z.number().int(),
  bytes: z.number().int().describe('UTF-8 bytes of keys plus JSON values.'),
  maxKeys: z.number().int(),
  maxBytes: z.number().int(),
});

async function storageUsage(db: Db, installationId: string) {
  const u = (await statements(db).usage.get({ installationId }))!;
  return { keys: u.keys, bytes: u.bytes, maxKeys: STORAGE_MAX_KEYS, maxBytes: STORAGE_MAX_BYTES };
}

const storedKeyView = z.object({ key: z.string(), bytes: z.number().int().describe('UTF-8 bytes of key plus JSON value.'), updatedAt: instant });
export const storageItemView = storedKeyView.extend({ value: z.json() });
export const storageWriteView = storageItemView.extend({ usage: storageUsageView });
export const storageDeleteView = z.object({ key: z.string(), deleted: z.literal(true), usage: storageUsageView });
export const storageListView = cursorPageOf(storedKeyView).extend({ usage: storageUsageView });

const present = (row: typeof appStorage.$inferSelect) => ({
  key: row.key,
  value: JSON.parse(row.value) as unknown,
  bytes: row.bytes,
  updatedAt: isoAt(row.updatedAt),
});

export async function readItem(db: Db, installationId: string, key: string) {
  const row = await statements(db).get.get({ installationId, key });
  if (!row) throw fail(404, 'APP_STORAGE_KEY_NOT_FOUND', { key });
  return present(row);
}

/**
 * Writes one key. The quota counts key plus JSON value in UTF-8 bytes; a replaced value's old size is
 * freed first, so rewriting a key at the limit with a value of the same size still succeeds.
 */
export async function writeItem(db: Db, installationId: string, key: string, value: unknown, now: number) {
  const json = JSON.stringify(value);
  const bytes = utf8Bytes(key) + utf8Bytes(json);
  const existing = await statements(db).get.get({ installationId, key });
  const usage = await storageUsage(db, installationId);
  const keysAfter = usage.keys + (existing ? 0 : 1);
  const bytesAfter = usage.bytes - (existing?.bytes ?? 0) + bytes;
  if (keysAfter > STORAGE_MAX_KEYS) {
    throw fail(409, 'APP_STORAGE_QUOTA_EXCEEDED', { limit: 'KEYS', maxKeys: STORAGE_MAX_KEYS, usedKeys: usage.keys, key });
  }
  if (bytesAfter > STORAGE_MAX_BYTES) {
    throw fail(409, 'APP_STORAGE_QUOTA_EXCEEDED', {
      limit: 'BYTES',
      maxBytes: STORAGE_MAX_BYTES,
      usedBytes: usage.bytes,
      requestedBytes: bytes,
      availableBytes: STORAGE_MAX_BYTES - usage.bytes + (existing?.bytes ?? 0),
      key,
    });
  }
  await db
    .insert(appStorage)
    .values({ installationId, key, value: json, bytes, updatedAt: now })
    .onConflictDoUpdate({ target: [appStorage.installationId, appStorage.key], set: { value: json, bytes, updatedAt: now } })
    .run();
  return { key, value, bytes, updatedAt: isoAt(now), usage: await storageUsage(db, installationId) };
}

export async function deleteItem(db: Db, installationId: string, key: string) {
  const { changes } = await db
    .delete(appStorage)
    .where(and(eq(appStorage.installationId, installationId), eq(appStorage.key, key)))
    .run();
  if (!changes) throw fail(404, 'APP_STORAGE_KEY_NOT_FOUND', { key });
  return { key, deleted: true, usage: await storageUsage(db, installationId) };
}

/** Keys in order, cursor-paged by key. */
export async function listItems(db: Db, installationId: string, options: { prefix?: string; cursor?: string; limit: number }) {
  const where = and(
    eq(appStorage.installationId, installationId),
    options.prefix ? sql`substr(${appStorage.key}, 1, ${options.prefix.length}) = ${options.prefix}` : undefined,
    options.cursor ? gt(appStorage.key, options.cursor) : undefined,
  );
  const rows = await db
    .select()
    .from(appStorage)
    .where(where)
    .orderBy(asc(appStorage.key))
    .limit(options.limit + 1)
    .all();
  const page = rows.slice(0, options.limit);
  return {
    contents: page.map((r) => ({ key: r.key, bytes: r.bytes, updatedAt: isoAt(r.updatedAt) })),
    nextCursor: rows.length > options.limit ? page[page.length - 1].key : null,
    usage: await storageUsage(db, installationId),
  };
}
