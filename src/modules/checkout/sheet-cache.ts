// Checkout sheets remembered for the buyer's reads that change nothing (the price preview, delivery quotes).
import { eq, sql } from 'drizzle-orm';
import { whenAnswered, type Db } from '../../db/client.js';
import { preparedFor, storeVersionReader } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { checkoutSheets } from './schema.js';

type SheetRow = typeof checkoutSheets.$inferSelect;

const q = preparedFor((db) => ({
  sheet: db
    .select()
    .from(checkoutSheets)
    .where(eq(checkoutSheets.id, sql.placeholder('id')))
    .prepare(),
}));

/** Grown by the triggers of checkout_sheets on every update or delete (drizzle/0029); a new sheet changes no other. */
const sheetsVersion = storeVersionReader('sheets').cached;

const MAX_ENTRIES = 10_000;
/** A sheet and the `sheets` version of its store read before it, or null when it was read before its store was known. */
const remembered = new WeakMap<Db, Map<string, { version: number | null; sheet: SheetRow }>>();

/**
 * A sheet as the buyer's previews read it: remembered with its store's `sheets` version, read before the row
 * so a write between the two can only make it look older than it is, never newer. The first read names the
 * store, the second vouches for it, later ones cost the version alone (none on SQLite while nothing was
 * written). Shared: never mutate it. Work that writes (a payment start) reads the row itself.
 */
export function rememberedSheet(db: Db, checkoutId: string): SheetRow | Promise<SheetRow> {
  let cache = remembered.get(db);
  if (!cache) remembered.set(db, (cache = new Map()));
  const hit = cache.get(checkoutId);
  if (!hit) return readSheet(db, cache, checkoutId, null);
  return whenAnswered(sheetsVersion(db, hit.sheet.storeId), (version) =>
    version !== null && version === hit.version ? hit.sheet : readSheet(db, cache, checkoutId, version),
  );
}

function readSheet(db: Db, cache: Map<string, { version: number | null; sheet: SheetRow }>, checkoutId: string, version: number | null) {
  return whenAnswered(q(db).sheet.get({ id: checkoutId }), (sheet) => {
    if (!sheet) {
      cache.delete(checkoutId);
      throw fail(404, 'CHECKOUT_NOT_FOUND');
    }
    // Inside a transaction (version null there) nothing is remembered as vouched for: its writes may roll back.
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(checkoutId, { version: db.$client.inTransaction ? null : version, sheet });
    return sheet;
  });
}
