import { ok } from './assert.js';
import { apiClient, createAccessToken, type Api, type TestService } from './service.js';
import { ADDRESS, buyerApi, RETURN_URL, simulate } from './checkout.js';

export { ADDRESS, RETURN_URL, simulate };

let counter = 0;
/** A member buyer by delegation: its customer id and buyer API. */
export async function member(svc: TestService, api: Api, label = 'member') {
  return signIn(svc, api, `${label}-${Date.now().toString(36)}-${counter++}`);
}

/** A buyer token (30 minutes) for the member with `uid`, created on first use. */
export async function signIn(svc: TestService, api: Api, uid: string) {
  const answer = await api('POST', '/v1/customers/delegations', { body: { uid, email: `${uid}@example.com`, name: '회원' } });
  const res = ok(answer, answer.status === 201 ? 201 : 200);
  return { uid, customerId: res.customer.customerId as string, token: res.accessToken as string, buyer: buyerApi(svc, svc.storeId, res.accessToken) };
}

/** A member's sheet of one unit of each product. */
export async function sheetOf(buyer: Api, items: { productId: string; optionId: string }[]) {
  if (items.length === 1)
    return ok(
      await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { quantity: 1, productId: items[0].productId, optionId: items[0].optionId } } }),
      201,
    );
  for (const i of items) ok(await buyer('POST', '/storefront/v1/cart/items', { body: { quantity: 1, productId: i.productId, optionId: i.optionId } }), 201);
  const lines = ok(await buyer('GET', '/storefront/v1/cart')).items.map((l: any) => l.cartItemId);
  return ok(await buyer('POST', '/storefront/v1/checkout', { body: { cartItemIds: lines } }), 201);
}

/** Starts a member's payment of a sheet with coupons and points; card unless nothing is left to pay. */
export function pay(buyer: Api, sheet: any, discounts: { coupons?: { code: string }[]; pointAmount?: number }, card = true) {
  return buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, {
    body: {
      ...(card ? { option: 'pg_one:CARD', returnUrl: RETURN_URL } : {}),
      ...(sheet.requiresShipping ? { shippingAddress: ADDRESS } : {}),
      coupons: discounts.coupons ?? [],
      pointAmount: discounts.pointAmount ?? 0,
    },
  });
}

export const price = (buyer: Api, sheet: any, discounts: { coupons?: { code: string }[]; pointAmount?: number }) =>
  buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/pricing`, { body: { coupons: discounts.coupons ?? [], pointAmount: discounts.pointAmount ?? 0 } });

/** The field codes of a 400 VALIDATION_FAILED answer. */
export const fieldCodes = (res: { body: any }) => (res.body.error?.fieldErrors ?? []).map((f: any) => [f.field, f.code]);

export async function createCoupon(api: Api, body: Record<string, unknown>) {
  return ok(await api('POST', '/v1/coupons', { body: { name: '테스트 쿠폰', benefit: { method: 'AMOUNT', value: 1000 }, ...body } }), 201);
}

/**
 * The seeded owner's API through a 30-day access token: tests here move the clock by days, past a login's
 * 15 minutes. It may delegate buyers; payment settings (owner logins only) are set up before.
 */
export async function longLivedToken(svc: TestService): Promise<string> {
  const scopes = [
    'product:rw',
    'category:rw',
    'order:rw',
    'claim:rw',
    'customer:rw',
    'promotion:rw',
    'flow:rw',
    'store:rw',
    'storefront:rw',
    'settlement:r',
    'member:delegate',
  ];
  return createAccessToken(svc, svc.ownerToken, { scopes, buyerDelegation: true, expiresInDays: 30 });
}

export async function longLivedApi(svc: TestService): Promise<Api> {
  return apiClient(svc.url, { token: await longLivedToken(svc), storeId: svc.storeId });
}
