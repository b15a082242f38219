import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { mergeErrors } from '../../server/contract.js';
import { ApiError, fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { Ctx } from '../../server/registry.js';
import { calendarDate, instant, won } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { buyerUnitPrice } from '../catalog/index.js';
import { findProduct, variantsOf, type ProductRow, type VariantRow } from '../catalog/index.js';
import { priceStay, type Stay } from '../catalog/index.js';
import { addonAmountOf, chooseItemOptions, type ItemOptions, type ItemOptionsRequest } from '../catalog/index.js';
import { resolveBuyer, type Customer } from '../customers/index.js';
import { checkoutMode, paymentOptions, type CheckoutAudience } from '../payments/index.js';
import { isPreviewBrowser } from '../storefront/index.js';
import { EASY_PAY_PROVIDERS, METHODS, PROVIDERS, type PaymentOption } from '../payments/index.js';
import { storeIdNamedBy, storeSettings } from '../stores/index.js';
import type { StoreSettings } from '../stores/index.js';
import { uploadUrl } from '../uploads/index.js';
import { pointsOfSheet } from '../points/index.js';
import type { FixedRefundPolicy } from '../orders/index.js';
import { amountsView, itemOptionsViews, stayView } from '../orders/index.js';
import { priceSheet } from './pricing.js';
import { insertRow } from '../../db/statements.js';
import { cartItems, carts, checkoutSheets, type SheetItem } from './schema.js';

defineMessages({
  CART_NOT_FOUND: '장바구니를 찾을 수 없습니다.',
  CART_ITEM_NOT_FOUND: '장바구니 상품을 찾을 수 없습니다.',
  CART_FULL: '장바구니에는 50개 상품까지 담을 수 있습니다.',
  CHECKOUT_NOT_FOUND: '주문서를 찾을 수 없습니다.',
  CHECKOUT_EXPIRED: '주문서 유효 시간(30분)이 지났습니다. 주문서를 다시 만드세요.',
  CHECKOUT_STALE: '주문서를 만든 뒤 상품이 바뀌었습니다. 주문서를 다시 만드세요.',
  CHECKOUT_ALREADY_COMPLETED: '이미 결제가 끝난 주문서입니다.',
  GUEST_CHECKOUT_DISABLED: '회원만 주문할 수 있는 상점입니다.',
  POINTS_UNAVAILABLE: '적립금을 사용할 수 없습니다.',
});

/** Validity of a checkout sheet (spec 02 §8). */
export const SHEET_TTL_MS = 30 * 60_000;
const MAX_SHEET_LINES = 50;

export type SheetRow = typeof checkoutSheets.$inferSelect;
export type CartRow = typeof carts.$inferSelect;

const q = preparedFor((db) => ({
  sheet: db
    .select()
    .from(checkoutSheets)
    .where(eq(checkoutSheets.id, sql.placeholder('id')))
    .prepare(),
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

/** Errors of `buyerOf` on operations outside the buyer pipeline: a token that is not a live buyer token of the store. */
export const BUYER_TOKEN_ERRORS = { 401: ['UNAUTHORIZED', 'TOKEN_REVOKED'] };

/** The member buyer of the request (buyer token of this store), or null for a guest. */
export const buyerOf = (ctx: Ctx, storeId: string) => resolveBuyer(ctx.services, ctx.event.req.headers.get('authorization'), storeId);

/**
 * Who is buying, for what checkout offers: the seller's trusted preview browser of the store's site still
 * pays in the sandbox once the site is public, where visitors get PAYMENT_NOT_LIVE (spec 01 §5.5, 02 §7).
 */
export const audienceOf = async (ctx: Ctx, storeId: string): Promise<CheckoutAudience> => ({
  preview: await isPreviewBrowser(ctx.services, ctx.event.req.headers.get('cookie'), storeId),
});

/** A store-owned row reached by a buyer: the header, when sent, must name its store; others' rows do not exist. */
export async function assertBuyerStore(ctx: Ctx, storeId: string, notFound: string) {
  const header = ctx.event.req.headers.get('x-store-id');
  if (header !== null && (await storeIdNamedBy(ctx.db, header)) !== storeId) throw fail(404, notFound);
}

export async function assertGuestAllowed(db: Db, storeId: string, customer: Customer | null) {
  if (!customer && !(await storeSettings(db, storeId)).guestCheckout) throw fail(403, 'GUEST_CHECKOUT_DISABLED');
}

export interface Orderable {
  product: ProductRow;
  variant: VariantRow;
  unitPrice: number;
  stay: { checkIn: string; checkOut: string; nights: { date: string; price: number }[] } | null;
  /** The add-on picks (in `unitPrice`) and custom inputs of the line. */
  options: ItemOptions;
}

/** Errors of `orderable`, stays included (`priceStay`). */
export const ORDERABLE_ERRORS = {
  400: ['STAY_REQUIRED', 'STAY_NOT_APPLICABLE', 'STAY_INVALID'],
  404: ['PRODUCT_NOT_FOUND', 'VARIANT_NOT_FOUND'],
  409: ['INSUFFICIENT_STOCK', 'DATES_UNAVAILABLE'],
};

/**
 * What a buyer may order now: a product of the store on sale, a variant on sale, enough stock (or nights),
 * valid add-on picks and custom inputs, at today's buyer price (discount inside its period; a stay costs
 * the sum of its nights) plus the picked add-ons. `field` prefixes the line's form errors (`directItem`).
 */
export async function orderable(
  db: Db,
  storeId: string,
  now: number,
  line: { productId: string; optionId: string; quantity: number; stay?: Stay | null } & ItemOptionsRequest,
  field = '',
): Promise<Orderable> {
  const product = await findProduct(db, line.productId);
  if (!product || product.storeId !== storeId) throw fail(404, 'PRODUCT_NOT_FOUND', { productId: line.productId });
  // Sold out is said as such (a buyer may wait for a restock); suspended and ended products do not exist for buyers.
  if (product.status === 'SOLD_OUT') throw fail(409, 'INSUFFICIENT_STOCK', { productId: product.id, optionId: line.optionId, quantity: line.quantity });
  if (product.status !== 'ON_SALE') throw fail(404, 'PRODUCT_NOT_FOUND', { productId: line.productId });
  const variant = (await variantsOf(db, product.id)).find((v) => v.id === line.optionId);
  if (!variant || !variant.saleOn) throw fail(404, 'VARIANT_NOT_FOUND', { productId: product.id, optionId: line.optionId });
  // Only dated products (or a stay given to another, which priceStay refuses) need the calendar.
  const stay =
    product.inventoryMode === 'DATED' || line.stay ? await priceStay(db, storeId, product.id, variant.id, line.stay, { now, quantity: line.quantity }) : null;
  if (!stay && variant.stockQuantity < line.quantity)
    throw fail(409, 'INSUFFICIENT_STOCK', { productId: product.id, optionId: variant.id, quantity: line.quantity });
  const options = chooseItemOptions(product, line, field);
  return {
    product,
    variant,
    unitPrice: (stay ? stay.unitPrice : buyerUnitPrice(product, variant, now)) + addonAmountOf(options),
    stay: stay && { checkIn: stay.checkIn, checkOut: stay.checkOut, nights: stay.nights },
    options,
  };
}

const thumbnail = (origin: string, product: ProductRow) => (product.images[0] ? uploadUrl(origin, product.images[0]) : null);

/** The product's refund override over the store default, fixed now (spec 01 §2.4 rule 5). */
function fixRefundPolicy(settings: StoreSettings, product: ProductRow): FixedRefundPolicy {
  const o = product.refundPolicy ?? {};
  const shipping = product.fulfillment.type === 'SHIPPING';
  return {
    returnDeliveryFee: shipping ? (o.returnDeliveryFee ?? settings.refundPolicy.returnDeliveryFee) : null,
    exchangeDeliveryFee: shipping ? (o.exchangeDeliveryFee ?? settings.refundPolicy.exchangeDeliveryFee) : null,
    preShipmentDeliveryFeeRefund: o.preShipmentDeliveryFeeRefund ?? settings.refundPolicy.preShipmentDeliveryFeeRefund,
    override: product.refundPolicy,
  };
}

// ---------------------------------------------------------------------------------------------------
// Cart

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

// ---------------------------------------------------------------------------------------------------
// Checkout sheet

export async function loadSheet(db: Db, checkoutId: string): Promise<SheetRow> {
  const sheet = await q(db).sheet.get({ id: checkoutId });
  if (!sheet) throw fail(404, 'CHECKOUT_NOT_FOUND');
  return sheet;
}

/** Errors of `buyerSheet` asking for an open sheet (the default). */
export const OPEN_SHEET_ERRORS = mergeErrors(BUYER_TOKEN_ERRORS, { 404: ['CHECKOUT_NOT_FOUND'], 409: ['CHECKOUT_ALREADY_COMPLETED', 'CHECKOUT_EXPIRED'] });

/** A sheet its buyer may use: same store header, same member (or a guest sheet for a guest), not expired. */
export async function buyerSheet(ctx: Ctx, checkoutId: string, { open = true } = {}) {
  const sheet = await loadSheet(ctx.db, checkoutId);
  await assertBuyerStore(ctx, sheet.storeId, 'CHECKOUT_NOT_FOUND');
  const customer = await buyerOf(ctx, sheet.storeId);
  if ((customer?.id ?? null) !== sheet.customerId) throw fail(404, 'CHECKOUT_NOT_FOUND');
  if (open) assertSheetOpen(sheet, ctx.services.clock.now());
  return { sheet, customer };
}

export function assertSheetOpen(sheet: SheetRow, now: number) {
  if (sheet.status === 'COMPLETED') throw fail(409, 'CHECKOUT_ALREADY_COMPLETED', { orderId: sheet.orderId });
  if (now >= sheet.expiresAt) throw fail(409, 'CHECKOUT_EXPIRED', { expiresAt: isoAt(sheet.expiresAt) });
}

export async function createSheet(
  ctx: Ctx,
  storeId: string,
  customer: Customer | null,
  lines: ({ productId: string; optionId: string; quantity: number; stay?: Stay | null; cartItemId: string | null } & ItemOptionsRequest)[],
  cartId: string | null,
): Promise<SheetRow> {
  const settings = await storeSettings(ctx.db, storeId);
  const origin = ctx.services.config.origin;
  // One line after another: the first line that cannot be ordered is the one the buyer hears about.
  const items: SheetItem[] = [];
  for (const [i, line] of lines.entries()) {
    const o = await orderable(ctx.db, storeId, ctx.now, line, line.cartItemId === null ? 'directItem' : `cartItemIds.${i}`);
    items.push({
      productId: o.product.id,
      productNo: o.product.productNo,
      optionId: o.variant.id,
      name: o.product.name,
      optionValues: o.variant.optionValues,
      quantity: line.quantity,
      unitPrice: o.unitPrice,
      amount: o.unitPrice * line.quantity,
      stay: o.stay,
      thumbnailUrl: thumbnail(origin, o.product),
      fulfillment: o.product.fulfillment,
      refundPolicy: fixRefundPolicy(settings, o.product),
      typeVersion: o.product.typeChangedVersion,
      cartItemId: line.cartItemId,
      optionSelections: o.options.optionSelections,
      customInputs: o.options.customInputs,
    });
  }
  const sheet: SheetRow = {
    id: newId('chk', ctx.now),
    storeId,
    customerId: customer?.id ?? null,
    cartId,
    items,
    requiresShipping: items.some((i) => i.fulfillment.type === 'SHIPPING'),
    zipCode: null,
    testPayment: (await checkoutMode(ctx.services, storeId, await audienceOf(ctx, storeId))).mode === 'TEST',
    status: 'OPEN',
    orderId: null,
    createdAt: ctx.now,
    expiresAt: ctx.now + SHEET_TTL_MS,
  };
  await insertRow(ctx.db, checkoutSheets, sheet);
  return sheet;
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

/** A payment option of spec 02 §2.4. */
export const paymentOptionView = z.object({
  pg: z.enum(PROVIDERS),
  method: z.enum(METHODS),
  provider: z.enum(EASY_PAY_PROVIDERS).nullable().describe('The easy-pay provider whose window opens directly; only with EASY_PAY.'),
  key: z.string().describe('`<pg>:<method>:<provider>`, accepted wherever an option is sent.'),
  label: z.string(),
  pgName: z.string(),
});

export const presentOption = (o: PaymentOption) => ({ pg: o.pg, method: o.method, provider: o.provider ?? null, key: o.key, label: o.label, pgName: o.pgName });

export const presentOptions = async (services: Services, storeId: string, audience: CheckoutAudience = {}) =>
  (await paymentOptions(services, storeId, audience)).map(presentOption);

/** `delivery` of a sheet or a delivery quote. */
export const deliveryView = z.object({
  zipCode: z.string().nullable().describe('Null until an address is known.'),
  remoteSurcharge: won,
  remoteAreaLabel: z.string().nullable().describe('제주 or 도서산간 when the address is a remote area.'),
});

/** The buyer's view of a checkout sheet (`presentSheet`). */
export const checkoutView = z.object({
  checkoutId: z.string(),
  status: z.enum(['OPEN', 'COMPLETED', 'EXPIRED']),
  items: z.array(
    z.object({
      productId: z.string(),
      productNo: z.number().int(),
      optionId: z.string(),
      name: z.string(),
      optionValues: z.array(z.string()),
      quantity: z.number().int(),
      unitPrice: won.describe('Buyer price of one unit when the sheet was made.'),
      amount: won,
      stay: stayView.nullable(),
      thumbnailUrl: z.string().nullable(),
      fulfillment: z.object({ type: z.enum(['SHIPPING', 'MANUAL']) }),
      cartItemId: z.string().nullable().describe('The cart line the item came from; null for a direct item.'),
      ...itemOptionsViews,
    }),
  ),
  paymentOptions: z.array(paymentOptionView).describe('In gateway priority order; empty when payment is impossible.'),
  points: z.object({ useAvailable: z.boolean(), balance: won, usableAmount: won }),
  requiresShipping: z.boolean().describe('False when every item is MANUAL.'),
  delivery: deliveryView,
  amounts: amountsView,
  paymentRequired: z.boolean().describe('False when nothing is left to pay; then payment starts without an option.'),
  guestCheckout: z.boolean(),
  testPayment: z.boolean(),
  orderId: z.string().nullable(),
  createdAt: instant,
  expiresAt: instant,
});

/** The buyer's view of a sheet (spec 02 §2.4). */
export async function presentSheet(services: Services, sheet: SheetRow, now: number, zipCode = sheet.zipCode, audience: CheckoutAudience = {}) {
  const settings = await storeSettings(services.db, sheet.storeId);
  const priced = priceSheet(sheet.items, settings, sheet.requiresShipping ? zipCode : null);
  const points = await pointsOfSheet(services.db, sheet.storeId, sheet.customerId, priced.amounts.totalAmount, now);
  return {
    checkoutId: sheet.id,
    status: sheet.status === 'OPEN' && now >= sheet.expiresAt ? 'EXPIRED' : sheet.status,
    items: sheet.items.map((i) => ({
      productId: i.productId,
      productNo: i.productNo,
      optionId: i.optionId,
      name: i.name,
      optionValues: i.optionValues,
      quantity: i.quantity,
      unitPrice: i.unitPrice,
      amount: i.amount,
      stay: i.stay,
      thumbnailUrl: i.thumbnailUrl,
      fulfillment: { type: i.fulfillment.type },
      cartItemId: i.cartItemId,
      optionSelections: i.optionSelections ?? [],
      customInputs: i.customInputs ?? [],
    })),
    paymentOptions: await presentOptions(services, sheet.storeId, audience),
    points,
    requiresShipping: sheet.requiresShipping,
    delivery: { zipCode, remoteSurcharge: priced.amounts.remoteSurcharge, remoteAreaLabel: priced.remoteArea?.label ?? null },
    amounts: priced.amounts,
    paymentRequired: priced.amounts.totalAmount > 0,
    guestCheckout: settings.guestCheckout,
    testPayment: sheet.testPayment,
    orderId: sheet.orderId,
    createdAt: isoAt(sheet.createdAt),
    expiresAt: isoAt(sheet.expiresAt),
  };
}
