// The buyer's view of a checkout sheet: its items, payment options, points, delivery and amounts.
import { z } from 'zod';
import { isoAt } from '../../db/clock.js';
import { instant, won } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import type { CheckoutAudience } from '../payments/index.js';
import { amountsView, findOrder, itemOptionsViews, stayView } from '../orders/index.js';
import { pointsOfSheet } from '../points/index.js';
import { storeSettings, type StoreSettings } from '../stores/index.js';
import { paymentOptionView, presentOptions } from './payment-options.js';
import { priceSheet } from './pricing.js';
import type { SheetRow } from './sheet.js';

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
  orderNo: z.number().int().nullable().describe('The order number a buyer quotes (14 digits), once the sheet made an order'),
  createdAt: instant,
  expiresAt: instant,
});

/** The buyer's view of a sheet (spec 02 §2.4). */
export async function presentSheet(
  services: Services,
  sheet: SheetRow,
  now: number,
  zipCode = sheet.zipCode,
  audience: CheckoutAudience = {},
  settings?: StoreSettings,
) {
  settings ??= await storeSettings(services.db, sheet.storeId);
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
    orderNo: sheet.orderId ? ((await findOrder(services.db, sheet.orderId))?.orderNo ?? null) : null,
    createdAt: isoAt(sheet.createdAt),
    expiresAt: isoAt(sheet.expiresAt),
  };
}
