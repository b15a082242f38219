// Who is buying: the member or guest of the request, what checkout offers them, and the store checks on buyer reads.
import type { Db } from '../../db/client.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { Ctx } from '../../server/registry.js';
import { resolveBuyer, type Customer } from '../customers/index.js';
import type { CheckoutAudience } from '../payments/index.js';
import { isPreviewBrowser } from '../storefront/index.js';
import { storeIdNamedBy, storeSettings } from '../stores/index.js';

defineMessages({
  GUEST_CHECKOUT_DISABLED: '회원만 주문할 수 있는 상점입니다.',
});

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

/**
 * A store-owned row reached by a buyer: the header, when sent, must name its store; others' rows do not exist.
 * A header with the store's id needs no read (a store code does).
 */
export async function assertBuyerStore(ctx: Ctx, storeId: string, notFound: string) {
  const header = ctx.event.req.headers.get('x-store-id');
  if (header !== null && header !== storeId && (await storeIdNamedBy(ctx.db, header)) !== storeId) throw fail(404, notFound);
}

export async function assertGuestAllowed(db: Db, storeId: string, customer: Customer | null) {
  if (!customer && !(await storeSettings(db, storeId)).guestCheckout) throw fail(403, 'GUEST_CHECKOUT_DISABLED');
}
