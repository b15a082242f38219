// The buyer's cart: finding or making it, its lines, and its view with today's prices.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { ApiError, fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { Ctx } from '../../server/registry.js';
import { calendarDate, won } from '../../server/responses.js';
import { findProduct, type Stay } from '../catalog/index.js';
import type { ItemOptionsRequest } from '../catalog/index.js';
import type { Customer } from '../customers/index.js';
import { itemOptionsViews, stayView } from '../orders/index.js';
import { orderable, thumbnail } from './orderable.js';
import type { SheetRow } from './sheet.js';
import { cartItems, carts } from './schema.js';

defineMessages({
  CART_NOT_FOUND: '장바구니를 찾을 수 없습니다.',
  CART_ITEM_NOT_FOUND: '장바구니 상품을 찾을 수 없습니다.',
  CART_FULL: '장바구니에는 50개 상품까지 담을 수 있습니다.',
});

const MAX_SHEET_LINES = 50;

export type CartRow = typeof carts.$inferSelect;

const q = preparedFor((db) => ({
  cart: db
    .select()
    .from(carts)
    .where(eq(carts.id, sql.placeholder('id')))
    .prepare(),
  memberCart: db
    .select()
    .from(carts)
    .where(and(eq(carts.storeId, sql.placeholder('storeId')), eq(carts.customerId, sql.placeholder('customerId'))))
    .prepare(),
  cartLines: db
    .select()
    .from(cartItems)
    .where(eq(cartItems.cartId, sql.placeholder('cartId')))
    .orderBy(cartItems.createdAt)
    .prepare(),
}));

/** A guest's cart from `x-svc-cart`, or a member's own; null when the buyer has none yet. */
export async function findCart(ctx: Ctx, storeId: string, customer: Customer | null): Promise<CartRow | null> {
  if (customer) return (await q(ctx.db).memberCart.get({ storeId, customerId: customer.id })) ?? null;
  const header = ctx.event.req.headers.get('x-svc-cart');
  if (!header) return null;
  const cart = await q(ctx.db).cart.get({ id: header });
  if (!cart || cart.storeId !== storeId || cart.customerId !== null) throw fail(404, 'CART_NOT_FOUND');
  return cart;
}

export async function cartFor(ctx: Ctx, storeId: string, customer: Customer | null): Promise<CartRow> {
  const existing = await findCart(ctx, storeId, customer);
  if (existing) return existing;
  const cart = { id: newId('cart', ctx.now), storeId, customerId: customer?.id ?? null, createdAt: ctx.now, updatedAt: ctx.now };
  await ctx.db.insert(carts).values(cart).run();
  return cart;
}

const sameStay = (a: Stay | null, b: Stay | null | undefined) =>
  (a?.checkIn ?? null) === (b?.checkIn ?? null) && (a?.checkOut ?? null) === (b?.checkOut ?? null);

/** Lines with other add-on picks or input text are other lines (the engraving differs, so does the item). */
const sameOptions = (a: ItemOptionsRequest, b: ItemOptionsRequest) =>
  JSON.stringify([a.addonSelections ?? [], a.customInputs ?? {}]) === JSON.stringify([b.addonSelections ?? [], b.customInputs ?? {}]);

export async function addCartItem(ctx: Ctx, cart: CartRow, line: { productId: string; optionId: string; quantity: number; stay?: Stay } & ItemOptionsRequest) {
  const lines = await q(ctx.db).cartLines.all({ cartId: cart.id });
  const same = lines.find((l) => l.productId === line.productId && l.optionId === line.optionId && sameStay(l.stay, line.stay) && sameOptions(l, line));
  const quantity = (same?.quantity ?? 0) + line.quantity;
  if (quantity > 999) throw validationFailed([{ field: 'quantity', code: 'TOO_LARGE', message: '장바구니의 한 상품은 999개까지 담을 수 있습니다.' }]);
  await orderable(ctx.db, cart.storeId, ctx.now, { ...line, quantity });
  if (same) await ctx.db.update(cartItems).set({ quantity }).where(eq(cartItems.id, same.id)).run();
  else if (lines.length >= MAX_SHEET_LINES) throw fail(409, 'CART_FULL', { limit: MAX_SHEET_LINES });
  else
    await ctx.db
      .insert(cartItems)
      .values({
        id: newId('ci', ctx.now),
        cartId: cart.id,
        storeId: cart.storeId,
        productId: line.productId,
        optionId: line.optionId,
        quantity,
        stay: line.stay ?? null,
        addonSelections: line.addonSelections ?? null,
        customInputs: line.customInputs ?? null,
        createdAt: ctx.now,
      })
      .run();
  await ctx.db.update(carts).set({ updatedAt: ctx.now }).where(eq(carts.id, cart.id)).run();
}

export async function setCartQuantity(ctx: Ctx, line: typeof cartItems.$inferSelect, quantity: number) {
  await orderable(ctx.db, line.storeId, ctx.now, { ...line, quantity });
  await ctx.db.update(cartItems).set({ quantity }).where(eq(cartItems.id, line.id)).run();
  await ctx.db.update(carts).set({ updatedAt: ctx.now }).where(eq(carts.id, line.cartId)).run();
}

export async function cartLine(ctx: Ctx, cart: CartRow | null, cartItemId: string) {
  const line = cart
    ? await ctx.db
        .select()
        .from(cartItems)
        .where(and(eq(cartItems.id, cartItemId), eq(cartItems.cartId, cart.id)))
        .get()
    : undefined;
  if (!line) throw fail(404, 'CART_ITEM_NOT_FOUND', { cartItemId });
  return line;
}

const requestedStay = z.object({ checkIn: calendarDate, checkOut: calendarDate });

const cartLineKeys = { cartItemId: z.string(), productId: z.string(), optionId: z.string(), quantity: z.number().int() };
const cartItemView = z.discriminatedUnion('available', [
  z.object({
    ...cartLineKeys,
    name: z.string(),
    optionValues: z.array(z.string()),
    unitPrice: won.describe("Today's buyer price of one unit (a stay: the sum of its nights)."),
    amount: won,
    stay: stayView.nullable(),
    ...itemOptionsViews,
    thumbnailUrl: z.string().nullable(),
    available: z.literal(true),
    unavailableReason: z.null(),
  }),
  z.object({
    ...cartLineKeys,
    name: z.string().nullable().describe('Null when the product no longer exists.'),
    optionValues: z.array(z.string()).max(0),
    unitPrice: z.null(),
    amount: z.null(),
    stay: requestedStay.nullable().describe('The stay as it was put in the cart.'),
    ...itemOptionsViews,
    thumbnailUrl: z.string().nullable(),
    available: z.literal(false),
    unavailableReason: z.string().describe('The error code ordering the line would get now, e.g. INSUFFICIENT_STOCK, PRODUCT_NOT_FOUND.'),
  }),
]);

/** The buyer's cart (`presentCart`). */
export const cartView = z.object({
  cartId: z.string().nullable().describe('Null while the buyer has no cart yet.'),
  items: z.array(cartItemView),
  itemsAmount: won.describe('Sum of the available lines.'),
});

/** The cart with today's prices; a line that can no longer be ordered says why instead of failing the read. */
export async function presentCart(ctx: Ctx, cart: CartRow | null) {
  const origin = ctx.services.config.origin;
  const lines = cart ? await q(ctx.db).cartLines.all({ cartId: cart.id }) : [];
  const items = await Promise.all(
    lines.map(async (line) => {
      const base = { cartItemId: line.id, productId: line.productId, optionId: line.optionId, quantity: line.quantity };
      try {
        const o = await orderable(ctx.db, line.storeId, ctx.now, line);
        return {
          ...base,
          name: o.product.name,
          optionValues: o.variant.optionValues,
          unitPrice: o.unitPrice,
          amount: o.unitPrice * line.quantity,
          stay: o.stay,
          ...o.options,
          thumbnailUrl: thumbnail(origin, o.product),
          available: true,
          unavailableReason: null,
        };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const product = await findProduct(ctx.db, line.productId);
        return {
          ...base,
          name: product?.name ?? null,
          optionValues: [],
          unitPrice: null,
          amount: null,
          stay: line.stay,
          optionSelections: [],
          customInputs: [],
          thumbnailUrl: product ? thumbnail(origin, product) : null,
          available: false,
          unavailableReason: error.code,
        };
      }
    }),
  );
  return {
    cartId: cart?.id ?? null,
    items,
    itemsAmount: items.reduce((n, i) => n + (i.amount ?? 0), 0),
  };
}

/** Lines of the buyer's cart named by id; any other id is 404 CART_ITEM_NOT_FOUND. */
export async function cartLines(ctx: Ctx, cart: CartRow | null, ids: string[]) {
  const lines = cart
    ? await ctx.db
        .select()
        .from(cartItems)
        .where(and(eq(cartItems.cartId, cart.id), inArray(cartItems.id, ids)))
        .all()
    : [];
  const missing = ids.filter((id) => !lines.some((l) => l.id === id));
  if (missing.length) throw fail(404, 'CART_ITEM_NOT_FOUND', { cartItemIds: missing });
  if (new Set(ids).size !== ids.length) throw validationFailed([{ field: 'cartItemIds', code: 'DUPLICATE', message: '같은 장바구니 상품이 두 번 있습니다.' }]);
  return ids.map((id) => lines.find((l) => l.id === id)!);
}

/** A member's cart lines that became an order leave the cart. */
export async function removeOrderedCartLines(db: Db, sheet: SheetRow) {
  const ids = sheet.items.map((i) => i.cartItemId).filter((id): id is string => id !== null);
  if (ids.length && sheet.cartId)
    await db
      .delete(cartItems)
      .where(and(eq(cartItems.cartId, sheet.cartId), inArray(cartItems.id, ids)))
      .run();
}
