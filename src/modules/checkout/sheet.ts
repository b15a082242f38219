// The checkout sheet: making it from orderable lines, loading it for its buyer, and whether it is still open.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { insertRow } from '../../db/statements.js';
import { mergeErrors } from '../../server/contract.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { Ctx } from '../../server/registry.js';
import type { ProductRow, Stay } from '../catalog/index.js';
import type { ItemOptionsRequest } from '../catalog/index.js';
import type { Customer } from '../customers/index.js';
import type { FixedRefundPolicy } from '../orders/index.js';
import { checkoutMode } from '../payments/index.js';
import { storeSettings } from '../stores/index.js';
import type { StoreSettings } from '../stores/index.js';
import { assertBuyerStore, audienceOf, BUYER_TOKEN_ERRORS, buyerOf } from './buyer.js';
import { orderable, thumbnail } from './orderable.js';
import { rememberedSheet } from './sheet-cache.js';
import { checkoutSheets, type SheetItem } from './schema.js';

defineMessages({
  CHECKOUT_NOT_FOUND: '주문서를 찾을 수 없습니다.',
  CHECKOUT_EXPIRED: '주문서 유효 시간(30분)이 지났습니다. 주문서를 다시 만드세요.',
  CHECKOUT_STALE: '주문서를 만든 뒤 상품이 바뀌었습니다. 주문서를 다시 만드세요.',
  CHECKOUT_ALREADY_COMPLETED: '이미 결제가 끝난 주문서입니다.',
  POINTS_UNAVAILABLE: '적립금을 사용할 수 없습니다.',
});

/** Validity of a checkout sheet (spec 02 §8). */
export const SHEET_TTL_MS = 30 * 60_000;

export type SheetRow = typeof checkoutSheets.$inferSelect;

const q = preparedFor((db) => ({
  sheet: db
    .select()
    .from(checkoutSheets)
    .where(eq(checkoutSheets.id, sql.placeholder('id')))
    .prepare(),
}));

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

export async function loadSheet(db: Db, checkoutId: string): Promise<SheetRow> {
  const sheet = await q(db).sheet.get({ id: checkoutId });
  if (!sheet) throw fail(404, 'CHECKOUT_NOT_FOUND');
  return sheet;
}

/** Errors of `buyerSheet` asking for an open sheet (the default). */
export const OPEN_SHEET_ERRORS = mergeErrors(BUYER_TOKEN_ERRORS, { 404: ['CHECKOUT_NOT_FOUND'], 409: ['CHECKOUT_ALREADY_COMPLETED', 'CHECKOUT_EXPIRED'] });

/**
 * A sheet its buyer may use: same store header, same member (or a guest sheet for a guest), not expired.
 * `remembered`: for reads that change nothing, the sheet may come from the cache (sheet-cache.ts).
 */
export async function buyerSheet(ctx: Ctx, checkoutId: string, { open = true, remembered = false } = {}) {
  const sheet = await (remembered ? rememberedSheet(ctx.db, checkoutId) : loadSheet(ctx.db, checkoutId));
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
  settings?: StoreSettings,
): Promise<SheetRow> {
  settings ??= await storeSettings(ctx.db, storeId);
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
