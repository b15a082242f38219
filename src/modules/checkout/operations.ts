import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { mergeErrors } from '../../server/contract.js';
import { announce } from '../../server/hooks.js';
import { defineOperation, reply } from '../../server/registry.js';
import { checkoutAvailability } from '../payments/index.js';
import { businessInfo, checkoutAvailabilityFields } from '../stores/index.js';
import { findStore, storeSettings } from '../stores/index.js';
import { cartAdd, cartPatch, checkoutCreate, deliveryQuote, newAttempt as newAttemptBody, paymentStart, pricingRequest } from './inputs.js';
import { DISCOUNT_ERRORS, priceWithDiscounts } from './discounts.js';
import { amountsView } from '../orders/index.js';
import { NEW_ATTEMPT_ERRORS, newAttempt, START_PAYMENT_ERRORS, startPayment } from './payment-attempts.js';
import { loadPayment } from './payment-records.js';
import { paymentStartView, paymentStatusView, presentPaymentStatus, storefrontResult, storefrontResultView } from './payment-views.js';
import { cartItems, carts } from './schema.js';
import { assertGuestAllowed, audienceOf, BUYER_TOKEN_ERRORS } from './buyer.js';
import { addCartItem, setCartQuantity, cartFor, cartLine, cartLines, cartView, findCart, presentCart } from './cart.js';
import { ORDERABLE_ERRORS } from './orderable.js';
import { assertSheetOpen, buyerSheet, createSheet, OPEN_SHEET_ERRORS } from './sheet.js';
import { checkoutView, deliveryView, presentSheet } from './sheet-view.js';

const tag = 'Storefront checkout';
const checkoutParams = z.object({ checkoutId: z.string() }).strict();
const paymentParams = z.object({ paymentId: z.string() }).strict();
const cartItemParams = z.object({ cartItemId: z.string() }).strict();
const cartLineErrors = { 404: ['CART_NOT_FOUND', 'CART_ITEM_NOT_FOUND'] };
const paymentNotFound = { 404: ['PAYMENT_NOT_FOUND'] };

/** Buyer API (spec 02 §4.3): public operations; members add their buyer token, guests carry ids. */
export const checkoutOperations = [
  defineOperation({
    operationId: 'storefrontGetStore',
    method: 'GET',
    path: '/storefront/v1/store',
    summary: 'Public store settings: guest checkout, checkout availability and the business information shops show (needs X-Store-Id)',
    tag,
    auth: 'buyer',
    response: z.object({
      storeId: z.string(),
      name: z.string(),
      guestCheckout: z.boolean(),
      ...checkoutAvailabilityFields,
      businessInfo: businessInfo.describe('What a Korean online shop must show its buyers (상호, 대표자, 사업자등록번호, 통신판매업 신고번호, contact)'),
    }),
    handler: async (ctx) => {
      const { storeId } = ctx.buyer;
      const store = (await findStore(ctx.db, storeId))!;
      const settings = await storeSettings(ctx.db, storeId);
      return {
        storeId,
        name: store.name,
        guestCheckout: settings.guestCheckout,
        ...(await checkoutAvailability(ctx.services, storeId, await audienceOf(ctx, storeId))),
        businessInfo: settings.businessInfo,
      };
    },
  }),
  defineOperation({
    operationId: 'storefrontAddCartItem',
    method: 'POST',
    path: '/storefront/v1/cart/items',
    summary: 'Add a product option to the cart; a guest gets the cart id in the x-svc-cart header',
    tag,
    auth: 'buyer',
    body: cartAdd,
    status: 201,
    response: cartView,
    errors: mergeErrors(ORDERABLE_ERRORS, { 404: ['CART_NOT_FOUND'], 409: ['CART_FULL'] }),
    handler: async (ctx) => {
      const cart = await cartFor(ctx, ctx.buyer.storeId, ctx.buyer.customer);
      await addCartItem(ctx, cart, ctx.body);
      await announce(ctx.db, 'cartItemAdded', { storeId: ctx.buyer.storeId, productId: ctx.body.productId, headers: ctx.event.req.headers, at: ctx.now });
      return reply(201, await presentCart(ctx, cart), { headers: { 'x-svc-cart': cart.id } });
    },
  }),
  defineOperation({
    operationId: 'storefrontGetCart',
    method: 'GET',
    path: '/storefront/v1/cart',
    summary: "The buyer's cart at today's prices (guests send x-svc-cart)",
    tag,
    auth: 'buyer',
    response: cartView,
    errors: { 404: ['CART_NOT_FOUND'] },
    handler: async (ctx) => presentCart(ctx, await findCart(ctx, ctx.buyer.storeId, ctx.buyer.customer)),
  }),
  defineOperation({
    operationId: 'storefrontUpdateCartItem',
    method: 'PATCH',
    path: '/storefront/v1/cart/items/{cartItemId}',
    summary: 'Change the quantity of a cart line',
    tag,
    auth: 'buyer',
    params: cartItemParams,
    body: cartPatch,
    response: cartView,
    errors: mergeErrors(ORDERABLE_ERRORS, cartLineErrors),
    handler: async (ctx) => {
      const cart = await findCart(ctx, ctx.buyer.storeId, ctx.buyer.customer);
      await setCartQuantity(ctx, await cartLine(ctx, cart, ctx.params.cartItemId), ctx.body.quantity);
      return presentCart(ctx, cart);
    },
  }),
  defineOperation({
    operationId: 'storefrontRemoveCartItem',
    method: 'DELETE',
    path: '/storefront/v1/cart/items/{cartItemId}',
    summary: 'Remove a cart line',
    tag,
    auth: 'buyer',
    params: cartItemParams,
    response: cartView,
    errors: cartLineErrors,
    handler: async (ctx) => {
      const cart = await findCart(ctx, ctx.buyer.storeId, ctx.buyer.customer);
      const line = await cartLine(ctx, cart, ctx.params.cartItemId);
      await ctx.db.delete(cartItems).where(eq(cartItems.id, line.id)).run();
      await ctx.db.update(carts).set({ updatedAt: ctx.now }).where(eq(carts.id, cart!.id)).run();
      return presentCart(ctx, cart);
    },
  }),
  defineOperation({
    operationId: 'storefrontCreateCheckout',
    method: 'POST',
    path: '/storefront/v1/checkout',
    summary: 'Create a checkout sheet (valid 30 minutes) from cart lines or one direct item; validates price, stock, sale status and stay',
    tag,
    auth: 'buyer',
    body: checkoutCreate,
    status: 201,
    response: checkoutView,
    errors: mergeErrors(ORDERABLE_ERRORS, cartLineErrors, { 403: ['GUEST_CHECKOUT_DISABLED'] }),
    handler: async (ctx) => {
      const { storeId, customer } = ctx.buyer;
      await assertGuestAllowed(ctx.db, storeId, customer);
      // Read once for the sheet and its view.
      const settings = await storeSettings(ctx.db, storeId);
      let sheet;
      if ('cartItemIds' in ctx.body) {
        const cart = await findCart(ctx, storeId, customer);
        const lines = await cartLines(ctx, cart, ctx.body.cartItemIds);
        sheet = await createSheet(
          ctx,
          storeId,
          customer,
          lines.map((l) => ({ ...l, cartItemId: l.id })),
          cart!.id,
          settings,
        );
      } else {
        sheet = await createSheet(ctx, storeId, customer, [{ ...ctx.body.directItem, cartItemId: null }], null, settings);
      }
      await announce(ctx.db, 'checkoutStarted', { storeId, checkoutId: sheet.id, headers: ctx.event.req.headers, at: ctx.now });
      return reply(201, await presentSheet(ctx.services, sheet, ctx.now, sheet.zipCode, await audienceOf(ctx, storeId), settings));
    },
  }),
  defineOperation({
    operationId: 'storefrontGetCheckout',
    method: 'GET',
    path: '/storefront/v1/checkout/{checkoutId}',
    summary: 'Read a checkout sheet',
    tag,
    auth: 'none',
    params: checkoutParams,
    response: checkoutView,
    // A completed sheet is shown (with its orderId); only an open one past its 30 minutes is refused.
    errors: mergeErrors(BUYER_TOKEN_ERRORS, { 404: ['CHECKOUT_NOT_FOUND'], 409: ['CHECKOUT_EXPIRED'] }),
    handler: async (ctx) => {
      const { sheet } = await buyerSheet(ctx, ctx.params.checkoutId, { open: false });
      if (sheet.status === 'OPEN') assertSheetOpen(sheet, ctx.now);
      return presentSheet(ctx.services, sheet, ctx.now, sheet.zipCode, await audienceOf(ctx, sheet.storeId));
    },
  }),
  defineOperation({
    operationId: 'storefrontPriceCheckout',
    method: 'POST',
    path: '/storefront/v1/checkout/{checkoutId}/pricing',
    summary: 'Price preview with coupons and points: amounts and whether payment is required; changes nothing',
    tag,
    auth: 'none',
    params: checkoutParams,
    body: pricingRequest,
    async: true,
    response: z.object({ amounts: amountsView, paymentRequired: z.boolean() }),
    errors: mergeErrors(OPEN_SHEET_ERRORS, DISCOUNT_ERRORS),
    handler: async (ctx) => {
      const { sheet, customer } = await buyerSheet(ctx, ctx.params.checkoutId, { remembered: true });
      const { amounts } = (await priceWithDiscounts(ctx.db, sheet, customer?.id ?? null, ctx.body, sheet.requiresShipping ? sheet.zipCode : null, ctx.now))
        .priced;
      return { amounts, paymentRequired: amounts.totalAmount > 0 };
    },
  }),
  defineOperation({
    operationId: 'storefrontQuoteDelivery',
    method: 'POST',
    path: '/storefront/v1/checkout/{checkoutId}/delivery-quote',
    summary: 'Delivery quote for a postal code (remote-area surcharge); changes nothing',
    tag,
    auth: 'none',
    params: checkoutParams,
    body: deliveryQuote,
    async: true,
    response: z.object({ amounts: amountsView, delivery: deliveryView, paymentRequired: z.boolean() }),
    errors: OPEN_SHEET_ERRORS,
    handler: async (ctx) => {
      const { sheet } = await buyerSheet(ctx, ctx.params.checkoutId, { remembered: true });
      const view = await presentSheet(ctx.services, sheet, ctx.now, ctx.body.zipCode, await audienceOf(ctx, sheet.storeId));
      return {
        amounts: view.amounts,
        delivery: view.requiresShipping ? view.delivery : { zipCode: ctx.body.zipCode, remoteSurcharge: 0, remoteAreaLabel: null },
        paymentRequired: view.paymentRequired,
      };
    },
  }),
  defineOperation({
    operationId: 'storefrontStartPayment',
    method: 'POST',
    path: '/storefront/v1/checkout/{checkoutId}/payment',
    summary: 'Start the payment of a sheet (valid 10 minutes): payUrl of the window, or an order at once when nothing is to be paid; honours Idempotency-Key',
    tag,
    auth: 'none',
    params: checkoutParams,
    body: paymentStart,
    status: 201,
    async: true,
    response: paymentStartView,
    errors: START_PAYMENT_ERRORS,
    handler: startPayment,
  }),
  defineOperation({
    operationId: 'storefrontNewPaymentAttempt',
    method: 'POST',
    path: '/storefront/v1/payments/{paymentId}/attempts',
    summary: 'Open a new window on the same payment (another option after a refusal); honours Idempotency-Key',
    tag,
    auth: 'none',
    params: paymentParams,
    body: newAttemptBody,
    status: 201,
    async: true,
    response: paymentStartView,
    errors: NEW_ATTEMPT_ERRORS,
    handler: newAttempt,
  }),
  defineOperation({
    operationId: 'storefrontGetPayment',
    method: 'GET',
    path: '/storefront/v1/payments/{paymentId}',
    summary: 'Payment status for polling after the window (no authentication)',
    tag,
    auth: 'none',
    params: paymentParams,
    response: paymentStatusView,
    errors: paymentNotFound,
    handler: async (ctx) => presentPaymentStatus(ctx.services, await loadPayment(ctx.db, ctx.params.paymentId)),
  }),
  defineOperation({
    operationId: 'storefrontGetPaymentResult',
    method: 'GET',
    path: '/storefront/v1/payments/{paymentId}/result',
    summary: 'The payment result a storefront shows on its return page: COMPLETED, CANCELED, FAILED or PROCESSING (no authentication)',
    tag,
    auth: 'none',
    params: paymentParams,
    response: storefrontResultView,
    errors: paymentNotFound,
    handler: async (ctx) => storefrontResult(ctx.services, await loadPayment(ctx.db, ctx.params.paymentId)),
  }),
];
