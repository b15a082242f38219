import { and, eq, gte, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { emitEvent } from '../events/index.js';
import { addDays, daysBetween, isRealDate, today } from '../../kernel/dates.js';
import { LIMITS } from './inputs.js';
import { productCalendar, products, productVariants } from './schema.js';
import { buyerUnitPrice } from './prices.js';
import { findProduct, loadProduct, loadVariant, touchProduct, type ProductRow } from './product-rows.js';

const q = preparedFor((db) => ({
  // Single statements: the guard and the change are one step, so concurrent adjustments never lose an update.
  // Never below 0; a raise never above the largest stock a seller may set (a cut is always allowed).
  adjust: db
    .update(productVariants)
    .set({ stockQuantity: sql`${productVariants.stockQuantity} + ${sql.placeholder('delta')}` })
    .where(
      and(
        eq(productVariants.id, sql.placeholder('id')),
        sql`${productVariants.stockQuantity} + ${sql.placeholder('delta')} >= 0`,
        sql`(${sql.placeholder('delta')} <= 0 or ${productVariants.stockQuantity} + ${sql.placeholder('delta')} <= ${sql.placeholder('max')})`,
      ),
    )
    .returning({ stockQuantity: productVariants.stockQuantity })
    .prepare(),
  // A sale: the stock taken (never below 0) and the units counted sold, in one statement.
  sell: db
    .update(productVariants)
    .set({
      stockQuantity: sql`${productVariants.stockQuantity} - ${sql.placeholder('quantity')}`,
      soldQuantity: sql`${productVariants.soldQuantity} + ${sql.placeholder('quantity')}`,
    })
    .where(
      and(
        eq(productVariants.id, sql.placeholder('id')),
        eq(productVariants.productId, sql.placeholder('productId')),
        sql`${productVariants.stockQuantity} >= ${sql.placeholder('quantity')}`,
      ),
    )
    .returning({ stockQuantity: productVariants.stockQuantity, outOfStockNotified: productVariants.outOfStockNotified })
    .prepare(),
  // Units coming back from a cancellation or return are never refused, whatever the stock.
  giveBack: db
    .update(productVariants)
    .set({ stockQuantity: sql`${productVariants.stockQuantity} + ${sql.placeholder('quantity')}` })
    .where(eq(productVariants.id, sql.placeholder('id')))
    .returning({ stockQuantity: productVariants.stockQuantity })
    .prepare(),
  set: db
    .update(productVariants)
    .set({ stockQuantity: sql`${sql.placeholder('stock')}` })
    .where(eq(productVariants.id, sql.placeholder('id')))
    .returning({ stockQuantity: productVariants.stockQuantity })
    .prepare(),
  markNotified: db
    .update(productVariants)
    .set({ outOfStockNotified: true })
    .where(and(eq(productVariants.id, sql.placeholder('id')), eq(productVariants.stockQuantity, 0), eq(productVariants.outOfStockNotified, false)))
    .prepare(),
  clearNotified: db
    .update(productVariants)
    .set({ outOfStockNotified: false })
    .where(and(eq(productVariants.id, sql.placeholder('id')), sql`${productVariants.stockQuantity} > 0`))
    .prepare(),
  onSaleInStock: db
    .select({ id: productVariants.id })
    .from(productVariants)
    .where(and(eq(productVariants.productId, sql.placeholder('productId')), eq(productVariants.saleOn, true), sql`${productVariants.stockQuantity} > 0`))
    .limit(1)
    .prepare(),
  countSale: db
    .update(productVariants)
    .set({ soldQuantity: sql`${productVariants.soldQuantity} + ${sql.placeholder('quantity')}` })
    .where(eq(productVariants.id, sql.placeholder('id')))
    .prepare(),
  countProductSale: db
    .update(products)
    .set({ salesCount: sql`${products.salesCount} + ${sql.placeholder('quantity')}` })
    .where(eq(products.id, sql.placeholder('id')))
    .prepare(),
  takeNight: db
    .update(productCalendar)
    .set({ stock: sql`${productCalendar.stock} - ${sql.placeholder('quantity')}` })
    .where(
      and(
        eq(productCalendar.variantId, sql.placeholder('variantId')),
        eq(productCalendar.date, sql.placeholder('date')),
        sql`${productCalendar.stock} >= ${sql.placeholder('quantity')}`,
      ),
    )
    .prepare(),
  giveNight: db
    .update(productCalendar)
    .set({ stock: sql`${productCalendar.stock} + ${sql.placeholder('quantity')}` })
    .where(and(eq(productCalendar.variantId, sql.placeholder('variantId')), eq(productCalendar.date, sql.placeholder('date'))))
    .prepare(),
  nights: db
    .select()
    .from(productCalendar)
    .where(
      and(
        eq(productCalendar.variantId, sql.placeholder('variantId')),
        gte(productCalendar.date, sql.placeholder('from')),
        lte(productCalendar.date, sql.placeholder('to')),
      ),
    )
    .prepare(),
}));

/** The product and variant as the caller's transaction read them before the stock changed: still current. */
interface ReadBefore {
  product: ProductRow;
  outOfStockNotified: boolean;
}

/**
 * What follows a variant's stock change: at 0, `PRODUCT.OUT_OF_STOCK` once (until a restock) and the
 * product sold out when no variant on sale has stock left (spec 01 §3.1); above 0, a product the service
 * had sold out goes back on sale.
 */
export async function afterStockChange(db: Db, now: number, productId: string, variantId: string, stock: number, read?: ReadBefore) {
  const s = q(db);
  const product = read?.product ?? (await findProduct(db, productId))!;
  if (stock === 0) {
    if ((await s.markNotified.run({ id: variantId })).changes === 1) {
      await emitEvent(db, now, {
        storeId: product.storeId,
        type: 'PRODUCT.OUT_OF_STOCK',
        resource: { type: 'PRODUCT', id: productId },
        data: { productId, variantId },
      });
    }
    if (product.status === 'ON_SALE' && !(await s.onSaleInStock.get({ productId })))
      await touchProduct(db, productId, now, { status: 'SOLD_OUT', autoSoldOut: true });
  } else {
    if (read?.outOfStockNotified !== false) await s.clearNotified.run({ id: variantId });
    if (product.status === 'SOLD_OUT' && product.autoSoldOut && (await s.onSaleInStock.get({ productId })))
      await touchProduct(db, productId, now, { status: 'ON_SALE', autoSoldOut: false });
  }
}

export type StockChange = { stockQuantity: number; adjustment?: undefined } | { adjustment: number; stockQuantity?: undefined };

/**
 * Sets or moves a variant's stock; never below 0 (409 INSUFFICIENT_STOCK), and an adjustment never raises it
 * past what `stockQuantity` accepts (409 STOCK_LIMIT_EXCEEDED). Returns the new stock.
 */
export async function changeStock(db: Db, now: number, product: ProductRow, variantId: string, change: StockChange): Promise<number> {
  if (product.inventoryMode === 'DATED') throw fail(409, 'INVENTORY_MODE_DATED', { productId: product.id });
  const s = q(db);
  const row =
    change.adjustment !== undefined
      ? await s.adjust.get({ id: variantId, delta: change.adjustment, max: LIMITS.stockQuantity })
      : await s.set.get({ id: variantId, stock: change.stockQuantity });
  if (!row && (change.adjustment ?? 0) > 0)
    throw fail(409, 'STOCK_LIMIT_EXCEEDED', { productId: product.id, variantId, adjustment: change.adjustment, maximum: LIMITS.stockQuantity });
  if (!row) throw fail(409, 'INSUFFICIENT_STOCK', { productId: product.id, variantId, adjustment: change.adjustment });
  await afterStockChange(db, now, product.id, variantId, row.stockQuantity);
  return row.stockQuantity;
}

export interface Stay {
  checkIn: string;
  checkOut: string;
}

/** Nights of a stay: check-in day to the day before check-out, 1 to 30, not in the past (400 STAY_INVALID). */
export function stayNights(stay: Stay, now: number): string[] {
  const invalid = (reason: string) => fail(400, 'STAY_INVALID', { reason, checkIn: stay.checkIn, checkOut: stay.checkOut });
  if (typeof stay?.checkIn !== 'string' || typeof stay?.checkOut !== 'string' || !isRealDate(stay.checkIn) || !isRealDate(stay.checkOut))
    throw invalid('NONEXISTENT_DATE');
  const nights = daysBetween(stay.checkIn, stay.checkOut);
  if (nights < 1) throw invalid('CHECK_OUT_NOT_AFTER_CHECK_IN');
  if (nights > LIMITS.stayNights) throw invalid('TOO_MANY_NIGHTS');
  if (stay.checkIn < today(now)) throw invalid('CHECK_IN_IN_PAST');
  return Array.from({ length: nights }, (_, i) => addDays(stay.checkIn, i));
}

export interface StayPrice {
  checkIn: string;
  checkOut: string;
  nights: { date: string; price: number }[];
  /** Unit price of the item: the sum of nightly prices. */
  unitPrice: number;
}

/**
 * Prices a stay for checkout (spec 01 §2.6): null for a normal product without `stay`; 400 STAY_REQUIRED,
 * STAY_NOT_APPLICABLE or STAY_INVALID; 409 DATES_UNAVAILABLE (details.dates) when a night lacks `quantity`
 * units. A night without its own price costs what the variant costs today (discounted `salePrice` + add-on).
 */
export async function priceStay(
  db: Db,
  storeId: string,
  productId: string,
  variantId: string,
  stay: Stay | null | undefined,
  options: { now: number; quantity?: number },
): Promise<StayPrice | null> {
  const product = await loadProduct(db, storeId, productId);
  const variant = await loadVariant(db, product, variantId);
  if (product.inventoryMode !== 'DATED') {
    if (stay) throw fail(400, 'STAY_NOT_APPLICABLE', { productId });
    return null;
  }
  if (!stay) throw fail(400, 'STAY_REQUIRED', { productId });
  const nights = stayNights(stay, options.now);
  const quantity = options.quantity ?? 1;
  const rows = new Map((await q(db).nights.all({ variantId, from: nights[0], to: nights[nights.length - 1] })).map((r) => [r.date, r]));
  const unavailable = nights.filter((d) => (rows.get(d)?.stock ?? 0) < quantity);
  if (unavailable.length) throw fail(409, 'DATES_UNAVAILABLE', { dates: unavailable });
  const base = buyerUnitPrice(product, variant, options.now);
  const priced = nights.map((date) => ({ date, price: rows.get(date)!.price ?? base }));
  return { checkIn: stay.checkIn, checkOut: stay.checkOut, nights: priced, unitPrice: priced.reduce((n, p) => n + p.price, 0) };
}

export interface Sale {
  storeId: string;
  productId: string;
  variantId: string;
  quantity: number;
  /** Required for DATED products: the nights taken from the calendar. */
  stay?: Stay | null;
}

/** Takes (-1) or gives back (1) the sale's stock; a sale of counted stock also counts its units sold (`counted`). */
async function takeOrGive(db: Db, now: number, sale: Sale, direction: -1 | 1): Promise<{ product: ProductRow; counted: boolean }> {
  const product = await loadProduct(db, sale.storeId, sale.productId);
  const s = q(db);
  if (product.inventoryMode !== 'DATED' && direction === -1) {
    // The sale's one statement answers what the variant read would: its stock and out-of-stock mark.
    const row = await s.sell.get({ id: sale.variantId, productId: product.id, quantity: sale.quantity });
    if (!row) {
      await loadVariant(db, product, sale.variantId);
      throw fail(409, 'INSUFFICIENT_STOCK', { productId: product.id, variantId: sale.variantId, quantity: sale.quantity });
    }
    await afterStockChange(db, now, product.id, sale.variantId, row.stockQuantity, { product, outOfStockNotified: row.outOfStockNotified });
    return { product, counted: true };
  }
  const variant = await loadVariant(db, product, sale.variantId);
  if (product.inventoryMode === 'DATED') {
    if (!sale.stay) throw fail(400, 'STAY_REQUIRED', { productId: product.id });
    const nights = stayNights(sale.stay, direction === -1 ? now : 0);
    const statement = direction === -1 ? s.takeNight : s.giveNight;
    const short: string[] = [];
    for (const date of nights) {
      if ((await statement.run({ variantId: sale.variantId, date, quantity: sale.quantity })).changes !== 1) short.push(date);
    }
    if (short.length && direction === -1) throw fail(409, 'DATES_UNAVAILABLE', { dates: short });
    return { product, counted: false };
  }
  const row = await s.giveBack.get({ id: sale.variantId, quantity: sale.quantity });
  if (!row) throw fail(409, 'INSUFFICIENT_STOCK', { productId: product.id, variantId: sale.variantId, quantity: sale.quantity });
  await afterStockChange(db, now, product.id, sale.variantId, row.stockQuantity, { product, outOfStockNotified: variant.outOfStockNotified });
  return { product, counted: false };
}

/**
 * Checkout calls this inside its payment transaction: takes the stock (or the stay's nights) and records
 * the sale, which locks the fulfillment type and inventory mode and keeps the variant from deletion.
 * Throws 409 INSUFFICIENT_STOCK / DATES_UNAVAILABLE (the caller's transaction then changes nothing).
 */
export async function recordSale(db: Db, now: number, sale: Sale): Promise<ProductRow> {
  const { product, counted } = await takeOrGive(db, now, sale, -1);
  if (!counted) await q(db).countSale.run({ id: sale.variantId, quantity: sale.quantity });
  await q(db).countProductSale.run({ id: sale.productId, quantity: sale.quantity });
  return product;
}

/** A finished cancellation or return gives the stock back (spec 01 §3.2); the sales history stays. */
export async function restoreStock(db: Db, now: number, sale: Sale) {
  await takeOrGive(db, now, sale, 1);
}
