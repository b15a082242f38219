import { and, eq, gte, lte } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { datesIn } from '../../kernel/dates.js';
import { productCalendar } from './schema.js';
import { variantsOf, type ProductRow } from './product-rows.js';

export function requireDated(product: ProductRow) {
  if (product.inventoryMode !== 'DATED') throw fail(409, 'INVENTORY_MODE_NOT_DATED', { productId: product.id, inventoryMode: product.inventoryMode });
}

function calendarRows(db: Db, productId: string, from: string, to: string) {
  return db
    .select()
    .from(productCalendar)
    .where(and(eq(productCalendar.productId, productId), gte(productCalendar.date, from), lte(productCalendar.date, to)))
    .all();
}

/** Per variant and day in the period: stock (0 when absent) and the price of that day. */
export async function calendarDays(db: Db, product: ProductRow, from: string, to: string, basePrice: (additionalAmount: number) => number) {
  const rows = new Map((await calendarRows(db, product.id, from, to)).map((r) => [`${r.variantId} ${r.date}`, r]));
  const dates = datesIn(from, to);
  return (await variantsOf(db, product.id)).map((v) => ({
    variant: v,
    days: dates.map((date) => {
      const row = rows.get(`${v.id} ${date}`);
      return { date, stock: row?.stock ?? 0, price: row?.price ?? basePrice(v.additionalAmount), priceSet: row?.price != null };
    }),
  }));
}
